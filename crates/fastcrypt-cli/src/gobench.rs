//! Go benchmark-format result lines, both ways: `fastcrypt speed --format
//! go` writes them ([`result_line`]), `fastcrypt benchcmp` reads them
//! ([`parse`]), as benchstat and Go's benchcmp do.
//!
//! Uses only `crate::table` (for the ns/op number format) and std: the
//! fuzz target fuzz/fuzz_targets/benchcmp_parse.rs includes both files
//! with `#[path]` and checks that every line [`result_line`] writes parses
//! back, so this must not use other modules of the crate.

use crate::table::ns_text;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// One benchmark's runs from one file, in file order.
#[derive(Debug, Default, Clone)]
pub struct Runs {
    /// ns/op of each run.
    pub ns: Vec<f64>,
    /// MB/s of each run that reported it.
    pub mb: Vec<f64>,
}

/// A parsed file: benchmark names in first-seen order, with their runs.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Benchmark names, in the order the file first names them.
    pub order: Vec<String>,
    /// The runs of each benchmark.
    pub runs: HashMap<String, Runs>,
    /// Benchmark lines that carry no time, each with its file, line and
    /// why: Go's status lines (`BenchmarkX-8  --- FAIL: BenchmarkX-8`)
    /// and results whose ns/op the benchmark suppressed
    /// (`b.ReportMetric(0, "ns/op")`). Skipped, as benchstat skips them,
    /// for the caller to warn about.
    pub skipped: Vec<String>,
}

/// One result line: `NAME  ITERS  NS ns/op`, with, when the operation
/// has a size and took time, `MB/s` and, when the clock rate is known,
/// `cycles/B` (Go's `-benchmem`-style extra value-unit pairs). The name is
/// padded to `width` so the columns of a run line up.
pub fn result_line(
    name: &str,
    width: usize,
    iters: u64,
    ns: f64,
    size: usize,
    ghz: Option<f64>,
) -> String {
    let mut line = format!("{name:<width$}  {iters:>10}  {:>10} ns/op", ns_text(ns));
    if size > 0 && ns > 0.0 {
        let _ = write!(line, "  {:>10.2} MB/s", size as f64 * 1e3 / ns);
        if let Some(g) = ghz {
            let _ = write!(line, "  {:>8.2} cycles/B", ns * g / size as f64);
        }
    }
    line
}

/// Parses Go benchmark lines: `Name  iterations  value unit  value unit...`.
/// A line counts as a benchmark result when its first field starts with
/// `Benchmark` and more fields follow (Go's `-v` prints bare names too).
pub fn parse(text: &str, path: &Path) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(name) = fields.first() else { continue };
        if !name.starts_with("Benchmark") || fields.len() < 2 {
            continue;
        }
        let bad = |why: &str| {
            format!(
                "{}:{}: malformed benchmark line ({why}): {}",
                path.display(),
                i + 1,
                line.trim()
            )
        };
        let skip = |why: &str| {
            format!(
                "{}:{}: {why}, skipped: {}",
                path.display(),
                i + 1,
                line.trim()
            )
        };
        if fields[1].starts_with("---") {
            out.skipped.push(skip("a status line, not a result"));
            continue;
        }
        if fields[1].parse::<u64>().is_err() {
            return Err(bad("second field is not an iteration count"));
        }
        let rest = &fields[2..];
        if !rest.len().is_multiple_of(2) {
            return Err(bad("expected value-unit pairs after the iteration count"));
        }
        let mut ns = None;
        let mut mb = None;
        for pair in rest.chunks(2) {
            let v: f64 = pair[0]
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| bad(&format!("`{}` is not a number", pair[0])))?;
            match pair[1] {
                "ns/op" => ns = Some(v),
                "MB/s" => mb = Some(v),
                _ => {}
            }
        }
        let Some(ns) = ns else {
            out.skipped.push(skip("no ns/op value"));
            continue;
        };
        let name = name.to_string();
        let runs = out.runs.entry(name.clone()).or_insert_with(|| {
            out.order.push(name);
            Runs::default()
        });
        runs.ns.push(ns);
        runs.mb.extend(mb);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_name_file_and_line() {
        let e = parse("ok\nBenchmarkX 12 abc ns/op\n", Path::new("f.txt")).unwrap_err();
        assert!(e.starts_with("f.txt:2: malformed"), "{e}");
        // Go -v name lines and other text are ignored.
        assert!(parse("BenchmarkX\nPASS\n", Path::new("f"))
            .unwrap()
            .order
            .is_empty());
    }

    #[test]
    fn result_lines_parse_back() {
        let text = [
            result_line(
                "BenchmarkSHA1/Hash8K/shani",
                30,
                1000,
                2345.6,
                8192,
                Some(3.5),
            ),
            result_line("BenchmarkSHA1/Hash8K/shani", 30, 1000, 2349.0, 8192, None),
            result_line("BenchmarkX/0/auto", 30, 5, 0.0, 0, None),
        ]
        .join("\n");
        let p = parse(&text, Path::new("f")).unwrap();
        assert_eq!(p.order, ["BenchmarkSHA1/Hash8K/shani", "BenchmarkX/0/auto"]);
        let r = &p.runs["BenchmarkSHA1/Hash8K/shani"];
        assert_eq!(
            (r.ns.as_slice(), r.mb.as_slice()),
            (&[2346.0, 2349.0][..], &[3492.5, 3487.44][..])
        );
        assert_eq!(p.runs["BenchmarkX/0/auto"].ns, [0.0]);
    }
}
