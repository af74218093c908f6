//! `fastcrypt sha1` with collision detection, its default: the published
//! SHA-1 collisions (SHAttered, SHAMBLES) and the reference library's
//! reduced-round test file, in every output mode and in `--check`, with
//! the digests of crates/fastcrypt/testdata/SOURCES.md. Where Debian's
//! `sha1cdsum` is installed, one test also compares our lines with its.
#![allow(missing_docs)]

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SHATTERED_1: &str = "shattered-1.pdf";
const SHATTERED_2: &str = "shattered-2.pdf";
const MBLES_1: &str = "sha-mbles-1.bin";
const MBLES_2: &str = "sha-mbles-2.bin";
const REDUCED: &str = "sha1_reducedsha_coll.bin";

/// The five files, in the order the tests name them.
const ALL: [&str; 5] = [SHATTERED_1, SHATTERED_2, MBLES_1, MBLES_2, REDUCED];

/// Plain SHA-1 (`sha1sum`), per file of [`ALL`].
const PLAIN: [&str; 5] = [
    "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
    "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
    "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
    "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
    "a56374e1cf4c3746499bc7c0acb39498ad2ee185",
];

/// The safe hash with the default detector (the reduced-round file has
/// no full collision: its plain SHA-1).
const SAFE: [&str; 5] = [
    "16e96b70000dd1e7c85b8368ee197754400e58ec",
    "e1761773e6a35916d99f891b77663e6405313587",
    "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14",
    "9ed5d77a4f48be1dbf3e9e15650733eb850897f2",
    "a56374e1cf4c3746499bc7c0acb39498ad2ee185",
];

/// The safe hash with reduced-round detection on.
const SAFE_REDUCED: [&str; 5] = [
    "d3a1d09969c3b57113fd17b23e01dd3de74a99bb",
    "92246b0b718f4c704d37bb025717cbc66babf102",
    "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14",
    "9ed5d77a4f48be1dbf3e9e15650733eb850897f2",
    "dd39885a2a5d8f59030b451e00cb45da9f9d3828",
];

/// The reason for each attack file of [`ALL`] (the detector's first
/// block), default detector.
const REASON: [&str; 4] = [
    "SHA-1 collision attack in the block at byte 256 (disturbance vector II(52,0))",
    "SHA-1 collision attack in the block at byte 256 (disturbance vector II(52,0))",
    "SHA-1 collision attack in the block at byte 576 (disturbance vector II(52,0))",
    "SHA-1 collision attack in the block at byte 576 (disturbance vector II(52,0))",
];

const SAFE_NOTE: &str = "; the digest printed is the safe hash";

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fastcrypt/testdata/sha1dc")
}

/// Runs `fastcrypt` in `dir` with `args`, standard input from `stdin`
/// (a file) or empty.
fn run_in(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    common::bin()
        .args(args)
        .current_dir(dir)
        .stdin(input)
        .output()
        .expect("run fastcrypt")
}

/// `sha1` in the test data directory: `(exit code, stdout, stderr)`.
fn sha1(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["sha1"];
    all.extend_from_slice(args);
    outcome(&run_in(&testdata(), &all, None))
}

fn outcome(o: &Output) -> (i32, String, String) {
    (
        o.status.code().expect("exit code"),
        common::stdout(o),
        common::stderr(o),
    )
}

/// `fastcrypt: NAME: REASON` lines.
fn reasons(lines: &[(&str, &str)], note: &str) -> String {
    lines
        .iter()
        .map(|(n, r)| format!("fastcrypt: {n}: {r}{note}\n"))
        .collect()
}

/// The four attack files' reasons, as hashing prints them.
fn attack_reasons() -> String {
    let pairs: Vec<(&str, &str)> = ALL[..4].iter().copied().zip(REASON).collect();
    reasons(&pairs, SAFE_NOTE)
}

#[test]
fn attacks_are_marked_reported_and_fail() {
    let (code, out, err) = sha1(&ALL);
    let want = format!(
        "{} *coll* {SHATTERED_1}\n{} *coll* {SHATTERED_2}\n{} *coll* {MBLES_1}\n\
         {} *coll* {MBLES_2}\n{}  {REDUCED}\n",
        SAFE[0], SAFE[1], SAFE[2], SAFE[3], SAFE[4]
    );
    assert_eq!(out, want);
    assert_eq!(err, attack_reasons());
    assert_eq!(code, 1);
    // The mark replaces the binary separator too; other lines keep `*`.
    let (code, out, _) = sha1(&["-b", SHATTERED_1, REDUCED]);
    assert_eq!(
        out,
        format!("{} *coll* {SHATTERED_1}\n{} *{REDUCED}\n", SAFE[0], SAFE[4])
    );
    assert_eq!(code, 1);
    // A file without an attack alone: plain SHA-1, success.
    let (code, out, err) = sha1(&[REDUCED]);
    assert_eq!(
        (code, out, err),
        (0, format!("{}  {REDUCED}\n", PLAIN[4]), String::new())
    );
}

#[test]
fn every_backend_finds_the_attack() {
    for b in fastcrypt::sha1::Backend::available() {
        let (code, out, err) = sha1(&["--backend", b.name(), SHATTERED_2, MBLES_1]);
        assert_eq!(
            out,
            format!(
                "{} *coll* {SHATTERED_2}\n{} *coll* {MBLES_1}\n",
                SAFE[1], SAFE[2]
            ),
            "{b}"
        );
        assert_eq!(err.lines().count(), 2, "{b}: {err}");
        assert_eq!(code, 1, "{b}");
        let (code, out, _) = sha1(&["--backend", b.name(), "--no-detect", SHATTERED_2]);
        assert_eq!(
            (code, out),
            (0, format!("{}  {SHATTERED_2}\n", PLAIN[1])),
            "{b}"
        );
    }
}

#[test]
fn mixed_with_normal_and_missing_files_nothing_is_lost() {
    let d = Scratch::new("mixed");
    std::fs::copy(testdata().join(SHATTERED_1), d.path(SHATTERED_1)).unwrap();
    std::fs::write(d.path("abc.txt"), b"abc").unwrap();
    let o = run_in(
        &d.path(""),
        &["sha1", "abc.txt", "missing.txt", SHATTERED_1, "abc.txt"],
        None,
    );
    let (code, out, err) = outcome(&o);
    let abc = "a9993e364706816aba3e25717850c26c9cd0d89d";
    assert_eq!(
        out,
        format!(
            "{abc}  abc.txt\n{} *coll* {SHATTERED_1}\n{abc}  abc.txt\n",
            SAFE[0]
        )
    );
    assert_eq!(
        err,
        format!(
            "fastcrypt: missing.txt: No such file or directory\n\
             fastcrypt: {SHATTERED_1}: {}{SAFE_NOTE}\n",
            REASON[0]
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn no_detect_is_plain_sha1sum() {
    let (code, out, err) = sha1(&["--no-detect", ALL[0], ALL[1], ALL[2], ALL[3], ALL[4]]);
    let want: String = ALL
        .iter()
        .zip(PLAIN)
        .map(|(n, h)| format!("{h}  {n}\n"))
        .collect();
    assert_eq!((code, out, err), (0, want, String::new()));
    // Last one wins for repeats; --tag and -z as sha1sum's.
    let (code, out, _) = sha1(&["--no-detect", "--no-detect", "--tag", "-z", SHATTERED_1]);
    assert_eq!(
        (code, out),
        (0, format!("SHA1 ({SHATTERED_1}) = {}\0", PLAIN[0]))
    );
}

#[test]
fn reduced_round_detection_is_a_switch() {
    let mut args = vec!["--reduced-round"];
    args.extend(ALL);
    let (code, out, err) = sha1(&args);
    let want: String = ALL
        .iter()
        .zip(SAFE_REDUCED)
        .map(|(n, h)| format!("{h} *coll* {n}\n"))
        .collect();
    assert_eq!(out, want);
    // The first block found: in the PDFs, the reduced-round test fires
    // a block before the full collision.
    let reduced = |at| {
        format!("SHA-1 reduced-round collision attack in the block at byte {at} (disturbance vector II(52,0))")
    };
    let (r192, r64) = (reduced(192), reduced(64));
    let want_err = reasons(
        &[
            (SHATTERED_1, &r192),
            (SHATTERED_2, &r192),
            (MBLES_1, REASON[2]),
            (MBLES_2, REASON[3]),
            (REDUCED, &r64),
        ],
        SAFE_NOTE,
    );
    assert_eq!(err, want_err);
    assert_eq!(code, 1);
    let (code, out, err) = sha1(&["--reduced-round", "--no-detect", REDUCED]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "fastcrypt: the --reduced-round option is meaningless with --no-detect\n\
             Try 'fastcrypt sha1 --help' for more information.\n"
        )
    );
}

#[test]
fn tag_and_zero_carry_the_mark() {
    let (code, out, err) = sha1(&["--tag", SHATTERED_1, REDUCED]);
    assert_eq!(
        out,
        format!(
            "SHA1 ({SHATTERED_1}) = *coll* {}\nSHA1 ({REDUCED}) = {}\n",
            SAFE[0], SAFE[4]
        )
    );
    assert_eq!(
        err,
        format!("fastcrypt: {SHATTERED_1}: {}{SAFE_NOTE}\n", REASON[0])
    );
    assert_eq!(code, 1);
    let (code, out, _) = sha1(&["-z", SHATTERED_1, REDUCED]);
    assert_eq!(
        out,
        format!("{} *coll* {SHATTERED_1}\0{}  {REDUCED}\0", SAFE[0], SAFE[4])
    );
    assert_eq!(code, 1);
    let (code, out, _) = sha1(&["--tag", "-z", MBLES_2]);
    assert_eq!(out, format!("SHA1 ({MBLES_2}) = *coll* {}\0", SAFE[3]));
    assert_eq!(code, 1);
}

#[test]
fn names_needing_escapes_keep_the_mark_and_check_back() {
    let d = Scratch::new("escaped");
    let name = "back\\slash\nnl.pdf";
    std::fs::copy(testdata().join(SHATTERED_1), d.path(name)).unwrap();
    let (code, out, err) = outcome(&run_in(&d.path(""), &["sha1", name], None));
    assert_eq!(
        out,
        format!("\\{} *coll* back\\\\slash\\nnl.pdf\n", SAFE[0])
    );
    assert_eq!(
        err,
        format!(
            "fastcrypt: 'back\\slash'$'\\n''nl.pdf': {}{SAFE_NOTE}\n",
            REASON[0]
        )
    );
    assert_eq!(code, 1);
    let list = d.path("list");
    std::fs::write(&list, &out).unwrap();
    let (code, out, _) = outcome(&run_in(&d.path(""), &["sha1", "-c", "list"], None));
    // GNU 9.1 escapes only a newline in check results.
    assert_eq!(out, "\\back\\\\slash\\nnl.pdf: FAILED collision attack\n");
    assert_eq!(code, 1);
}

#[test]
fn stdin_attack_data() {
    let input = testdata().join(SHATTERED_2);
    let (code, out, err) = outcome(&run_in(&testdata(), &["sha1"], Some(&input)));
    assert_eq!(out, format!("{} *coll* -\n", SAFE[1]));
    assert_eq!(err, format!("fastcrypt: -: {}{SAFE_NOTE}\n", REASON[1]));
    assert_eq!(code, 1);
    let (code, out, _) = outcome(&run_in(&testdata(), &["sha1", "--tag", "-"], Some(&input)));
    assert_eq!((code, out), (1, format!("SHA1 (-) = *coll* {}\n", SAFE[1])));
    let (code, out, err) = outcome(&run_in(
        &testdata(),
        &["sha1", "--no-detect", "-"],
        Some(&input),
    ));
    assert_eq!(
        (code, out, err),
        (0, format!("{}  -\n", PLAIN[1]), String::new())
    );
}

/// Runs `fastcrypt sha1 ARGS LIST` in the test data directory with the
/// list in a scratch file.
fn check(d: &Scratch, list: &str, args: &[&str]) -> (i32, String, String) {
    let path = d.path("list.sha1");
    std::fs::write(&path, list).unwrap();
    let mut all = vec!["sha1"];
    all.extend_from_slice(args);
    all.push(path.to_str().unwrap());
    outcome(&run_in(&testdata(), &all, None))
}

/// The reasons `--check` prints for the attack files (no note on the
/// digest: none is printed).
fn check_reasons(names: &[usize]) -> String {
    let pairs: Vec<(&str, &str)> = names.iter().map(|&i| (ALL[i], REASON[i])).collect();
    reasons(&pairs, "")
}

#[test]
fn check_fails_attacks_even_when_the_digest_matches() {
    let d = Scratch::new("check-own");
    let (_, own, _) = sha1(&ALL);
    let failed: String = ALL[..4]
        .iter()
        .map(|n| format!("{n}: FAILED collision attack\n"))
        .collect();
    let (code, out, err) = check(&d, &own, &["-c"]);
    assert_eq!(out, format!("{failed}{REDUCED}: OK\n"));
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: WARNING: 4 collisions were detected\n",
            check_reasons(&[0, 1, 2, 3])
        )
    );
    assert_eq!(code, 1);
    // --quiet drops only the OK lines.
    let (code, out, err2) = check(&d, &own, &["-c", "--quiet"]);
    assert_eq!((code, out, err2), (1, failed.clone(), err.clone()));
    // --status: nothing at all; the exit status says it.
    let (code, out, err2) = check(&d, &own, &["-c", "--status"]);
    assert_eq!((code, out.as_str(), err2.as_str()), (1, "", ""));
    // --strict, --warn: about list lines, which are all well formed.
    for flag in ["--strict", "-w"] {
        let (code, out, err2) = check(&d, &own, &["-c", flag]);
        assert_eq!(
            (code, out, err2),
            (1, format!("{failed}{REDUCED}: OK\n"), err.clone())
        );
    }
    // One attack file: singular wording.
    let one = format!("{} *coll* {MBLES_1}\n", SAFE[2]);
    let (code, out, err) = check(&d, &one, &["-c"]);
    assert_eq!(out, format!("{MBLES_1}: FAILED collision attack\n"));
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: WARNING: 1 collision was detected\n",
            check_reasons(&[2])
        )
    );
    assert_eq!(code, 1);
    // The list without the attack files passes.
    let clean = format!("{}  {REDUCED}\n", SAFE[4]);
    let (code, out, err) = check(&d, &clean, &["-c"]);
    assert_eq!(
        (code, out, err),
        (0, format!("{REDUCED}: OK\n"), String::new())
    );
}

#[test]
fn check_reads_sha1cdsum_lines_and_plain_lists() {
    let d = Scratch::new("check-cd");
    // sha1cdsum's formats, as its 0.2.6 writes them (tag and two-column,
    // mixed; the mark is not part of the name).
    let list = format!(
        "SHA1 ({SHATTERED_1}) = *coll* {}\n{} *coll* {MBLES_2}\n{} *{REDUCED}\n",
        SAFE[0], SAFE[3], SAFE[4]
    );
    let (code, out, err) = check(&d, &list, &["-c"]);
    assert_eq!(
        out,
        format!(
            "{SHATTERED_1}: FAILED collision attack\n{MBLES_2}: FAILED collision attack\n\
             {REDUCED}: OK\n"
        )
    );
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: WARNING: 2 collisions were detected\n",
            check_reasons(&[0, 3])
        )
    );
    assert_eq!(code, 1);
    // With --no-detect the digests compared are plain SHA-1: the safe
    // hashes of `*coll*` lines do not match, plain ones (marked or not) do.
    let (code, out, err) = check(&d, &list, &["-c", "--no-detect"]);
    assert_eq!(
        out,
        format!("{SHATTERED_1}: FAILED\n{MBLES_2}: FAILED\n{REDUCED}: OK\n")
    );
    assert_eq!(
        err,
        "fastcrypt: WARNING: 2 computed checksums did NOT match\n"
    );
    assert_eq!(code, 1);
    let marked_plain = format!("{} *coll* {SHATTERED_2}\n", PLAIN[1]);
    let (code, out, err) = check(&d, &marked_plain, &["-c", "--no-detect"]);
    assert_eq!(
        (code, out, err),
        (0, format!("{SHATTERED_2}: OK\n"), String::new())
    );
    // A sha1sum list of attack files: the safe hash differs from the
    // listed SHA-1 and the attack is reported; --no-detect verifies it.
    let plain: String = ALL
        .iter()
        .zip(PLAIN)
        .map(|(n, h)| format!("{h}  {n}\n"))
        .collect();
    let (code, out, err) = check(&d, &plain, &["-c"]);
    let failed: String = ALL[..4]
        .iter()
        .map(|n| format!("{n}: FAILED collision attack\n"))
        .collect();
    assert_eq!(out, format!("{failed}{REDUCED}: OK\n"));
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: WARNING: 4 computed checksums did NOT match\n\
             fastcrypt: WARNING: 4 collisions were detected\n",
            check_reasons(&[0, 1, 2, 3])
        )
    );
    assert_eq!(code, 1);
    let (code, out, err) = check(&d, &plain, &["-c", "--no-detect"]);
    let ok: String = ALL.iter().map(|n| format!("{n}: OK\n")).collect();
    assert_eq!((code, out, err), (0, ok, String::new()));
}

#[test]
fn check_with_missing_files() {
    let d = Scratch::new("check-missing");
    let list = format!(
        "{} *coll* {SHATTERED_1}\n{}  missing.pdf\n",
        SAFE[0], SAFE[1]
    );
    let (code, out, err) = check(&d, &list, &["-c"]);
    assert_eq!(
        out,
        format!("{SHATTERED_1}: FAILED collision attack\nmissing.pdf: FAILED open or read\n")
    );
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: missing.pdf: No such file or directory\n\
             fastcrypt: WARNING: 1 listed file could not be read\n\
             fastcrypt: WARNING: 1 collision was detected\n",
            check_reasons(&[0])
        )
    );
    assert_eq!(code, 1);
    // --ignore-missing: the attack file is no verified file.
    let (code, out, err) = check(&d, &list, &["-c", "--ignore-missing"]);
    assert_eq!(out, format!("{SHATTERED_1}: FAILED collision attack\n"));
    let list_path = d.path("list.sha1");
    assert_eq!(
        err,
        format!(
            "{}fastcrypt: WARNING: 1 collision was detected\n\
             fastcrypt: {}: no file was verified\n",
            check_reasons(&[0]),
            list_path.display()
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn check_of_stdin_list_and_reduced_round() {
    let d = Scratch::new("check-stdin");
    let list = d.path("list");
    std::fs::write(&list, format!("{}  {REDUCED}\n", SAFE_REDUCED[4])).unwrap();
    // Default detector: the listed (reduced-round) safe hash is not the
    // plain SHA-1 computed.
    let (code, out, _) = outcome(&run_in(&testdata(), &["sha1", "-c"], Some(&list)));
    assert_eq!((code, out), (1, format!("{REDUCED}: FAILED\n")));
    let (code, out, err) = outcome(&run_in(
        &testdata(),
        &["sha1", "-c", "--reduced-round", "-"],
        Some(&list),
    ));
    assert_eq!(out, format!("{REDUCED}: FAILED collision attack\n"));
    assert_eq!(
        err,
        format!(
            "fastcrypt: {REDUCED}: SHA-1 reduced-round collision attack in the block at \
             byte 64 (disturbance vector II(52,0))\n\
             fastcrypt: WARNING: 1 collision was detected\n"
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn help_documents_detection() {
    let o = common::fastcrypt(&["sha1", "--help"]);
    let help = common::stdout(&o);
    assert!(o.status.success());
    for want in [
        "--no-detect",
        "--reduced-round",
        "HEX *coll* FILE",
        "FILE: FAILED collision attack",
        "WARNING: N collisions were detected",
        "sha1cdsum exits 0",
    ] {
        assert!(help.contains(want), "--help lacks {want:?}:\n{help}");
    }
}

/// Debian's `sha1cdsum`, if installed.
fn sha1cdsum() -> Option<PathBuf> {
    let ok = Command::new("sha1cdsum")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from("sha1cdsum"))
}

#[test]
fn lines_match_sha1cdsum_where_installed() {
    let Some(cd) = sha1cdsum() else {
        eprintln!("sha1cdsum not installed: comparison skipped (apt install sha1cdsum)");
        return;
    };
    for flags in [&[][..], &["-b"], &["--tag"], &["-z"], &["--tag", "-z"]] {
        let theirs = Command::new(&cd)
            .args(flags)
            .args(ALL)
            .current_dir(testdata())
            .output()
            .expect("run sha1cdsum");
        let mut args = flags.to_vec();
        args.extend(ALL);
        let (code, ours, _) = sha1(&args);
        assert_eq!(ours, common::stdout(&theirs), "flags {flags:?}");
        // Deliberately not sha1cdsum's exit status, 0.
        assert_eq!(code, 1);
    }
}
