//! `fastcrypt speed`, run as a user runs it, with a tiny `--min-time` so
//! the whole file stays within seconds.

mod common;

use common::{fastcrypt, Scratch};

const FAST: &[&str] = &["--min-time", "5ms", "--samples", "5"];

fn speed(args: &[&str]) -> String {
    let mut all = vec!["speed"];
    all.extend_from_slice(args);
    all.extend_from_slice(FAST);
    let o = fastcrypt(&all);
    assert!(
        o.status.success(),
        "fastcrypt {all:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Piped stderr is not a terminal: no progress bar, nothing else.
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "stderr of {all:?}");
    String::from_utf8(o.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let o = fastcrypt(args);
    assert!(!o.status.success(), "fastcrypt {args:?} should fail");
    assert!(o.stdout.is_empty());
    let e = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        e.trim_end().lines().count(),
        1,
        "one-line error expected: {e}"
    );
    e
}

/// `(backend, available, needs)` of one algorithm, from `speed --list`.
fn backends_of(algo: &str) -> Vec<(String, bool, String)> {
    let o = fastcrypt(&["speed", "--list"]);
    assert!(o.status.success());
    let list = String::from_utf8(o.stdout).unwrap();
    list.lines()
        .skip_while(|l| !l.starts_with(&format!("{algo} (")))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .filter(|l| l.contains("fastcrypt backend "))
        .map(|l| {
            let name = l.split_whitespace().next().unwrap().to_string();
            let needs = l
                .split_once("n/a (")
                .map(|(_, r)| r.trim_end_matches(')').to_string());
            (name, needs.is_none(), needs.unwrap_or_default())
        })
        .collect()
}

fn sha1_backends() -> Vec<(String, bool, String)> {
    backends_of("sha1")
}

const PEERS: &[&str] = &["openssl", "openssl-evp", "rustcrypto", "ring", "sha1_smol"];

/// Whether `speed` measures the core clock by default, and so shows
/// cycles/B without --cpu-ghz.
const MEASURED: bool = cfg!(any(target_arch = "x86", target_arch = "x86_64"));

#[test]
fn table_has_header_every_backend_and_peer() {
    let out = speed(&["sha1"]);
    for key in [
        "cpu:",
        "features:",
        "rustc:",
        "openssl:",
        "date:",
        "auto:",
        "timing:",
        "cycles/B:",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(key)),
            "no {key} in\n{out}"
        );
    }
    assert!(out.contains("rustc:     rustc 1."), "{out}");
    assert!(out.contains("openssl:   OpenSSL "), "{out}");
    assert!(out.contains(" UTC\n"));
    assert!(out.contains("auto:      sha1 -> "));
    for row in ["Hash8Bytes", "Hash1K", "Hash8K"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some("auto")),
            "no {row} auto row in\n{out}"
        );
        for (b, avail, needs) in sha1_backends() {
            let line = out
                .lines()
                .find(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some(b.as_str()))
                .unwrap_or_else(|| panic!("no {row} {b} row in\n{out}"));
            if avail {
                assert!(line.contains('.'), "{line}");
            } else {
                // Never dropped: shown as n/a with what it needs.
                assert!(line.ends_with(&format!("n/a ({needs})")), "{line}");
            }
        }
        for p in PEERS {
            assert!(
                out.lines()
                    .any(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some(p)),
                "no {row} {p} row"
            );
        }
    }
}

#[test]
fn go_format_is_benchstat_readable_and_feeds_benchcmp() {
    let out = speed(&[
        "sha1",
        "--peers",
        "openssl",
        "--backend",
        "auto,portable",
        "--format",
        "go",
    ]);
    assert!(out.contains("goarch: ") && out.contains("\ncpu: "), "{out}");
    let bench: Vec<&str> = out.lines().filter(|l| l.starts_with("Benchmark")).collect();
    // 3 sizes x 4 implementations x 5 samples.
    assert_eq!(bench.len(), 3 * 4 * 5, "{out}");
    for l in &bench {
        let f: Vec<&str> = l.split_whitespace().collect();
        // cycles/B follows where the clock is measured (x86).
        let fields = if MEASURED { 8 } else { 6 };
        assert_eq!(f.len(), fields, "{l}");
        assert!(f[1].parse::<u64>().unwrap() > 0);
        assert!(f[2].parse::<f64>().unwrap() > 0.0);
        assert_eq!((f[3], f[5]), ("ns/op", "MB/s"));
        if MEASURED {
            assert!(f[6].parse::<f64>().unwrap() > 0.0);
            assert_eq!(f[7], "cycles/B");
        }
    }
    for name in [
        "BenchmarkSHA1/Hash8Bytes/auto ",
        "BenchmarkSHA1/Hash1K/portable ",
        "BenchmarkSHA1/Hash8K/openssl ",
        "BenchmarkSHA1/Hash8K/openssl-evp ",
    ] {
        assert!(out.contains(name), "no {name} in\n{out}");
    }
    // benchcmp reads it back: the same file against itself is all `~`.
    let d = Scratch::new("go");
    let f = d.path("run.txt");
    std::fs::write(&f, &out).unwrap();
    let o = fastcrypt(&["benchcmp", f.to_str().unwrap(), f.to_str().unwrap()]);
    assert!(o.status.success());
    let cmp = String::from_utf8(o.stdout).unwrap();
    assert!(cmp.contains("BenchmarkSHA1/Hash8K/openssl "), "{cmp}");
    assert!(cmp.contains("+0.00% ~"), "{cmp}");
}

#[test]
fn go_format_with_compare_and_no_header() {
    let out = speed(&[
        "rc4",
        "--sizes",
        "128",
        "--compare",
        "openssl,auto",
        "--format",
        "go",
        "--no-header",
    ]);
    // What benchstat reads stays; the header's other facts go, as in the
    // table format.
    for line in [
        "goos: ",
        "goarch: ",
        "pkg: fastcrypt",
        "cpu: ",
        "# command: ",
        "# timing: ",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(line)),
            "no {line} in\n{out}"
        );
    }
    for line in ["# rustc: ", "# date: ", "# features: "] {
        assert!(!out.contains(line), "{line} in\n{out}");
    }
    // The paired ratios as comments, after the samples.
    let title = out
        .lines()
        .position(|l| l.starts_with("# rc4: old = openssl, new = auto"))
        .unwrap_or_else(|| panic!("no compare title in\n{out}"));
    let lines: Vec<&str> = out.lines().collect();
    let last_sample = lines
        .iter()
        .rposition(|l| l.starts_with("Benchmark"))
        .unwrap();
    assert!(title > last_sample, "{out}");
    assert!(out.contains("# BenchmarkRC4/RC4_128 "), "{out}");
    assert!(out.contains("speedup"), "{out}");
    // benchcmp reads past them.
    let d = Scratch::new("go-compare");
    let f = d.path("run.txt");
    std::fs::write(&f, &out).unwrap();
    let o = fastcrypt(&["benchcmp", f.to_str().unwrap(), f.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn json_format() {
    let out = speed(&["sha1", "--sizes", "8,1K", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rustc"].as_str().unwrap().starts_with("rustc "));
    assert!(v["openssl"].as_str().unwrap().starts_with("OpenSSL "));
    assert!(v["auto"]["sha1"].is_string());
    // Older readers' fields stay; the clock's source is new beside them.
    assert!(v.get("cpu_ghz").is_some() && v.get("cpu_ghz_source").is_some());
    let results = v["results"].as_array().unwrap();
    let backends = sha1_backends();
    assert_eq!(results.len(), 2 * (1 + backends.len() + PEERS.len()));
    for r in results {
        if r["available"] == true {
            assert_eq!(r["samples_ns_per_op"].as_array().unwrap().len(), 5);
            let m = &r["ns_per_op"];
            assert!(m["min"].as_f64() <= m["median"].as_f64());
            assert!(m["median"].as_f64() <= m["max"].as_f64());
            assert!(r["mb_per_s"].as_f64().unwrap() > 0.0);
        } else {
            assert!(r["reason"].as_str().unwrap().starts_with("needs "));
        }
    }
}

#[test]
fn csv_format() {
    let out = speed(&[
        "sha1", "--sizes", "64", "--format", "csv", "--peers", "ring",
    ]);
    let mut lines = out.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with("algorithm,size,benchmark,implementation,origin,status,ns_per_op"));
    let cols = head.split(',').count();
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 1 + sha1_backends().len() + 1, "{out}");
    for r in rows {
        assert_eq!(r.split(',').count(), cols, "{r}");
        assert!(r.starts_with("sha1,64,Hash64Bytes,"), "{r}");
    }
}

#[test]
fn markdown_format_with_compare() {
    let out = speed(&["sha1", "--format", "markdown", "--compare", "openssl,auto"]);
    assert!(out.contains("- **cpu**: "), "{out}");
    assert!(out.contains("### sha1"));
    assert!(
        out.contains("| benchmark | impl | ns/op | min | max | MB/s |"),
        "{out}"
    );
    assert!(
        out.contains("| benchmark | old ns/op | new ns/op | delta |"),
        "{out}"
    );
    assert!(
        out.contains("| benchmark | old MB/s | new MB/s | speedup |"),
        "{out}"
    );
    assert!(out.contains("| [Geo mean] |"));
}

#[test]
fn compare_measures_the_pair_and_prints_both_tables() {
    let out = speed(&["sha1", "--compare", "openssl,auto"]);
    // Only the pair was measured.
    let measured: Vec<&str> = out.lines().filter(|l| l.starts_with("Hash")).collect();
    assert_eq!(measured.len(), 6, "{out}");
    assert!(out.contains("old = openssl, new = auto ("), "{out}");
    assert!(
        out.contains("medians of per-round paired ratios over quiet rounds (used/taken: "),
        "{out}"
    );
    let ns_head = out
        .lines()
        .position(|l| l.starts_with("benchmark") && l.contains("old ns/op"))
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    for (i, row) in ["Hash8Bytes", "Hash1K", "Hash8K"].iter().enumerate() {
        assert!(lines[ns_head + 1 + i].starts_with(&format!("BenchmarkSHA1/{row} ")));
        assert!(lines[ns_head + 1 + i].contains('%'));
        assert!(lines[ns_head + 6 + i].ends_with('x') || lines[ns_head + 6 + i].ends_with("x ~"));
    }
    assert!(lines[ns_head + 4].starts_with("[Geo mean]"));
    assert!(lines[ns_head + 5].contains("old MB/s"));
    // Columns line up: each number ends where its header ends.
    let head = lines[ns_head];
    let ends = [
        head.find("old ns/op").unwrap() + 9,
        head.find("new ns/op").unwrap() + 9,
    ];
    for l in &lines[ns_head + 1..ns_head + 5] {
        for end in ends {
            assert!(l.as_bytes()[end - 1].is_ascii_digit(), "{l:?} vs {head:?}");
            assert_eq!(l.as_bytes()[end], b' ', "{l:?} vs {head:?}");
        }
    }
}

#[test]
fn sizes_backend_and_peer_selection() {
    let out = speed(&[
        "sha1",
        "--sizes",
        "8,128,1K,8K,16K",
        "--backend",
        "auto",
        "--peers",
        "none",
    ]);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("Hash")).collect();
    assert_eq!(rows.len(), 5, "{out}");
    for (r, name) in rows
        .iter()
        .zip(["Hash8Bytes", "Hash128Bytes", "Hash1K", "Hash8K", "Hash16K"])
    {
        let f: Vec<&str> = r.split_whitespace().collect();
        assert_eq!((f[0], f[1]), (name, "auto"), "{r}");
    }
    let out = speed(&[
        "sha1",
        "--sizes",
        "1K",
        "--backend",
        "portable",
        "--peers",
        "rustcrypto,ring",
    ]);
    let impls: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("Hash1K"))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(impls, ["portable", "rustcrypto", "ring"]);
}

#[test]
fn sweep_and_plot() {
    let d = Scratch::new("plot");
    let svg = d.path("sha1.svg");
    let mut args = vec![
        "speed",
        "sha1",
        "--sweep",
        "--backend",
        "auto",
        "--peers",
        "openssl",
        "--plot",
        svg.to_str().unwrap(),
    ];
    args.extend_from_slice(&["--min-time", "2ms", "--samples", "5"]);
    let o = fastcrypt(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let head = out
        .lines()
        .position(|l| l.trim_start().starts_with("bytes"))
        .unwrap();
    assert!(out.lines().nth(head).unwrap().contains("auto ("), "{out}");
    assert!(out.contains("openssl µs/op") && out.contains("openssl MB/s"));
    let rows: Vec<&str> = out
        .lines()
        .skip(head + 1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 38, "{out}");
    let first: Vec<&str> = rows[0].split_whitespace().collect();
    let last: Vec<&str> = rows[37].split_whitespace().collect();
    assert_eq!(&first[..2], ["0", "0"], "{}", rows[0]);
    assert_eq!(&last[..2], ["16384", "1024"], "{}", rows[37]);
    // bytes, blocks, then µs/op and MB/s for auto, openssl and openssl-evp.
    assert_eq!(last.len(), 2 + 3 * 2, "{}", rows[37]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("wrote"));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..100.min(s.len())]);
    for text in ["MB/s", "message size", "openssl-evp", "auto (", "16K"] {
        assert!(s.contains(text), "SVG lacks text {text:?}");
    }
    assert!(s.contains("<text"), "labels are SVG text");
    assert!(
        s.matches("<polyline").count() >= 3,
        "one line per implementation"
    );
}

#[test]
fn option_errors_are_one_line() {
    assert!(fails(&["speed", "md5"]).contains("unknown algorithm `md5` (valid: sha1"));
    assert!(fails(&["speed", "sha1", "--backend", "neon"])
        .contains("unknown backend `neon` (valid: auto, all, portable"));
    assert!(fails(&["speed", "sha1", "--sizes", "8,12Q"]).contains("invalid size `12Q`"));
    assert!(fails(&["speed", "sha1", "--peers", "libsodium"]).contains("unknown peer `libsodium`"));
    assert!(fails(&["speed", "sha1", "--peers", "none,openssl"])
        .contains("--peers none cannot be combined with other peers"));
    assert!(fails(&["speed", "sha1", "--peers", ""]).contains("empty --peers"));
    assert!(fails(&["speed", "sha1", "--sweep", "--sizes", "8"])
        .contains("--sweep measures sizes of its own: leave out --sizes"));
    assert!(fails(&["speed", "pbkdf2-sha1", "--sizes", "0"])
        .contains("--sizes 0: pbkdf2-sha1 takes sizes from 1"));
    assert!(fails(&["speed", "sha1", "--format", "xml"]).contains("unknown format `xml`"));
    assert!(fails(&["speed", "sha1", "--min-time", "soon"]).contains("invalid --min-time"));
    assert!(fails(&["speed", "sha1", "--samples", "2"]).contains("from 5 to 1000"));
    assert!(
        fails(&["speed", "sha1", "--compare", "openssl,gpu"]).contains("no implementation `gpu`")
    );
    assert!(fails(&[
        "speed",
        "rc4",
        "--format",
        "csv",
        "--compare",
        "openssl,auto"
    ])
    .contains("--compare's tables have no place in CSV"));
}

/// Runs `fastcrypt speed ARGS`, sends it SIGINT (what Ctrl-C sends) after
/// `after`, and waits for it.
#[cfg(unix)]
fn interrupted_after(after: std::time::Duration, args: &[&str]) -> std::process::Output {
    use std::process::Stdio;
    let child = common::bin()
        .arg("speed")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fastcrypt speed");
    std::thread::sleep(after);
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    common::finish_within(child, 60, "speed after SIGINT")
}

#[cfg(unix)]
#[test]
fn ctrl_c_reports_the_rounds_measured() {
    // 400 samples of 10 ms: 16 s a cell, so SIGINT comes mid-run, long
    // after the few cells' calibration (tens of ms each, even on a
    // loaded machine).
    let args = [
        "rc4",
        "--sizes",
        "128",
        "--peers",
        "openssl",
        "--samples",
        "400",
        "--min-time",
        "4s",
        "--format",
        "json",
        "--compare",
        "openssl,auto",
    ];
    let o = interrupted_after(std::time::Duration::from_secs(6), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "stderr: {err}");
    assert!(
        err.contains("interrupted: reporting the rounds measured so far"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a whole JSON report");
    assert_eq!(v["interrupted"], true);
    let rounds = v["rounds"].as_u64().unwrap();
    assert!((1..400).contains(&rounds), "{rounds} rounds");
    // Whole rounds only: every cell has one sample per round, so the
    // compare pairs stay paired.
    for r in v["results"].as_array().unwrap() {
        if r["available"] == true {
            let n = r["samples_ns_per_op"].as_array().unwrap().len();
            assert_eq!(n as u64, rounds, "{}", r["implementation"]);
        }
    }
    assert_eq!(v["compare"][0]["rows"][0]["rounds_taken"], rounds);
}

/// A SIGINT the shell had ignored (a background job without job
/// control) stays ignored: the run goes on to its end.
#[cfg(unix)]
#[test]
fn an_ignored_sigint_stays_ignored() {
    use std::process::Stdio;
    let child = std::process::Command::new("sh")
        .args([
            "-c",
            r#"trap '' INT; exec "$0" speed rc4 --sizes 128 --backend auto --peers none --samples 5 --min-time 2s --format json"#,
        ])
        .arg(common::bin().get_program())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sh");
    std::thread::sleep(std::time::Duration::from_millis(700));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    let o = common::finish_within(child, 60, "speed with SIGINT ignored");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a whole JSON report");
    assert_eq!(
        (v["interrupted"].as_bool(), v["rounds"].as_u64()),
        (Some(false), Some(5))
    );
}

/// A closed standard output fails before the measuring, not after it.
#[cfg(unix)]
#[test]
fn closed_stdout_fails_at_once() {
    let o = std::process::Command::new("sh")
        .args(["-c", r#"exec "$0" speed --min-time 60s >&-"#])
        .arg(common::bin().get_program())
        .output()
        .expect("run sh");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastcrypt: write error: Bad file descriptor\n"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_before_a_round_reports_nothing() {
    // Samples of 2 s: calibrating the first cell alone takes a second.
    let args = [
        "rc4",
        "--sizes",
        "128",
        "--samples",
        "10",
        "--min-time",
        "20s",
    ];
    let o = interrupted_after(std::time::Duration::from_millis(500), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "stderr: {err}");
    assert!(o.stdout.is_empty());
    assert!(
        err.contains("interrupted before a round was measured: nothing to report"),
        "{err}"
    );
}

#[test]
fn a_backend_this_cpu_lacks() {
    let missing: Vec<(String, bool, String)> =
        sha1_backends().into_iter().filter(|b| !b.1).collect();
    let Some((name, _, needs)) = missing.first() else {
        eprintln!("skipped: this CPU runs every sha1 backend (the n/a row is checked in the table test on CPUs that lack one)");
        return;
    };
    let e = fails(&[
        "speed",
        "sha1",
        "--backend",
        name,
        "--min-time",
        "5ms",
        "--samples",
        "5",
    ]);
    assert!(
        e.contains(&format!(
            "sha1 backend `{name}` is not available on this CPU ({needs})"
        )),
        "{e}"
    );
    let e = fails(&["speed", "sha1", "--compare", &format!("{name},auto")]);
    assert!(e.contains("is n/a"), "{e}");
}

/// The keyed algorithms: every backend and every peer, at the AEAD sizes,
/// with Go names per row.
#[test]
fn ghash_and_aes_gcm_rows() {
    for (algo, family, prefix, peers) in [
        ("ghash", "GHASH", "GHASH_", &["openssl", "rustcrypto"][..]),
        (
            "aes-128-gcm",
            "AES128GCM",
            "Seal_",
            &["openssl", "rustcrypto", "ring"][..],
        ),
        (
            "aes-256-gcm",
            "AES256GCM",
            "Seal_",
            &["openssl", "rustcrypto", "ring"][..],
        ),
    ] {
        let backends = backends_of(algo);
        assert!(backends.iter().any(|b| b.0 == "portable" && b.1), "{algo}");
        let out = speed(&[algo, "--format", "go"]);
        for size in ["16", "64", "1350", "8K", "16K"] {
            let row = format!("Benchmark{family}/{prefix}{size}");
            for imp in std::iter::once(&"auto").chain(peers) {
                let name = format!("{row}/{imp} ");
                assert!(out.contains(&name), "no {name} in\n{out}");
            }
            for (b, avail, needs) in &backends {
                if *avail {
                    assert!(out.contains(&format!("{row}/{b} ")), "{row}/{b}");
                } else {
                    assert!(out.contains(&format!("# {row}/{b}: n/a ({needs})")));
                }
            }
        }
    }
}

/// The open algorithms carry the default seal as their reference row, so
/// that `--compare seal,auto` pairs open with seal round by round; the
/// seal algorithms have no such row.
#[test]
fn aes_gcm_open_against_seal() {
    for (algo, family) in [
        ("aes-128-gcm-open", "AES128GCMOpen"),
        ("aes-256-gcm-open", "AES256GCMOpen"),
    ] {
        let out = speed(&[algo, "--sizes", "64,1K", "--compare", "seal,auto"]);
        assert!(
            out.contains(" seal auto (sealing, reference) "),
            "{algo}: {out}"
        );
        assert!(
            out.contains(&format!(
                "{algo}: old = seal auto (sealing, reference), new = auto ("
            )),
            "{algo}: {out}"
        );
        for size in ["64", "1K"] {
            assert!(
                out.contains(&format!("Benchmark{family}/Open_{size} ")),
                "{algo} {size}: {out}"
            );
        }
    }
    let e = fails(&["speed", "aes-128-gcm", "--backend", "seal"]);
    assert!(e.contains("unknown backend `seal`"), "{e}");
}

/// `--aad N`: every AEAD operation authenticates N bytes of associated
/// data, which the row names, the header and the machine-readable formats
/// say; other algorithms refuse it.
#[test]
fn aes_gcm_with_associated_data() {
    let out = speed(&[
        "aes-128-gcm,aes-256-gcm-open",
        "--aad",
        "13",
        "--sizes",
        "16,1350",
        "--peers",
        "ring,openssl,rustcrypto",
    ]);
    for row in [
        "Seal_16_AD13",
        "Seal_1350_AD13",
        "Open_16_AD13",
        "Open_1350_AD13",
    ] {
        for imp in ["auto", "ring", "openssl", "rustcrypto"] {
            assert!(
                out.lines()
                    .any(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some(imp)),
                "no {row} {imp} in\n{out}"
            );
        }
    }
    assert!(
        out.contains("aad:       13 bytes of associated data per operation (aes-128-gcm, aes-256-gcm-open), not counted"),
        "{out}"
    );
    let json = speed(&[
        "aes-256-gcm,sha1",
        "--aad",
        "5",
        "--sizes",
        "64",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["aad_bytes"], 5);
    let results = v["results"].as_array().unwrap();
    let gcm = results
        .iter()
        .find(|r| r["algorithm"] == "aes-256-gcm")
        .unwrap();
    assert_eq!(gcm["benchmark"], "Seal_64_AD5");
    assert_eq!(gcm["aad_bytes"], 5);
    assert_eq!(gcm["bytes_per_op"], 64, "the AAD is not counted");
    let sha1 = results.iter().find(|r| r["algorithm"] == "sha1").unwrap();
    assert_eq!(sha1["benchmark"], "Hash64Bytes");
    assert!(sha1.get("aad_bytes").is_none(), "{sha1}");
    // Without --aad the names stay as they were.
    let go = speed(&[
        "aes-128-gcm",
        "--sizes",
        "16",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--format",
        "go",
    ]);
    assert!(go.contains("BenchmarkAES128GCM/Seal_16/auto "), "{go}");
    let e = fails(&["speed", "sha1", "--aad", "13"]);
    assert!(
        e.contains("--aad applies to aes-128-gcm, aes-256-gcm"),
        "{e}"
    );
    let e = fails(&["speed", "aes-128-gcm", "--aad", "2M"]);
    assert!(e.contains("invalid --aad `2M`"), "{e}");
}

/// RC4: Go's row names, every backend and peer; OpenSSL's row says why
/// when its legacy provider cannot load, instead of disappearing.
#[test]
fn rc4_rows_and_openssl_legacy_provider() {
    let out = speed(&["rc4"]);
    for row in ["RC4_128", "RC4_1K", "RC4_8K"] {
        for (b, _, _) in backends_of("rc4") {
            assert!(
                out.lines()
                    .any(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some(b.as_str())),
                "no {row} {b} in\n{out}"
            );
        }
        for p in ["openssl", "rustcrypto"] {
            assert!(
                out.lines()
                    .any(|l| l.starts_with(row) && l.split_whitespace().nth(1) == Some(p)),
                "no {row} {p} in\n{out}"
            );
        }
    }
    let mut args = vec!["speed", "rc4", "--sizes", "128"];
    args.extend_from_slice(FAST);
    let o = common::bin()
        .args(&args)
        .env("OPENSSL_MODULES", "/nonexistent-fastcrypt-test")
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let line = out
        .lines()
        .find(|l| l.starts_with("RC4_128") && l.split_whitespace().nth(1) == Some("openssl"))
        .unwrap_or_else(|| panic!("no openssl row in\n{out}"));
    assert!(
        line.contains("n/a (OpenSSL's legacy provider did not load: "),
        "{line}"
    );
}

#[test]
fn absurd_samples_and_too_short_min_time() {
    // Used to run for ever; now refused before anything is measured.
    let o = fastcrypt(&["speed", "sha1", "--samples", "18446744073709551615"]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("from 5 to 1000"), "{e}");
    let one_cell = |timing: &[&str]| {
        let mut args = vec!["speed", "sha1", "--sizes", "8", "--backend", "auto"];
        args.extend_from_slice(&["--peers", "none"]);
        args.extend_from_slice(timing);
        let o = fastcrypt(&args);
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // Runs, but says why its figures mean little.
    let e = one_cell(&["--samples", "5", "--min-time", "1ns"]);
    assert!(e.contains("warning: --min-time 1ns over 5 samples"), "{e}");
    // The suite's own settings (FAST) draw no warning.
    let e = one_cell(FAST);
    assert!(!e.contains("warning"), "{e}");
}

#[test]
fn plot_destination_is_checked_before_measuring() {
    // A missing directory used to fail only after the whole run.
    let t = std::time::Instant::now();
    let e = fails(&["speed", "sha1", "--plot", "/nonexistent-fastcrypt/x.svg"]);
    assert!(
        e.contains("/nonexistent-fastcrypt: No such file or directory"),
        "{e}"
    );
    let e = fails(&[
        "speed",
        "sha1",
        "--plot",
        std::env::temp_dir().to_str().unwrap(),
    ]);
    assert!(e.contains("is a directory"), "{e}");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "measured first"
    );
    assert!(fails(&["speed", "sha1", "--cpu-ghz", "1e308"]).contains("at most 100"));
}

/// The detecting crates `speed sha1dc` measures, after fastcrypt's rows.
const SHA1DC_PEERS: &[&str] = &["sha1-checked", "sha1collisiondetection", "sha1dc"];

/// sha1dc: `auto`, every fastcrypt backend, plain SHA-1 as the labelled
/// reference and the detecting crates, at 8 B, 1 KiB, 8 KiB and 1 MiB.
#[test]
fn sha1dc_rows_reference_and_peers() {
    let backends = backends_of("sha1dc");
    assert_eq!(backends, sha1_backends(), "Sha1Dc runs on SHA-1's backends");
    let out = speed(&["sha1dc"]);
    assert!(out.contains("auto:      sha1dc -> "), "{out}");
    let impl_of = |l: &str| l.split_whitespace().nth(1).map(str::to_string);
    for row in ["Hash8Bytes", "Hash1K", "Hash8K", "Hash1M"] {
        let lines: Vec<&str> = out
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(row))
            .collect();
        let names: Vec<String> = lines.iter().filter_map(|l| impl_of(l)).collect();
        let mut want = vec!["auto".to_string()];
        want.extend(backends.iter().map(|b| b.0.clone()));
        want.push("sha1".into());
        want.extend(backends.iter().map(|b| format!("sha1-{}", b.0)));
        want.extend(SHA1DC_PEERS.iter().map(|p| p.to_string()));
        assert_eq!(names, want, "{row} rows in\n{out}");
        for (line, name) in lines.iter().zip(&names) {
            let backend = name.strip_prefix("sha1-").unwrap_or(name);
            let available = name == "auto"
                || name == "sha1"
                || SHA1DC_PEERS.contains(&name.as_str())
                || backends.iter().any(|b| b.0 == backend && b.1);
            if available {
                // MB/s is last, or before cycles/B when the clock is known.
                let f: Vec<&str> = line.split_whitespace().collect();
                let mb = f[f.len() - 1 - usize::from(MEASURED)];
                assert!(mb.parse::<f64>().unwrap() > 0.0, "{line}");
            } else {
                assert!(line.contains("n/a (needs "), "{line}");
            }
        }
        let reference = lines[names.iter().position(|n| n == "sha1").unwrap()];
        assert!(
            reference.contains(" sha1 auto (plain, reference) "),
            "{reference}"
        );
        let portable = lines[names.iter().position(|n| n == "sha1-portable").unwrap()];
        assert!(
            portable.contains(" sha1-portable (plain, reference) "),
            "{portable}"
        );
    }
    // No other size by default.
    let rows = out.lines().filter(|l| l.starts_with("Hash")).count();
    assert_eq!(rows, 4 * (1 + 2 * backends.len() + 1 + SHA1DC_PEERS.len()));
}

#[test]
fn sha1dc_json_and_go_names() {
    let out = speed(&["sha1dc", "--sizes", "8,1M", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["auto"]["sha1dc"].is_string());
    let results = v["results"].as_array().unwrap();
    let backends = backends_of("sha1dc");
    assert_eq!(
        results.len(),
        2 * (1 + 2 * backends.len() + 1 + SHA1DC_PEERS.len())
    );
    let find = |size: u64, name: &str| {
        results
            .iter()
            .find(|r| r["size"] == size && r["implementation"] == name)
            .unwrap_or_else(|| panic!("no {size} {name} in\n{out}"))
    };
    for size in [8, 1 << 20] {
        let r = find(size, "sha1");
        assert_eq!(r["origin"], "fastcrypt-reference");
        assert_eq!(r["available"], true);
        for p in SHA1DC_PEERS {
            let r = find(size, p);
            assert!(r["origin"].as_str().unwrap().starts_with("peer:"), "{r}");
            assert_eq!(r["available"], true);
            assert!(r["mb_per_s"].as_f64().unwrap() > 0.0);
        }
    }
    assert_eq!(find(8, "auto")["benchmark"], "Hash8Bytes");
    assert_eq!(
        find(1 << 20, "sha1dc")["go_name"],
        "BenchmarkSHA1DC/Hash1M/sha1dc"
    );
    assert_eq!(find(8, "sha1-checked")["origin"], "peer:rustcrypto");
}

/// The reference row is selected with the fastcrypt rows (`--backend`),
/// and `--compare sha1,auto` reads as the cost of detection.
#[test]
fn sha1dc_selection_and_cost_of_detection() {
    let impls = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("Hash8Bytes"))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    let sized = |args: &[&str]| {
        let mut all = vec!["sha1dc", "--sizes", "8"];
        all.extend_from_slice(args);
        speed(&all)
    };
    let out = sized(&["--backend", "auto", "--peers", "none"]);
    assert_eq!(impls(&out), ["auto"], "{out}");
    let out = sized(&[
        "--backend",
        "sha1",
        "--peers",
        "sha1dc,sha1collisiondetection",
    ]);
    assert_eq!(
        impls(&out),
        ["sha1", "sha1collisiondetection", "sha1dc"],
        "{out}"
    );
    let out = sized(&["--backend", "auto", "--peers", "rustcrypto"]);
    assert_eq!(impls(&out), ["auto", "sha1-checked"], "{out}");

    let out = speed(&["sha1dc", "--sizes", "8,1K", "--compare", "sha1,auto"]);
    assert_eq!(out.lines().filter(|l| l.starts_with("Hash")).count(), 4);
    assert!(
        out.contains("sha1dc: old = sha1 auto (plain, reference), new = auto ("),
        "{out}"
    );
    assert!(out.contains("BenchmarkSHA1DC/Hash1K "), "{out}");
    // Per kernel: the plain row of the same backend.
    let out = speed(&[
        "sha1dc",
        "--sizes",
        "1K",
        "--compare",
        "sha1-portable,portable",
    ]);
    assert!(
        out.contains("sha1dc: old = sha1-portable (plain, reference), new = portable;"),
        "{out}"
    );
    let out = sized(&["--backend", "sha1-portable,portable", "--peers", "none"]);
    assert_eq!(impls(&out), ["portable", "sha1-portable"], "{out}");
    // `sha1` names a row of sha1dc only.
    assert!(fails(&["speed", "sha1", "--backend", "sha1"]).contains("unknown backend `sha1`"));
}

#[test]
fn help_lists_every_algorithm_and_peer_group() {
    let o = fastcrypt(&["speed", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(
        help.contains(
            "Algorithms to measure: sha1, sha1dc, sha1-many, sha1dc-many, hmac-sha1, pbkdf2-sha1, \
             pbkdf2-sha1-many, rc4, ghash, aes-128-gcm"
        ),
        "{help}"
    );
    assert!(help.contains("8,1K,8K,1M (sha1dc)"), "{help}");
    assert!(
        help.contains("64,1K,8K,0,64M (sha1-many, sha1dc-many)"),
        "{help}"
    );
    assert!(
        help.contains("sha1_smol, sha1collisiondetection, sha1dc, `all` or `none`"),
        "{help}"
    );
}

#[test]
fn sweep_skips_algorithms_without_message_sizes() {
    // Alone, pbkdf2-sha1 cannot sweep: a clear error, not minutes of work.
    let err = fails(&["speed", "pbkdf2-sha1", "--sweep"]);
    assert!(
        err.contains("--sweep does not apply to pbkdf2-sha1"),
        "{err}"
    );
    // With others, it is left out and they sweep.
    let out = speed(&[
        "hmac-sha1",
        "pbkdf2-sha1",
        "--sweep",
        "--backend",
        "auto",
        "--peers",
        "none",
    ]);
    assert!(!out.contains("PBKDF2"), "{out}");
    assert!(out.contains("hmac-sha1"), "{out}");
    // Nor the batch form.
    let err = fails(&["speed", "pbkdf2-sha1-many", "--sweep"]);
    assert!(
        err.contains("--sweep does not apply to pbkdf2-sha1-many"),
        "{err}"
    );
    // Nor can the algorithms whose sizes pick message sets.
    let err = fails(&["speed", "sha1-many", "sha1dc-many", "--sweep"]);
    assert!(
        err.contains("--sweep does not apply to sha1-many, sha1dc-many"),
        "{err}"
    );
}

/// pbkdf2-sha1-many in `--list`: key lengths as sizes, the batch, every
/// backend of `Sha1Many`, the one-password reference and the peers.
#[test]
fn pbkdf2_sha1_many_list() {
    use fastcrypt::sha1::many::Backend;
    let o = fastcrypt(&["speed", "--list"]);
    assert!(o.status.success());
    let list = String::from_utf8(o.stdout).unwrap();
    let block: Vec<&str> = list
        .lines()
        .skip_while(|l| !l.starts_with("pbkdf2-sha1-many ("))
        .take_while(|l| l.starts_with("pbkdf2-sha1-many") || l.starts_with(' '))
        .collect();
    assert!(
        block[0].starts_with("pbkdf2-sha1-many (default sizes 20,32; auto picks "),
        "{list}"
    );
    let text = block.join("\n");
    for what in [
        "sizes are key lengths",
        "for each of 64 passwords (PBKDF2_4096_N_x64)",
        "  pbkdf2-sha1    fastcrypt reference    available",
        "  rustcrypto     peer (rustcrypto)",
        "  ring           peer (ring)",
        "  openssl        peer (openssl)",
    ] {
        assert!(text.contains(what), "no {what:?} in\n{text}");
    }
    let want: Vec<(String, bool)> = Backend::ALL
        .iter()
        .map(|b| (b.name().to_string(), b.is_available()))
        .collect();
    let got: Vec<(String, bool)> = backends_of("pbkdf2-sha1-many")
        .into_iter()
        .map(|b| (b.0, b.1))
        .collect();
    assert_eq!(got, want);
}

/// A batch cell measured, and `--compare pbkdf2-sha1,auto`, the batch's
/// speed-up over one password at a time: both rows, the row name with the
/// batch, and MB/s over all 64 keys (one second of CPU at most: one batch
/// is 64 x 8192 compressions).
#[test]
fn pbkdf2_sha1_many_compare() {
    let out = speed(&[
        "pbkdf2-sha1-many",
        "--sizes",
        "20",
        "--compare",
        "pbkdf2-sha1,auto",
        "--format",
        "go",
    ]);
    assert!(out.contains("# auto: pbkdf2-sha1-many -> "), "{out}");
    for row in ["auto", "pbkdf2-sha1"] {
        let name = format!("BenchmarkPBKDF2SHA1Many/PBKDF2_4096_20_x64/{row} ");
        let line = out
            .lines()
            .find(|l| l.starts_with(&name))
            .unwrap_or_else(|| panic!("no {name} in\n{out}"));
        // 64 keys of 20 bytes per operation: MB/s is 1280 bytes over
        // ns/op (in thousandths of a MB/s, printed to two decimals).
        let f: Vec<&str> = line.split_whitespace().collect();
        let ns: f64 = f[2].parse().unwrap();
        let mbs: f64 = f[4].parse().unwrap();
        assert!((mbs - 1280.0 * 1e3 / ns).abs() < 0.011, "{line}");
    }
}

/// The `cycles/B:` header line of a table.
fn cycles_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("cycles/B:"))
        .unwrap_or_else(|| panic!("no cycles/B line in\n{out}"))
}

/// One sha1 cell at 1 KiB, in `format`, with `more` options.
fn one_cell(format: &str, more: &[&str]) -> String {
    let mut args = vec!["sha1", "--sizes", "1K", "--backend", "auto"];
    args.extend_from_slice(&["--peers", "none", "--format", format]);
    args.extend_from_slice(more);
    speed(&args)
}

/// The JSON result of [`one_cell`], checked to be cycles/B = median
/// ns/op x cpu_ghz / size; returns `(cpu_ghz, cpu_ghz_source)`.
fn json_clock(more: &[&str]) -> (f64, String) {
    let out = one_cell("json", more);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ghz = v["cpu_ghz"].as_f64().unwrap_or_else(|| panic!("{out}"));
    let r = &v["results"][0];
    let want = r["ns_per_op"]["median"].as_f64().unwrap() * ghz / 1024.0;
    let got = r["cycles_per_byte"].as_f64().unwrap();
    assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
    (ghz, v["cpu_ghz_source"].as_str().unwrap().to_string())
}

/// By default the clock is measured (x86) and the table has cycles/B.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[test]
fn cycles_per_byte_from_the_measured_clock() {
    let out = one_cell("table", &[]);
    let line = cycles_line(&out);
    assert!(
        line.contains(" GHz, measured: dependent-add loop"),
        "{line}"
    );
    let head = out
        .lines()
        .find(|l| l.starts_with("benchmark"))
        .unwrap_or_else(|| panic!("no table in\n{out}"));
    assert!(head.ends_with("MB/s  cycles/B"), "{head}");
    let row = out.lines().find(|l| l.starts_with("Hash1K")).unwrap();
    let cpb: f64 = row.split_whitespace().last().unwrap().parse().unwrap();
    assert!(cpb > 0.0, "{row}");
    // Plausible, not precise: the host may be loaded.
    let (ghz, source) = json_clock(&[]);
    assert!((0.2..10.0).contains(&ghz), "{ghz} GHz");
    assert_eq!(source, "measured");
    // --no-header keeps the clock beside the column it explains.
    let out = one_cell("table", &["--no-header"]);
    assert!(cycles_line(&out).contains("measured"), "{out}");
    let out = one_cell("markdown", &["--no-header"]);
    assert!(out.contains("; cycles/B: ns/op x core clock; ~"), "{out}");
}

/// Off x86 nothing is measured: no column unless --cpu-ghz.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
#[test]
fn no_cycles_per_byte_without_a_measurement() {
    let out = one_cell("table", &[]);
    assert!(
        cycles_line(&out).contains("not shown: no clock measurement on "),
        "{out}"
    );
    assert!(!out.contains("MB/s  cycles/B"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&one_cell("json", &[])).unwrap();
    assert!(v["cpu_ghz"].is_null() && v["cpu_ghz_source"].is_null());
}

/// `--cpu-ghz 3` states the clock: no measurement, 3 GHz in every format.
#[test]
fn cpu_ghz_states_the_clock() {
    let out = one_cell("table", &["--cpu-ghz", "3"]);
    assert_eq!(
        cycles_line(&out),
        "cycles/B:  ns/op x core clock; 3 GHz, stated (--cpu-ghz)"
    );
    assert!(out.contains("MB/s  cycles/B"), "{out}");
    assert_eq!(json_clock(&["--cpu-ghz", "3"]), (3.0, "stated".into()));
    let out = one_cell("go", &["--cpu-ghz", "3"]);
    for l in out.lines().filter(|l| l.starts_with("Benchmark")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        // ns/op is printed to 3 or 4 digits, cycles/B from the exact one.
        let ns: f64 = f[2].parse().unwrap();
        let cpb: f64 = f[6].parse().unwrap();
        assert_eq!(f[7], "cycles/B", "{l}");
        assert!((cpb / (ns * 3.0 / 1024.0) - 1.0).abs() < 0.01, "{l}");
    }
    let e = fails(&["speed", "sha1", "--cpu-ghz", "fast"]);
    assert!(e.contains("e.g. 3.5 (at most 100), or off"), "{e}");
}

/// `--cpu-ghz off`: no clock, no column, in any format.
#[test]
fn cpu_ghz_off_drops_the_column() {
    let out = one_cell("table", &["--cpu-ghz", "off"]);
    assert_eq!(cycles_line(&out), "cycles/B:  not shown (--cpu-ghz off)");
    assert!(!out.contains("MB/s  cycles/B"), "{out}");
    let out = one_cell("json", &["--cpu-ghz", "off"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["cpu_ghz"].is_null() && v["cpu_ghz_source"].is_null());
    assert!(v["results"][0].get("cycles_per_byte").is_none(), "{out}");
    let out = one_cell("go", &["--cpu-ghz", "off"]);
    assert!(!out.contains(" cycles/B\n"), "{out}");
}

/// The message sets `speed sha1-many` measures: sizes below 1M are 64
/// messages of that length, 0 the git-like set, 1M and more 256 KiB
/// pieces of a buffer that long.
const SETS: &[(&str, &str)] = &[
    ("64", "Many64x64"),
    ("1K", "Many64x1K"),
    ("0", "ManyGit"),
    ("1M", "Pieces256K_1M"),
];

/// `--sizes` for [`SETS`]: the default's kinds of set, but small.
fn set_sizes() -> String {
    SETS.iter().map(|s| s.0).collect::<Vec<_>>().join(",")
}

/// sha1-many in `--list`: its default sets, what they mean, every backend
/// of `Sha1Many` and its rows.
#[test]
fn sha1_many_list() {
    use fastcrypt::sha1::many::Backend;
    let o = fastcrypt(&["speed", "--list"]);
    assert!(o.status.success());
    let list = String::from_utf8(o.stdout).unwrap();
    for algo in ["sha1-many", "sha1dc-many"] {
        let block: Vec<&str> = list
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{algo} (")))
            .take_while(|l| l.starts_with(algo) || l.starts_with(' '))
            .collect();
        assert!(
            block[0].starts_with(&format!(
                "{algo} (default sizes 64,1K,8K,0,64M; auto picks "
            )),
            "{list}"
        );
        let text = block.join("\n");
        for what in [
            "sizes pick message sets",
            "(Many64xN)",
            "a git-like set (ManyGit)",
            "bytes in all, median ",
            "(Pieces256K_N), digest_pieces",
        ] {
            assert!(text.contains(what), "{algo}: no {what:?} in\n{text}");
        }
        // Every backend of the library's list, in its order, runnable
        // where the library says so.
        let backends = backends_of(algo);
        let want: Vec<(String, bool)> = Backend::ALL
            .iter()
            .map(|b| (b.name().to_string(), b.is_available()))
            .collect();
        let got: Vec<(String, bool)> = backends.into_iter().map(|b| (b.0, b.1)).collect();
        assert_eq!(got, want, "{algo}");
    }
    assert!(list.contains("  sha1           fastcrypt reference    available"));
    assert!(list.contains("  sha1-many      fastcrypt reference    available"));
}

/// Every sha1-many row at every kind of set: `auto`, each backend (n/a
/// with what it needs where this CPU lacks it), the one-stream reference
/// and OpenSSL in the same loop.
#[test]
fn sha1_many_rows_and_reference() {
    let backends = backends_of("sha1-many");
    let out = speed(&["sha1-many", "--sizes", &set_sizes()]);
    assert!(out.contains("auto:      sha1-many -> "), "{out}");
    for (_, row) in SETS {
        let lines: Vec<&str> = out
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(row))
            .collect();
        let names: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        let mut want = vec!["auto"];
        want.extend(backends.iter().map(|b| b.0.as_str()));
        want.extend(["sha1", "openssl"]);
        assert_eq!(names, want, "{row} rows in\n{out}");
        for (line, name) in lines.iter().zip(&names) {
            match backends.iter().find(|b| b.0 == *name) {
                Some((_, false, needs)) => {
                    assert!(line.ends_with(&format!("n/a ({needs})")), "{line}");
                }
                _ => {
                    let f: Vec<&str> = line.split_whitespace().collect();
                    let mb = f[f.len() - 1 - usize::from(MEASURED)];
                    assert!(mb.parse::<f64>().unwrap() > 0.0, "{line}");
                }
            }
        }
        let reference = lines[names.iter().position(|n| *n == "sha1").unwrap()];
        assert!(
            reference.contains(" sha1 auto (one stream, reference) "),
            "{reference}"
        );
    }
    // No other set.
    let rows = out
        .lines()
        .filter(|l| l.starts_with("Many") || l.starts_with("Pieces"));
    assert_eq!(rows.count(), SETS.len() * (1 + backends.len() + 2));
}

/// MB/s and cycles/B count every byte of the set, in JSON, CSV and Go
/// lines alike, not the size that names it.
#[test]
fn sha1_many_throughput_counts_the_whole_set() {
    let sizes = set_sizes();
    let out = speed(&[
        "sha1-many",
        "--sizes",
        &sizes,
        "--backend",
        "auto,sha1",
        "--peers",
        "none",
        "--format",
        "json",
        "--cpu-ghz",
        "3",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), SETS.len() * 2, "{out}");
    let mut git_bytes = 0;
    for r in results {
        let size = r["size"].as_u64().unwrap();
        let bytes = r["bytes_per_op"].as_u64().unwrap();
        match size {
            0 => git_bytes = bytes,
            s if s < 1 << 20 => assert_eq!(bytes, 64 * s, "{r}"),
            s => assert_eq!(bytes, s, "{r}"),
        }
        let median = r["ns_per_op"]["median"].as_f64().unwrap();
        let mb = r["mb_per_s"].as_f64().unwrap();
        let want = bytes as f64 * 1e3 / median;
        assert!((mb - want).abs() <= 1e-9 * want, "{r}");
        let cpb = r["cycles_per_byte"].as_f64().unwrap();
        let want = median * 3.0 / bytes as f64;
        assert!((cpb - want).abs() <= 1e-9 * want, "{r}");
        let row = SETS.iter().find(|s| s.1 == r["benchmark"]).unwrap();
        assert_eq!(
            r["go_name"],
            format!(
                "BenchmarkSHA1Many/{}/{}",
                row.1,
                r["implementation"].as_str().unwrap()
            )
        );
    }
    // The git-like set is many objects, well past one of its largest.
    assert!(git_bytes > 1 << 20, "{git_bytes}");
    assert_eq!(
        results
            .iter()
            .filter(|r| r["bytes_per_op"] == git_bytes)
            .count(),
        2
    );

    let out = speed(&[
        "sha1-many",
        "--sizes",
        "1K",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--format",
        "go",
        "--cpu-ghz",
        "3",
    ]);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("Benchmark")).collect();
    assert_eq!(lines.len(), 5, "{out}");
    for l in lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f[0], "BenchmarkSHA1Many/Many64x1K/auto", "{l}");
        let (ns, mb): (f64, f64) = (f[2].parse().unwrap(), f[4].parse().unwrap());
        // ns/op is printed to 3 or 4 digits.
        assert!((mb / (65536e3 / ns) - 1.0).abs() < 0.01, "{l}");
    }

    let out = speed(&[
        "sha1-many",
        "--sizes",
        "64",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--format",
        "csv",
    ]);
    let mut lines = out.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .ends_with(",note,bytes_per_op,aad_bytes"),
        "{out}"
    );
    let row = lines.next().unwrap();
    assert!(row.starts_with("sha1-many,64,Many64x64,auto,"), "{row}");
    // No AAD column value: sha1-many takes none.
    assert!(row.ends_with(",4096,"), "{row}");
}

/// sha1dc-many: detection on every backend, one-stream detection as the
/// reference (the issue's speed-up), plain multi-buffer as the other
/// (the cost of detection), and `--compare` over either.
#[test]
fn sha1dc_many_rows_and_compare() {
    let backends = backends_of("sha1dc-many");
    let out = speed(&["sha1dc-many", "--sizes", "64,0"]);
    for row in ["Many64x64", "ManyGit"] {
        let names: Vec<&str> = out
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(row))
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        let mut want = vec!["auto"];
        want.extend(backends.iter().map(|b| b.0.as_str()));
        want.extend(["sha1dc", "sha1-many"]);
        assert_eq!(names, want, "{row} rows in\n{out}");
    }
    assert!(
        out.contains(" sha1dc auto (one stream, reference) "),
        "{out}"
    );
    assert!(out.contains(" sha1-many auto (plain, reference) "), "{out}");

    let out = speed(&["sha1dc-many", "--sizes", "1K", "--compare", "sha1dc,auto"]);
    assert!(
        out.contains("sha1dc-many: old = sha1dc auto (one stream, reference), new = auto ("),
        "{out}"
    );
    assert!(out.contains("BenchmarkSHA1DCMany/Many64x1K "), "{out}");
    // The reference rows belong to the algorithms that have them.
    assert!(speed(&[
        "sha1-many",
        "--sizes",
        "64",
        "--backend",
        "sha1",
        "--peers",
        "none"
    ])
    .contains(" sha1 auto (one stream, reference) "));
    assert!(
        fails(&["speed", "sha1-many", "--backend", "sha1dc"]).contains("unknown backend `sha1dc`")
    );
}

/// `--plot` draws message sizes only: with sha1 and sha1-many, one file,
/// for sha1.
#[test]
fn plot_leaves_out_message_sets() {
    let d = Scratch::new("plot-sets");
    let svg = d.path("speed.svg");
    let mut args = vec![
        "speed",
        "sha1",
        "sha1-many",
        "--sizes",
        "64,1K",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--plot",
        svg.to_str().unwrap(),
    ];
    args.extend_from_slice(FAST);
    let o = fastcrypt(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("speed-sha1.svg (sha1)"), "{e}");
    assert!(
        e.contains(
            "fastcrypt: --plot: no plot for sha1-many: its sizes pick message sets, not message lengths"
        ),
        "{e}"
    );
    assert!(d.path("speed-sha1.svg").exists());
    assert!(!d.path("speed-sha1-many.svg").exists());
    // A message-length algorithm measured only at size 0 has no point.
    let mut args = vec![
        "speed",
        "sha1",
        "--sizes",
        "0",
        "--backend",
        "auto",
        "--peers",
        "none",
        "--plot",
    ];
    let zero = d.path("zero.svg");
    args.push(zero.to_str().unwrap());
    args.extend_from_slice(FAST);
    let o = fastcrypt(&args);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "fastcrypt: --plot: no plot for sha1: no size above 0 was measured\n"
    );
    assert!(!zero.exists());
    // Nothing to plot at all is an error before measuring.
    let e = fails(&["speed", "sha1-many", "--plot", svg.to_str().unwrap()]);
    assert!(
        e.contains("--plot draws nothing for sha1-many: its sizes pick message sets"),
        "{e}"
    );
}
