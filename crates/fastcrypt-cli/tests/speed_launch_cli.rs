//! `fastcrypt speed` runs the speed lab, `fastcrypt-speed`, a program of
//! its own: the same output and exit status whichever way it is started,
//! a clear error when it is missing, and `fastcrypt` itself free of the
//! peer libraries the lab links (the reason for the split: start-up time
//! of the everyday commands).

mod common;

use common::{fastcrypt, stderr, stdout, Scratch};
use std::process::Command;

const SPEED: &str = env!("CARGO_BIN_EXE_fastcrypt-speed");

fn lab(args: &[&str]) -> std::process::Output {
    Command::new(SPEED)
        .args(args)
        .output()
        .expect("run fastcrypt-speed")
}

#[test]
fn launcher_and_lab_print_the_same() {
    for args in [
        &["--list"][..],
        &["--help"],
        &["--version"],
        &[
            "sha1",
            "--sizes",
            "8",
            "--min-time",
            "5ms",
            "--samples",
            "5",
            "--format",
            "go",
        ],
    ] {
        let mut via = vec!["speed"];
        via.extend_from_slice(args);
        let a = fastcrypt(&via);
        let b = lab(args);
        assert!(
            a.status.success() && b.status.success(),
            "{args:?}: {}",
            stderr(&a)
        );
        if args[0] == "sha1" {
            // Timings differ run to run; the benchmark names must not.
            let names = |s: String| -> Vec<String> {
                s.lines()
                    .filter(|l| l.starts_with("Benchmark"))
                    .map(|l| l.split_whitespace().next().unwrap().to_string())
                    .collect()
            };
            let (x, y) = (names(stdout(&a)), names(stdout(&b)));
            assert!(!x.is_empty());
            assert_eq!(x, y);
        } else {
            assert_eq!(stdout(&a), stdout(&b), "{args:?}");
        }
    }
    // The header names the command users type, however the lab started.
    for o in [
        fastcrypt(&[
            "speed",
            "sha1",
            "--sizes",
            "8",
            "--min-time",
            "5ms",
            "--samples",
            "5",
        ]),
        lab(&[
            "sha1",
            "--sizes",
            "8",
            "--min-time",
            "5ms",
            "--samples",
            "5",
        ]),
    ] {
        let out = stdout(&o);
        assert!(
            out.contains("command:   fastcrypt speed sha1 --sizes 8 --min-time 5ms --samples 5\n"),
            "{out}"
        );
    }
    // The lab's help names the command users type.
    assert!(stdout(&lab(&["--help"])).contains("Usage: fastcrypt speed [OPTIONS] [ALGO]..."));
}

#[test]
fn errors_and_status_pass_through() {
    for args in [&["md5"][..], &["--samples", "3"], &["--bogus"]] {
        let mut via = vec!["speed"];
        via.extend_from_slice(args);
        let a = fastcrypt(&via);
        let b = lab(args);
        assert_eq!(a.status.code(), Some(1), "{args:?}");
        assert_eq!(b.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&a), stderr(&b), "{args:?}");
        assert!(a.stdout.is_empty());
    }
}

#[test]
fn missing_lab_is_one_clear_line() {
    // `fastcrypt` alone in a directory, with nothing on PATH.
    let dir = Scratch::new("alone");
    let alone = dir.path("fastcrypt");
    std::fs::copy(env!("CARGO_BIN_EXE_fastcrypt"), &alone).unwrap();
    let o = run_copy(
        Command::new(&alone)
            .args(["speed", "--list"])
            .env("PATH", dir.path("empty")),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("fastcrypt: the speed lab is a program of its own, fastcrypt-speed"),
        "{e}"
    );
    assert!(e.contains("cargo build --release -p fastcrypt-cli"), "{e}");
    // The everyday commands do not need it.
    let o = run_copy(Command::new(&alone).arg("cpu"));
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Runs a program this test binary has just written. Another test's
/// thread may fork while the copy's file is still open for writing; until
/// that child execs, it holds the descriptor and exec fails with
/// ETXTBSY, so a busy file is retried.
fn run_copy(cmd: &mut Command) -> std::process::Output {
    for _ in 0..50 {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            r => return r.expect("run the copied fastcrypt"),
        }
    }
    panic!("the copied fastcrypt stayed busy (ETXTBSY) for a second");
}

/// The shared libraries an ELF program asks for (its DT_NEEDED entries),
/// as `ldd` lists them.
#[cfg(target_os = "linux")]
fn needed(program: &str) -> String {
    let o = Command::new("ldd")
        .arg(program)
        .output()
        .expect("ldd (libc-bin) is installed");
    assert!(o.status.success(), "ldd {program}: {}", stderr(&o));
    stdout(&o)
}

#[cfg(target_os = "linux")]
#[test]
fn fastcrypt_links_no_peer_library() {
    let ours = needed(env!("CARGO_BIN_EXE_fastcrypt"));
    assert!(
        !ours.contains("libcrypto") && !ours.contains("libssl"),
        "fastcrypt links:\n{ours}"
    );
    // The check itself sees libcrypto where it is (unless OpenSSL is
    // linked statically, the vendored-openssl feature).
    if !cfg!(feature = "vendored-openssl") {
        assert!(needed(SPEED).contains("libcrypto"));
    }
}
