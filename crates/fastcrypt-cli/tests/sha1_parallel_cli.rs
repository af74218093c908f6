//! `fastcrypt sha1` on many threads: whatever `-j` says, stdout, stderr
//! and the exit status are those of `-j 1` (one file after another,
//! streamed, the code path GNU compatibility was proved on), on a tree of
//! a few hundred files of every interesting size with missing files, a
//! directory, an unreadable file, odd names, standard input and the
//! collision test files mixed in; the same for `--check`; every
//! multi-buffer backend (`--lanes`) this CPU runs gives the same output;
//! and `--pieces` against piece digests computed here with OpenSSL.
#![allow(missing_docs)]

mod common;

use common::Scratch;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// What one run did.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Outcome {
    fn of(o: Output) -> Outcome {
        Outcome {
            code: o.status.code(),
            stdout: o.stdout,
            stderr: o.stderr,
        }
    }

    fn text(&self) -> String {
        format!(
            "exit {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code,
            String::from_utf8_lossy(&self.stdout),
            String::from_utf8_lossy(&self.stderr)
        )
    }
}

/// `fastcrypt sha1 ARGS` in `dir`, with `stdin` on standard input.
fn sha1_in(dir: &Path, args: &[OsString], stdin: &[u8]) -> Outcome {
    spawn(common::bin().arg("sha1"), dir, args, stdin)
}

/// [`sha1_in`] with standard error on the standard output pipe
/// (`2>&1`): the order of result lines and messages, which separate
/// pipes cannot show.
fn sha1_merged(dir: &Path, args: &[OsString], stdin: &[u8]) -> Outcome {
    let mut sh = std::process::Command::new("sh");
    sh.args(["-c", "exec \"$@\" 2>&1", "sh"])
        .arg(env!("CARGO_BIN_EXE_fastcrypt"))
        .arg("sha1");
    spawn(&mut sh, dir, args, stdin)
}

fn spawn(cmd: &mut std::process::Command, dir: &Path, args: &[OsString], stdin: &[u8]) -> Outcome {
    let mut child = cmd
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fastcrypt");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for fastcrypt");
    writer.join().unwrap();
    Outcome::of(out)
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

fn args(v: &[&str]) -> Vec<OsString> {
    v.iter().map(|s| os(s)).collect()
}

/// A small deterministic generator (xorshift64*), so that a failure can
/// be reproduced.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `len` bytes painted from `seed`.
fn paint(len: usize, seed: u64) -> Vec<u8> {
    (0..len as u64)
        .map(|i| ((i + seed * 7919) % 251) as u8)
        .collect()
}

fn sha1_hex(data: &[u8]) -> String {
    hex::encode(openssl::sha::sha1(data))
}

fn geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn collision_files() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fastcrypt/testdata/sha1dc")
}

/// Above the command's small-file limit (1 MiB): streamed, one file per
/// task, while the others are batched.
const SMALL_MAX: usize = 1 << 20;

/// A tree of mixed files in `d` and the arguments naming them, in a
/// shuffled order with the bad ones mixed in. Returns the arguments and,
/// per regular file name, its content.
fn build_tree(d: &Scratch) -> (Vec<OsString>, Vec<(OsString, Vec<u8>)>) {
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    let mut sizes: Vec<usize> = vec![
        0,
        1,
        55,
        56,
        63,
        64,
        65,
        119,
        120,
        127,
        128,
        1000,
        1024,
        4095,
        4096,
        65536,
        SMALL_MAX - 1,
        SMALL_MAX,
        SMALL_MAX + 1,
        3 * SMALL_MAX + 17,
    ];
    // Mostly a few KiB, as a source tree; some up to 200 KiB.
    for i in 0..300 {
        let top = if i % 10 == 0 { 200_000 } else { 12_000 };
        sizes.push(rng.below(top) as usize);
    }
    let mut files = Vec::new();
    for (i, &len) in sizes.iter().enumerate() {
        let name = os(&format!("f{i:03}-{len}"));
        let data = paint(len, i as u64);
        std::fs::write(d.path("").join(&name), &data).unwrap();
        files.push((name, data));
    }
    // Names that are escaped on output lines, or quoted in messages.
    for (i, raw) in [&b"back\\slash"[..], b"new\nline", b"sp ace", b"\xff\xfe"]
        .iter()
        .enumerate()
    {
        let name = OsStr::from_bytes(raw).to_os_string();
        let data = paint(100 + i, 1000 + i as u64);
        std::fs::write(d.path("").join(&name), &data).unwrap();
        files.push((name, data));
    }
    // The collision test files, under names of their own here.
    for f in std::fs::read_dir(collision_files()).unwrap() {
        let f = f.unwrap();
        let name = OsString::from(format!("coll-{}", f.file_name().to_string_lossy()));
        let data = std::fs::read(f.path()).unwrap();
        std::fs::write(d.path("").join(&name), &data).unwrap();
        files.push((name, data));
    }
    let mut names: Vec<OsString> = files.iter().map(|(n, _)| n.clone()).collect();
    // Shuffled (Fisher-Yates), so that large, small and bad inputs alternate.
    for i in (1..names.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        names.swap(i, j);
    }
    std::fs::create_dir(d.path("a-dir")).unwrap();
    let mut bad = vec![os("missing-1"), os("a-dir"), os("missing:2"), os("a-dir")];
    if geteuid() != 0 {
        // Root reads anything: the case exists only for other users.
        std::fs::write(d.path("unreadable"), b"secret").unwrap();
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o000);
        std::fs::set_permissions(d.path("unreadable"), mode).unwrap();
        bad.push(os("unreadable"));
    }
    for (k, b) in bad.into_iter().enumerate() {
        let at = (k * 83 + 5) % names.len();
        names.insert(at, b);
    }
    // Missing at the very start and the very end too.
    names.insert(0, os("missing-first"));
    names.push(os("missing-last"));
    (names, files)
}

/// Runs `args` with `-j 1` and with each of `jobs` (`default`: no
/// `-j`), and requires the same outcome, also with stdout and stderr on
/// one pipe; returns the sequential one.
fn same_for_all_jobs(dir: &Path, args: &[OsString], stdin: &[u8], jobs: &[&str]) -> Outcome {
    let with = |j: &str| {
        let mut a = match j {
            "default" => vec![],
            _ => vec![os("-j"), os(j)],
        };
        a.extend_from_slice(args);
        a
    };
    let want = sha1_in(dir, &with("1"), stdin);
    let want_merged = sha1_merged(dir, &with("1"), stdin);
    for &j in jobs {
        for (merged, want) in [(false, &want), (true, &want_merged)] {
            let got = if merged {
                sha1_merged(dir, &with(j), stdin)
            } else {
                sha1_in(dir, &with(j), stdin)
            };
            assert!(
                got == *want,
                "-j {j} differs from -j 1 for {args:?} (2>&1: {merged})\n=== -j 1\n{}\n=== -j {j}\n{}",
                want.text(),
                got.text()
            );
        }
    }
    want
}

#[test]
fn parallel_output_is_the_sequential_output() {
    let d = Scratch::new("tree");
    let (names, files) = build_tree(&d);
    let dir = d.path("");
    for flags in [
        &[][..],
        &["--no-detect"],
        &["--tag"],
        &["-z"],
        &["-b", "--no-detect"],
    ] {
        let mut a = args(flags);
        a.extend(names.iter().cloned());
        let want = same_for_all_jobs(&dir, &a, b"", &["2", "8", "default"]);
        assert_eq!(want.code, Some(1), "{}", want.text());
        if flags == ["--no-detect"] {
            // And the sequential run is right: each file's plain SHA-1.
            let out = String::from_utf8_lossy(&want.stdout).into_owned();
            for (name, data) in &files {
                let Some(shown) = name.to_str().filter(|n| !n.contains(['\\', '\n'])) else {
                    continue;
                };
                let line = format!("{}  {shown}\n", sha1_hex(data));
                assert!(out.contains(&line), "no {line:?} in\n{out}");
            }
        }
    }
    // Only good files: exit 0, and the same again.
    let good: Vec<OsString> = files
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| !n.to_string_lossy().starts_with("coll-"))
        .collect();
    let want = same_for_all_jobs(&dir, &good, b"", &["3"]);
    assert_eq!(want.code, Some(0), "{}", want.text());
    assert!(want.stderr.is_empty(), "{}", want.text());
}

#[test]
fn standard_input_is_read_in_its_turn() {
    let d = Scratch::new("stdin");
    let dir = d.path("");
    let big = paint(3 * SMALL_MAX, 9);
    std::fs::write(d.path("big"), &big).unwrap();
    for i in 0..40 {
        std::fs::write(d.path(&format!("s{i}")), paint(i * 37, i as u64)).unwrap();
    }
    let mut a = vec![os("s0"), os("-"), os("big")];
    a.extend((1..20).map(|i| os(&format!("s{i}"))));
    // A second `-` reads the rest: nothing (the pipe is at its end).
    a.push(os("-"));
    a.push(os("nope"));
    a.extend((20..40).map(|i| os(&format!("s{i}"))));
    let stdin = paint(200_000, 3);
    let want = same_for_all_jobs(&dir, &a, &stdin, &["2", "8"]);
    let out = String::from_utf8_lossy(&want.stdout);
    assert!(out.contains(&format!("{}  -\n", sha1_hex(&stdin))), "{out}");
    assert!(out.contains(&format!("{}  -\n", sha1_hex(b""))), "{out}");
    // Nothing but standard input, and no argument at all.
    same_for_all_jobs(&dir, &args(&["-", "-"]), b"abc", &["2"]);
    let none = same_for_all_jobs(&dir, &[], b"abc", &["2"]);
    assert_eq!(
        none.stdout,
        b"a9993e364706816aba3e25717850c26c9cd0d89d  -\n"
    );
}

#[test]
fn streams_others_may_read_are_read_in_their_turn() {
    let d = Scratch::new("streams");
    let dir = d.path("");
    for i in 0..30 {
        std::fs::write(d.path(&format!("s{i}")), paint(i * 101, i as u64)).unwrap();
    }
    // `/dev/stdin` is the pipe `-` reads: after `-` it is at its end, as
    // in a sequential run, whichever thread opened it.
    let mut a = vec![os("s0"), os("-")];
    a.extend((1..15).map(|i| os(&format!("s{i}"))));
    a.push(os("/dev/stdin"));
    a.extend((15..30).map(|i| os(&format!("s{i}"))));
    let stdin = paint(300_000, 11);
    let want = same_for_all_jobs(&dir, &a, &stdin, &["2", "8"]);
    let out = String::from_utf8_lossy(&want.stdout);
    assert!(
        out.contains(&format!("{}  /dev/stdin\n", sha1_hex(b""))),
        "{out}"
    );
    // A FIFO, fed by a writer here. One writer per run, joined after it:
    // a writer that reopened the FIFO while the last run still had it
    // open would feed that run twice.
    let fifo = d.path("fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let data = paint(150_000, 12);
    let mut a: Vec<OsString> = (0..10).map(|i| os(&format!("s{i}"))).collect();
    a.insert(4, os("fifo"));
    let run = |jobs: &str, merged: bool| {
        let writer = {
            let (fifo, data) = (fifo.clone(), data.clone());
            // Blocks until the run opens the FIFO for reading.
            std::thread::spawn(move || std::fs::write(&fifo, &data).unwrap())
        };
        let args = [&[os("-j"), os(jobs)][..], &a].concat();
        let got = if merged {
            sha1_merged(&dir, &args, b"")
        } else {
            sha1_in(&dir, &args, b"")
        };
        writer.join().unwrap();
        got
    };
    for merged in [false, true] {
        let want = run("1", merged);
        let out = String::from_utf8_lossy(&want.stdout);
        assert!(
            out.contains(&format!("{}  fifo\n", sha1_hex(&data))),
            "{out}"
        );
        for jobs in ["2", "8"] {
            let got = run(jobs, merged);
            assert!(got == want, "-j {jobs}\n{}\n{}", want.text(), got.text());
        }
    }
}

#[test]
fn check_is_the_same_on_every_thread_count() {
    let d = Scratch::new("check");
    let (_, files) = build_tree(&d);
    let dir = d.path("");
    // A list of every good file (and the collision files, `*coll*`
    // lines), made by the sequential run.
    let good: Vec<OsString> = files.iter().map(|(n, _)| n.clone()).collect();
    let list = sha1_in(
        &dir,
        &[os("-j"), os("1")]
            .into_iter()
            .chain(good)
            .collect::<Vec<_>>(),
        b"",
    );
    assert_eq!(list.code, Some(1), "{}", list.text());
    let mut text = list.stdout.clone();
    // Malformed lines, a comment, entries for missing files and the
    // directory, and the unusual names.
    text.extend_from_slice(b"not a checksum line\n# a comment\n");
    text.extend_from_slice(format!("{}  missing-entry\n", sha1_hex(b"")).as_bytes());
    text.extend_from_slice(format!("{}  a-dir\n", sha1_hex(b"")).as_bytes());
    std::fs::write(d.path("list.sha1"), &text).unwrap();
    // Then some files change: FAILED lines.
    for (name, _) in files.iter().step_by(37) {
        std::fs::write(dir.join(name), b"changed").unwrap();
    }
    let bsd = sha1_in(
        &dir,
        &[
            os("-j"),
            os("1"),
            os("--tag"),
            os("--no-detect"),
            os("f000-0"),
            os("f001-1"),
        ],
        b"",
    );
    std::fs::write(d.path("bsd.sha1"), &bsd.stdout).unwrap();
    std::fs::write(d.path("bad.sha1"), b"nothing here\n").unwrap();
    for flags in [
        &[][..],
        &["--no-detect"],
        &["--quiet"],
        &["--status"],
        &["-w"],
        &["--strict"],
        &["--ignore-missing"],
    ] {
        let mut a = vec![os("-c")];
        a.extend(args(flags));
        a.extend(args(&[
            "list.sha1",
            "missing.sha1",
            "bsd.sha1",
            "bad.sha1",
            "list.sha1",
        ]));
        let want = same_for_all_jobs(&dir, &a, b"", &["2", "8"]);
        assert_eq!(want.code, Some(1), "{}", want.text());
    }
    // A list on standard input, among list files.
    let mut a = args(&["-c", "bsd.sha1", "-", "list.sha1"]);
    a.insert(1, os("-w"));
    same_for_all_jobs(&dir, &a, &text, &["2"]);
    // A list naming `-`: standard input, hashed in its turn.
    let mut dash = bsd.stdout.clone();
    dash.extend_from_slice(format!("{}  -\n", sha1_hex(b"abc")).as_bytes());
    dash.extend_from_slice(&bsd.stdout);
    std::fs::write(d.path("dash.sha1"), &dash).unwrap();
    let want = same_for_all_jobs(&dir, &args(&["-c", "dash.sha1"]), b"abc", &["2", "8"]);
    assert!(
        String::from_utf8_lossy(&want.stdout).contains("-: OK\n"),
        "{}",
        want.text()
    );
}

#[test]
fn every_lanes_backend_gives_the_same_output() {
    let d = Scratch::new("lanes");
    let (names, _) = build_tree(&d);
    let dir = d.path("");
    for detect in [&[][..], &["--no-detect"]] {
        let mut a = args(detect);
        a.extend(names.iter().cloned());
        let want = sha1_in(&dir, &[&[os("-j"), os("1")][..], &a].concat(), b"");
        for b in fastcrypt::sha1::many::Backend::available() {
            let got = sha1_in(
                &dir,
                &[&[os("-j"), os("2"), os("--lanes"), os(b.name())][..], &a].concat(),
                b"",
            );
            assert!(got == want, "--lanes {b}\n{}\n{}", want.text(), got.text());
        }
        // --backend alone: small files one stream each, on it.
        for b in fastcrypt::sha1::Backend::available() {
            let got = sha1_in(
                &dir,
                &[&[os("-j"), os("2"), os("--backend"), os(b.name())][..], &a].concat(),
                b"",
            );
            assert!(
                got == want,
                "--backend {b}\n{}\n{}",
                want.text(),
                got.text()
            );
        }
    }
    for b in fastcrypt::sha1::many::Backend::ALL {
        if !b.is_available() {
            eprintln!("lanes/{b}: skipped, this CPU lacks {}", b.needs());
            let got = sha1_in(&dir, &args(&["--lanes", b.name(), "f000-0"]), b"");
            assert_eq!(got.code, Some(1));
            assert!(
                String::from_utf8_lossy(&got.stderr).contains("not available"),
                "{}",
                got.text()
            );
        }
    }
}

/// `OFFSET HEX` lines for `data` in `size`-byte pieces, computed here.
fn reference_pieces(data: &[u8], size: usize) -> String {
    data.chunks(size)
        .enumerate()
        .map(|(i, p)| format!("{} {}\n", i * size, sha1_hex(p)))
        .collect()
}

#[test]
fn pieces_match_a_reference_for_every_remainder() {
    let d = Scratch::new("pieces");
    let dir = d.path("");
    let cases: &[(usize, &[usize], &[usize])] = &[
        (1, &[0, 1, 2, 100], &[0]),
        // A chunk of the command's holds at most 65536 pieces: 65539 take
        // two.
        (64, &[0, 1, 3, 65539], &[0, 1, 55, 56, 63]),
        (1000, &[0, 1, 5], &[0, 1, 64, 500, 999]),
        // One thread's chunk is 32 pieces of 256 KiB: 33 take two.
        (256 << 10, &[0, 1, 3, 33], &[0, 1, 65, 262_143]),
    ];
    let mut n = 0;
    for &(size, counts, rems) in cases {
        for &k in counts {
            for &r in rems {
                if k == 0 && r == 0 {
                    continue;
                }
                let data = paint(k * size + r, n);
                let name = format!("p{n}");
                n += 1;
                std::fs::write(d.path(&name), &data).unwrap();
                let want = reference_pieces(&data, size);
                for extra in [&["-j", "1"][..], &["-j", "3"], &["--backend", "portable"]] {
                    let mut a = args(&["--pieces", &size.to_string()]);
                    a.extend(args(extra));
                    a.push(os(&name));
                    let got = sha1_in(&dir, &a, b"");
                    assert_eq!(got.code, Some(0), "{a:?}: {}", got.text());
                    assert!(
                        got.stdout == want.as_bytes(),
                        "{a:?}: {} bytes of {size}-byte pieces\n{}",
                        data.len(),
                        got.text()
                    );
                    assert!(got.stderr.is_empty(), "{}", got.text());
                }
            }
        }
    }
    // Suffixes; standard input; -z; an empty file has no pieces.
    let data = paint(5000, 77);
    std::fs::write(d.path("five"), &data).unwrap();
    let want = reference_pieces(&data, 1024);
    for spelling in ["1024", "1K", "1k", "1KiB", "1kib"] {
        let got = sha1_in(&dir, &args(&["--pieces", spelling, "five"]), b"");
        assert_eq!(got.stdout, want.as_bytes(), "{spelling}");
    }
    let got = sha1_in(&dir, &args(&["--pieces", "1K"]), &data);
    assert_eq!(got.stdout, want.as_bytes());
    let got = sha1_in(&dir, &args(&["--pieces", "1K", "-"]), &data);
    assert_eq!(got.stdout, want.as_bytes());
    let got = sha1_in(&dir, &args(&["--pieces", "1K", "-z", "five"]), b"");
    assert_eq!(got.stdout, want.replace('\n', "\0").as_bytes());
    std::fs::write(d.path("empty"), b"").unwrap();
    let got = sha1_in(&dir, &args(&["--pieces", "256K", "empty"]), b"");
    assert_eq!(
        (got.code, got.stdout, got.stderr),
        (Some(0), vec![], vec![])
    );
    // Every multi-buffer backend this CPU runs.
    let data = paint(40 * 1000 + 7, 5);
    std::fs::write(d.path("forty"), &data).unwrap();
    let want = reference_pieces(&data, 1000);
    for b in fastcrypt::sha1::many::Backend::available() {
        let got = sha1_in(
            &dir,
            &args(&["--pieces", "1000", "--lanes", b.name(), "forty"]),
            b"",
        );
        assert_eq!(got.stdout, want.as_bytes(), "--lanes {b}");
    }
    // No detection for pieces: the collision files' plain SHA-1.
    let shattered = std::fs::read(collision_files().join("shattered-1.pdf")).unwrap();
    let got = sha1_in(
        &collision_files(),
        &args(&["--pieces", "1M", "shattered-1.pdf"]),
        b"",
    );
    assert_eq!(got.code, Some(0));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        format!("0 {}\n", sha1_hex(&shattered))
    );
}

#[test]
fn pieces_larger_than_a_chunk_are_streamed() {
    let d = Scratch::new("bigpieces");
    let size = (64 << 20) + 1;
    let data = paint(size + 1000, 1);
    std::fs::write(d.path("big"), &data).unwrap();
    let got = sha1_in(
        &d.path(""),
        &args(&["--pieces", &size.to_string(), "big"]),
        b"",
    );
    assert_eq!(got.code, Some(0), "{}", got.text());
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        reference_pieces(&data, size)
    );
}

#[test]
fn pieces_errors() {
    let d = Scratch::new("pieceerr");
    let dir = d.path("");
    std::fs::write(d.path("f"), b"x").unwrap();
    std::fs::create_dir(d.path("sub")).unwrap();
    for (a, want) in [
        (&["--pieces", "0", "f"][..], "piece size '0' is 0"),
        (&["--pieces", "0K", "f"], "piece size '0K' is 0"),
        (&["--pieces", "12Q", "f"], "invalid piece size '12Q'"),
        (&["--pieces", "K", "f"], "invalid piece size 'K'"),
        (&["--pieces=-5", "f"], "invalid piece size '-5'"),
        (&["--pieces", "1.5M", "f"], "invalid piece size '1.5M'"),
        (&["--pieces", "18446744073709551616", "f"], "is too large"),
        (&["--pieces", "99999999999G", "f"], "is too large"),
        (
            &["--pieces", "1K", "f", "f"],
            "the --pieces option takes one FILE",
        ),
        (
            &["--pieces", "1K", "-c", "f"],
            "meaningless when verifying checksums",
        ),
        (
            &["--pieces", "1K", "--tag", "f"],
            "meaningless with --pieces",
        ),
        (
            &["--pieces", "1K", "nope"],
            "fastcrypt: nope: No such file or directory",
        ),
        (&["--pieces", "1K", "sub"], "fastcrypt: sub: Is a directory"),
        (&["-j", "0", "f"], "-j/--jobs needs at least 1 thread"),
        (&["-j", "many", "f"], "invalid thread count 'many'"),
        (&["-j", "5000", "f"], "-j/--jobs takes at most 1024 threads"),
        (
            &["--lanes", "sha3", "f"],
            "unknown sha1-many backend `sha3`",
        ),
    ] {
        let got = sha1_in(&dir, &args(a), b"");
        assert_eq!(got.code, Some(1), "{a:?}: {}", got.text());
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(err.contains(want), "{a:?}: {err}");
        assert!(err.lines().count() <= 2, "{a:?}: {err}");
    }
}

#[test]
fn help_documents_the_new_options() {
    let o = common::fastcrypt(&["sha1", "--help"]);
    let help = common::stdout(&o);
    for want in [
        "--jobs",
        "--lanes",
        "--pieces",
        "--no-progress",
        "OFFSET HEX",
        "1 MiB",
        "collision detection does not apply",
    ] {
        assert!(help.contains(want), "--help lacks {want:?}:\n{help}");
    }
    // --no-progress is accepted, and with stderr a pipe nothing but the
    // result is written.
    let d = Scratch::new("noprogress");
    std::fs::write(d.path("f"), b"abc").unwrap();
    let got = sha1_in(&d.path(""), &args(&["--no-progress", "f", "f"]), b"");
    assert_eq!(got.code, Some(0));
    assert!(got.stderr.is_empty());
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A FIFO named twice is opened in its turn each time, as GNU does, so
/// each open meets its own writer: `printf one > ff; printf two > ff`
/// hashes as "one" and then "two". Workers opened every operand ahead of
/// its turn, so both opens met the first writer: "one" read as the first
/// input, nothing as the second (or a hang), at every `-j` but 1.
#[test]
fn a_fifo_named_twice_is_opened_in_its_turn() {
    let dir = Scratch::new("fifo-twice");
    mkfifo(&dir.path("ff"));
    let want = "fe05bcdcdc4928012781a5f1a2a77cbb5398e106  ff\n\
                ad782ecdac770fc6eb9a62e44f90873fb97fb26b  ff\n";
    for jobs in ["1", "2", "4"] {
        // The pause lets the first reader see its writer's end.
        let mut writer = std::process::Command::new("sh")
            .args(["-c", "printf one > ff; sleep 0.5; printf two > ff"])
            .current_dir(dir.path(""))
            .spawn()
            .expect("spawn sh");
        let child = common::bin()
            .args(["sha1", "-j", jobs, "ff", "ff"])
            .current_dir(dir.path(""))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn fastcrypt");
        let out = common::finish_within(child, 20, &format!("sha1 -j {jobs} ff ff"));
        // Blocked on its second open if the reader never made one.
        let _ = writer.kill();
        let _ = writer.wait();
        let got = Outcome::of(out);
        assert_eq!(got.code, Some(0), "-j {jobs}: {}", got.text());
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "-j {jobs}");
    }
}

/// `--check` of a list on a FIFO (as `-c <(...)` gives) with the progress
/// bar on: the list is read by the checker alone. The bar's sizing thread
/// also opened every list to add up its files' sizes and took lines from
/// the FIFO, so about half the files went unchecked, with exit status 0.
/// The bar runs only when stderr is a terminal: script(1) gives it one.
#[test]
fn a_check_list_on_a_fifo_is_read_by_the_checker_alone() {
    let dir = Scratch::new("check-fifo");
    let mut list = String::new();
    for i in 0..1000 {
        let name = format!("f{i}");
        std::fs::write(dir.path(&name), format!("{i}\n")).unwrap();
        list.push_str(&format!(
            "{}  {name}\n",
            sha1_hex(format!("{i}\n").as_bytes())
        ));
    }
    std::fs::write(dir.path("list"), list).unwrap();
    mkfifo(&dir.path("L"));
    let mut feeder = std::process::Command::new("sh")
        .args(["-c", "cat list > L"])
        .current_dir(dir.path(""))
        .spawn()
        .expect("spawn sh");
    let cmd = format!("exec {} sha1 -c L > out", env!("CARGO_BIN_EXE_fastcrypt"));
    let child = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(dir.path(""))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1), from util-linux, runs the command on a terminal");
    let out = common::finish_within(child, 60, "script -c 'fastcrypt sha1 -c L'");
    let _ = feeder.kill();
    let _ = feeder.wait();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let checked = std::fs::read_to_string(dir.path("out")).unwrap();
    assert_eq!(
        checked.lines().filter(|l| l.ends_with(": OK")).count(),
        1000,
        "{checked}"
    );
}
