//! `fastcrypt benchcmp`, run as a user runs it.

mod common;

use common::{fastcrypt, stderr, stdout, Scratch};
use std::path::{Path, PathBuf};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

#[test]
fn golden_go_rc4_rewrite() {
    let old = golden("rc4_old.txt");
    let new = golden("rc4_new.txt");
    let o = fastcrypt(&["benchcmp", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let expected = std::fs::read_to_string(golden("rc4_benchcmp.txt")).unwrap();
    assert_eq!(out, expected);
    // The figures the issue quotes, independently of the golden file.
    for want in [
        "BenchmarkRC4_128          774          417  -46.12%",
        "BenchmarkRC4_1K          6121         3200  -47.72%",
        "BenchmarkRC4_8K         48394        25151  -48.03%",
        "BenchmarkRC4_128       165.18       306.84    1.86x",
        "BenchmarkRC4_1K        167.28       319.92    1.91x",
        "BenchmarkRC4_8K        167.29       321.89    1.92x",
    ] {
        assert!(out.lines().any(|l| l == want), "missing {want:?} in\n{out}");
    }
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "benchmark           old ns/op    new ns/op    delta"
    );
    assert_eq!(
        lines[5],
        "benchmark            old MB/s     new MB/s  speedup"
    );
    assert!(lines[4].starts_with("[Geo mean]") && lines[4].ends_with("-47.30%"));
    assert!(lines[9].starts_with("[Geo mean]") && lines[9].ends_with("1.90x"));
}

#[test]
fn repeated_runs_use_medians_and_mark_noise() {
    let d = Scratch::new("runs");
    let old = d.path("old.txt");
    let new = d.path("new.txt");
    std::fs::write(
        &old,
        "BenchmarkA-8 100 1000 ns/op 8.00 MB/s\n\
         BenchmarkA-8 100 1100 ns/op 7.27 MB/s\n\
         BenchmarkA-8 100 900 ns/op 8.89 MB/s\n\
         BenchmarkB-8 100 500 ns/op\n\
         BenchmarkB-8 100 510 ns/op\n\
         BenchmarkOnlyOld-8 100 5 ns/op\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "BenchmarkA-8 100 1050 ns/op 7.62 MB/s\n\
         BenchmarkA-8 100 950 ns/op 8.42 MB/s\n\
         BenchmarkA-8 100 990 ns/op 8.08 MB/s\n\
         BenchmarkB-8 100 250 ns/op\n\
         BenchmarkB-8 100 260 ns/op\n\
         BenchmarkFails-8 \t--- FAIL: BenchmarkFails-8\n\
         BenchmarkNoTime-8 100 3.00 widgets/op\n",
    )
    .unwrap();
    let o = fastcrypt(&["benchcmp", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Lines with no time are skipped with a warning each, as benchstat
    // skips them, not taken for a malformed file.
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "fastcrypt: warning: {}:6: a status line, not a result, skipped: BenchmarkFails-8",
            new.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(":7: no ns/op value, skipped: BenchmarkNoTime-8"),
        "{err}"
    );
    // A benchmark in one file only is named, not dropped.
    assert!(
        out.contains(&format!(
            "only in {} (not compared): BenchmarkOnlyOld-8\n",
            old.display()
        )),
        "{out}"
    );
    // A: medians 1000 -> 990, ranges overlap: within noise.
    assert!(
        out.contains("BenchmarkA-8         1000          990   -1.00% ~\n"),
        "{out}"
    );
    // B: 505 -> 255, ranges apart: a real change.
    assert!(
        out.contains("BenchmarkB-8          505          255  -49.50%\n"),
        "{out}"
    );
    assert!(!out.contains("BenchmarkOnlyOld-8    "), "{out}");
    assert!(out.contains("~: within noise"));
}

#[test]
fn errors_name_file_and_line() {
    let d = Scratch::new("errors");
    let good = golden("rc4_old.txt");
    let bad = d.path("bad.txt");
    std::fs::write(&bad, "goos: linux\nBenchmarkRC4_128 5000000 fast ns/op\n").unwrap();
    let o = fastcrypt(&["benchcmp", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{}:2: malformed benchmark line", bad.display())),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");

    let missing = d.path("missing.txt");
    let o = fastcrypt(&[
        "benchcmp",
        missing.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains(&format!("{}: cannot read", missing.display())));

    let other = d.path("other.txt");
    std::fs::write(&other, "BenchmarkSomethingElse 10 5 ns/op\n").unwrap();
    let o = fastcrypt(&["benchcmp", good.to_str().unwrap(), other.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no benchmark in common"),
        "{}",
        stderr(&o)
    );

    let empty = d.path("empty.txt");
    std::fs::write(&empty, "PASS\n").unwrap();
    let o = fastcrypt(&["benchcmp", empty.to_str().unwrap(), good.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no benchmark lines"), "{}", stderr(&o));
}

#[test]
fn geo_mean_columns_cover_the_same_rows() {
    // A zero time in one file used to leave that row out of one column's
    // mean only: 4.00 vs 3.46 for two benchmarks that did not change.
    let d = Scratch::new("geomean");
    let (old, new) = (d.path("old.txt"), d.path("new.txt"));
    std::fs::write(&old, "BenchmarkA 10 0 ns/op\nBenchmarkB 10 4 ns/op\n").unwrap();
    std::fs::write(&new, "BenchmarkA 10 3 ns/op\nBenchmarkB 10 4 ns/op\n").unwrap();
    let o = fastcrypt(&["benchcmp", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let geo = out
        .lines()
        .find(|l| l.starts_with("[Geo mean]"))
        .unwrap_or_else(|| panic!("no geo mean row:\n{out}"));
    assert_eq!(
        geo.split_whitespace().collect::<Vec<_>>(),
        ["[Geo", "mean]", "4.00", "4.00", "+0.00%"],
        "{out}"
    );
}

#[test]
fn lines_in_other_encodings_are_skipped() {
    // Only `Benchmark` lines matter; a log line in Latin-1 used to fail the
    // whole file with "stream did not contain valid UTF-8".
    let d = Scratch::new("latin1");
    let (old, new) = (d.path("old.txt"), d.path("new.txt"));
    std::fs::write(&old, b"caf\xe9 log line\nBenchmarkA 10 8 ns/op\n").unwrap();
    std::fs::write(&new, b"BenchmarkA 10 4 ns/op\n\xff\xfe\n").unwrap();
    let o = fastcrypt(&["benchcmp", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("-50.00%"), "{}", stdout(&o));
}
