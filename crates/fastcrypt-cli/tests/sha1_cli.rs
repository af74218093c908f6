//! `fastcrypt sha1`, run as a user would, against `sha1sum`'s format.
#![allow(missing_docs)]

mod common;

use common::Scratch;

fn run(args: &[&str], stdin: &[u8]) -> (bool, String, String) {
    common::text(&common::run(args, stdin))
}

#[test]
fn hashes_stdin_and_files_like_sha1sum() {
    let (ok, out, _) = run(&["sha1"], b"abc");
    assert!(ok);
    assert_eq!(out, "a9993e364706816aba3e25717850c26c9cd0d89d  -\n");
    let d = Scratch::new("files");
    let a = d.path("a.txt");
    let big = d.path("big.bin");
    std::fs::write(&a, b"").unwrap();
    // 3 MiB + 7: several reads, an odd tail.
    let data: Vec<u8> = (0..(3 << 20) + 7).map(|i: u32| (i % 251) as u8).collect();
    std::fs::write(&big, &data).unwrap();
    let want_big = hex::encode(openssl::sha::sha1(&data));
    let (ok, out, err) = run(&["sha1", a.to_str().unwrap(), big.to_str().unwrap()], b"");
    assert!(ok, "{err}");
    assert_eq!(
        out,
        format!(
            "da39a3ee5e6b4b0d3255bfef95601890afd80709  {}\n{want_big}  {}\n",
            a.display(),
            big.display()
        )
    );
    // Every backend this CPU runs agrees.
    for b in fastcrypt::sha1::Backend::available() {
        let (ok, out2, err) = run(&["sha1", "--backend", b.name(), big.to_str().unwrap()], b"");
        assert!(ok, "{b}: {err}");
        assert!(out2.starts_with(&want_big), "{b}: {out2}");
    }
    // --check on our own output; then a corrupted file fails.
    let list = d.path("list.sha1");
    std::fs::write(&list, &out).unwrap();
    let (ok, out, _) = run(&["sha1", "--check", list.to_str().unwrap()], b"");
    assert!(ok);
    assert_eq!(out.matches(": OK").count(), 2, "{out}");
    std::fs::write(&a, b"changed").unwrap();
    let (ok, out, err) = run(&["sha1", "-c", list.to_str().unwrap()], b"");
    assert!(!ok);
    assert!(out.contains(&format!("{}: FAILED", a.display())), "{out}");
    // GNU's summary wording (it was fastcrypt's own "did not match").
    assert!(
        err.contains("WARNING: 1 computed checksum did NOT match"),
        "{err}"
    );
}

/// `sha1sum --version` works, so scripts that probe for the tool with it
/// must not be refused.
#[test]
fn version_is_printed_as_sha1sum_prints_its_own() {
    for flag in ["--version", "--vers"] {
        let o = common::fastcrypt(&["sha1", flag]);
        assert!(o.status.success(), "{flag}: {o:?}");
        assert_eq!(
            common::stdout(&o),
            format!("fastcrypt-sha1 {}\n", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(common::stderr(&o), "");
    }
}

/// `--version` and `--help` that cannot be written fail, as sha1sum's do
/// (`sha1sum --version >/dev/full`: a write error, status 1).
#[cfg(target_os = "linux")]
#[test]
fn version_and_help_report_write_errors() {
    for args in [
        &["sha1", "--version"][..],
        &["sha1", "--help"],
        &["--help"],
        &["rc4", "-h"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = common::bin().args(args).stdout(full).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(
            common::stderr(&o),
            "fastcrypt: write error: No space left on device\n",
            "{args:?}"
        );
    }
}

#[test]
fn errors_are_one_line_and_nonzero() {
    let (ok, _, err) = run(&["sha1", "/nonexistent/file"], b"");
    assert!(!ok);
    assert!(
        err.contains("/nonexistent/file") && err.lines().count() <= 2,
        "{err}"
    );
    let (ok, _, err) = run(&["sha1", "--backend", "sha3"], b"");
    assert!(!ok);
    assert!(
        err.contains("unknown sha1 backend") && err.contains("shani"),
        "{err}"
    );
    let d = Scratch::new("bad");
    let list = d.path("bad.sha1");
    std::fs::write(&list, "not a digest line\n").unwrap();
    let (ok, _, err) = run(&["sha1", "--check", list.to_str().unwrap()], b"");
    assert!(!ok);
    // GNU's message for a list without one valid line (fastcrypt used to
    // stop at the first bad line, naming it as `bad.sha1:1:`).
    assert!(
        err.contains("bad.sha1: no properly formatted checksum lines found"),
        "{err}"
    );
}
