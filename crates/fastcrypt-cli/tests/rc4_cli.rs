//! `fastcrypt rc4`, tested by running the built binary: known answers
//! (RFC 6229), files and pipes, RC4-drop, every backend, the temporary
//! output file, refusals with one-line errors, and 1 GiB through a pipe in
//! flat memory. The output kinds, same-file rules, signals, limits and
//! standard-output errors are in `rc4_output.rs`.

use fastcrypt::rc4::{Backend, Rc4};
mod common;

use common::{bin, run, Scratch};
use std::io::Read;
use std::path::Path;
use std::process::{Output, Stdio};

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// Asserts a failed run with exactly one line on stderr, naming `what`.
fn assert_one_line_error(out: &Output, what: &str) {
    assert!(!out.status.success(), "expected failure for {what}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().count(),
        1,
        "one-line error for {what}, got {err:?}"
    );
    assert!(err.starts_with("fastcrypt: "), "{err:?}");
    assert!(
        err.contains(what),
        "error for {what} should say so: {err:?}"
    );
    assert!(out.stdout.is_empty(), "no output on failure");
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// RFC 6229, 40-bit key 0x0102030405: keystream at offsets 0, 16 and 240.
const RFC_KEY: &str = "0102030405";
const RFC_0: &str = "b2396305f03dc027ccc3524a0a1118a8";
const RFC_16: &str = "6982944f18fc82d589c403a47a0d0919";
const RFC_240: &str = "28cb1132c96ce286421dcaadb8b69eae";

#[test]
fn known_answer_from_stdin() {
    let out = run(&["rc4", "--key", RFC_KEY], &[0u8; 32]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, unhex(&format!("{RFC_0}{RFC_16}")));
}

#[test]
fn known_answer_on_every_backend() {
    for b in Backend::ALL {
        let out = run(
            &["rc4", "--key", RFC_KEY, "--backend", b.name()],
            &[0u8; 32],
        );
        if b.is_available() {
            assert!(
                out.status.success(),
                "{b}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                out.stdout,
                unhex(&format!("{RFC_0}{RFC_16}")),
                "backend {b}"
            );
        } else {
            assert_one_line_error(&out, b.name());
        }
    }
    assert_one_line_error(
        &run(&["rc4", "--key", RFC_KEY, "--backend", "nope"], b""),
        "nope",
    );
}

#[test]
fn drop_n() {
    let out = run(&["rc4", "--key", RFC_KEY, "--drop", "240"], &[0u8; 16]);
    assert!(out.status.success());
    assert_eq!(out.stdout, unhex(RFC_240));
    // Against the library for a drop that is not a multiple of anything.
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let out = run(&["rc4", "--key", "6b6579", "--drop", "1027"], &data);
    let mut want = data.clone();
    Rc4::new_drop(b"key", 1027)
        .unwrap()
        .apply_keystream(&mut want);
    assert_eq!(out.stdout, want);
}

#[test]
fn key_file_holds_raw_bytes() {
    let dir = Scratch::new("keyfile");
    let key = dir.path("key");
    std::fs::write(&key, [1u8, 2, 3, 4, 5]).unwrap();
    let out = run(&["rc4", "--key-file", path_str(&key)], &[0u8; 16]);
    assert!(out.status.success());
    assert_eq!(out.stdout, unhex(RFC_0));
    // Wrong lengths in a key file.
    std::fs::write(&key, []).unwrap();
    assert_one_line_error(
        &run(&["rc4", "--key-file", path_str(&key)], b"x"),
        "0 bytes",
    );
    std::fs::write(&key, [7u8; 257]).unwrap();
    assert_one_line_error(
        &run(&["rc4", "--key-file", path_str(&key)], b"x"),
        "257 bytes",
    );
    std::fs::write(&key, [7u8; 256]).unwrap();
    assert!(run(&["rc4", "--key-file", path_str(&key)], b"x")
        .status
        .success());
    let missing = dir.path("missing");
    assert_one_line_error(
        &run(&["rc4", "--key-file", path_str(&missing)], b"x"),
        "missing",
    );
}

#[test]
fn bad_keys_are_refused() {
    assert_one_line_error(&run(&["rc4", "--key", "01020"], b"x"), "odd number");
    assert_one_line_error(&run(&["rc4", "--key", "01zz"], b"x"), "hex digit");
    assert_one_line_error(&run(&["rc4", "--key", ""], b"x"), "0 bytes");
    let long = "ab".repeat(257);
    assert_one_line_error(&run(&["rc4", "--key", &long], b"x"), "257 bytes");
    assert!(run(&["rc4", "--key", &"ab".repeat(256)], b"x")
        .status
        .success());
    // Neither or both key options: clap's usage error, non-zero.
    assert!(!run(&["rc4"], b"x").status.success());
    assert!(
        !run(&["rc4", "--key", "01", "--key-file", "/dev/null"], b"x")
            .status
            .success()
    );
}

#[test]
fn files_round_trip_through_a_temporary() {
    let dir = Scratch::new("files");
    let (plain, enc, dec) = (dir.path("plain"), dir.path("enc"), dir.path("dec"));
    let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&plain, &data).unwrap();
    std::fs::write(&enc, b"an older version, to be replaced").unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    };
    ok(&[
        "rc4",
        "--key",
        "00112233",
        "-i",
        path_str(&plain),
        "-o",
        path_str(&enc),
    ]);
    ok(&[
        "rc4",
        "--key",
        "00112233",
        "-i",
        path_str(&enc),
        "-o",
        path_str(&dec),
    ]);
    let mut want = data.clone();
    Rc4::new(&[0x00, 0x11, 0x22, 0x33])
        .unwrap()
        .apply_keystream(&mut want);
    assert_eq!(std::fs::read(&enc).unwrap(), want);
    assert_eq!(std::fs::read(&dec).unwrap(), data);
    assert_eq!(
        dir.listing(),
        ["dec", "enc", "plain"],
        "no temporary file left"
    );
}

#[test]
fn failures_leave_the_output_alone() {
    let dir = Scratch::new("fail");
    let out_file = dir.path("out");
    std::fs::write(&out_file, b"precious").unwrap();
    let o = path_str(&out_file);
    // Unreadable input (missing): refused before anything is created.
    let missing = dir.path("nope");
    assert_one_line_error(
        &run(
            &["rc4", "--key", "01", "-i", path_str(&missing), "-o", o],
            b"",
        ),
        "nope",
    );
    // Input that opens but cannot be read (a directory): fails mid-stream.
    let sub = dir.path("sub");
    std::fs::create_dir(&sub).unwrap();
    assert_one_line_error(
        &run(&["rc4", "--key", "01", "-i", path_str(&sub), "-o", o], b""),
        "sub",
    );
    assert_eq!(std::fs::read(&out_file).unwrap(), b"precious");
    assert_eq!(dir.listing(), ["out", "sub"], "no temporary file left");
    // An output directory that does not exist.
    let nowhere = dir.path("no/such/dir/out");
    assert_one_line_error(
        &run(&["rc4", "--key", "01", "-o", path_str(&nowhere)], b"abc"),
        "no/such/dir",
    );
}

#[test]
fn same_file_for_input_and_output_is_refused() {
    let dir = Scratch::new("same");
    let f = dir.path("data");
    std::fs::write(&f, b"do not destroy me").unwrap();
    let p = path_str(&f);
    assert_one_line_error(
        &run(&["rc4", "--key", "01", "-i", p, "-o", p], b""),
        "same file",
    );
    // Another spelling of the same path, and a hard link.
    let other = path_str(&dir.path("./data")).to_string();
    assert_one_line_error(
        &run(&["rc4", "--key", "01", "-i", p, "-o", &other], b""),
        "same file",
    );
    let link = dir.path("link");
    std::fs::hard_link(&f, &link).unwrap();
    assert_one_line_error(
        &run(&["rc4", "--key", "01", "-i", path_str(&link), "-o", p], b""),
        "same file",
    );
    // Standard input redirected from the output file.
    let out = bin()
        .args(["rc4", "--key", "01", "-o", p])
        .stdin(std::fs::File::open(&f).unwrap())
        .output()
        .unwrap();
    assert_one_line_error(&out, "same file");
    assert_eq!(std::fs::read(&f).unwrap(), b"do not destroy me");
    assert_eq!(dir.listing(), ["data", "link"]);
}

/// Peak resident set (VmHWM) of a running process, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// 1 GiB of zeros through a pipe: the output is the keystream (checked
/// against the library as it streams), and the peak RSS of the process,
/// read from /proc while it runs, stays where it was after the first few
/// MiB: the tool never buffers the data.
#[test]
#[cfg(target_os = "linux")]
fn one_gib_through_a_pipe_in_flat_memory() {
    const TOTAL: u64 = 1 << 30;
    const STEP: usize = 1 << 20;
    let mut child = bin()
        .args(["rc4", "--key", "fa57c0de", "--drop", "1024"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fastcrypt");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut zeros = std::fs::File::open("/dev/zero").unwrap().take(TOTAL);
        std::io::copy(&mut zeros, &mut stdin).unwrap()
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut want = Rc4::new_drop(&[0xfa, 0x57, 0xc0, 0xde], 1024).unwrap();
    let (mut got, mut ks) = (vec![0u8; STEP], vec![0u8; STEP]);
    let mut seen = 0u64;
    let mut early_hwm = None;
    let mut late_hwm = 0;
    while seen < TOTAL {
        let n = (TOTAL - seen).min(STEP as u64) as usize;
        stdout.read_exact(&mut got[..n]).expect("read the output");
        want.write_keystream(&mut ks[..n]);
        assert!(
            got[..n] == ks[..n],
            "output differs from the keystream in MiB {}",
            seen >> 20
        );
        seen += n as u64;
        // The process is alive until it has written its last byte.
        if let Some(h) = vm_hwm_kib(pid) {
            if seen >= 16 << 20 && early_hwm.is_none() {
                early_hwm = Some(h);
            }
            late_hwm = h;
        }
    }
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "more output than input");
    assert_eq!(writer.join().unwrap(), TOTAL);
    let status = child.wait().unwrap();
    assert!(status.success());
    let early = early_hwm.expect("VmHWM readable from /proc while the process runs");
    assert!(late_hwm > 0);
    // Flat: no growth after the first 16 MiB beyond noise, and small overall.
    assert!(
        late_hwm <= early + 1024,
        "peak RSS grew from {early} KiB to {late_hwm} KiB while streaming"
    );
    assert!(
        late_hwm < 32 * 1024,
        "peak RSS {late_hwm} KiB for a 64 KiB buffer"
    );
}
