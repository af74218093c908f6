//! `fastcrypt benchcmp OLD NEW`: Go's old/new benchmark tables.
//!
//! Reads Go benchmark-format lines (`fastcrypt speed --format go` or
//! `go test -bench` output; other lines are ignored), joins them by name and
//! prints the ns/op table with deltas and the MB/s table with speed-ups,
//! laid out as Go's benchcmp did (`%-*s %12s %12s  %7s`). Several runs of a
//! benchmark in one file are summarised by their median; a delta whose old
//! and new runs' ranges overlap is marked `~`, as benchstat marks changes it
//! cannot tell from noise. A geometric-mean row closes each table.

use crate::speed::table::{Col, Table};
use clap::Args;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Options of `fastcrypt benchcmp`.
#[derive(Args, Debug)]
pub struct BenchcmpArgs {
    /// Go benchmark output of the old code.
    old: PathBuf,
    /// Go benchmark output of the new code.
    new: PathBuf,
}

pub fn run(args: BenchcmpArgs) -> Result<(), String> {
    let old = read(&args.old)?;
    let new = read(&args.new)?;
    print!("{}", compare(&old, &new, &args.old, &args.new)?);
    Ok(())
}

/// One benchmark's runs from one file, in file order.
#[derive(Debug, Default, Clone)]
pub struct Runs {
    pub ns: Vec<f64>,
    pub mb: Vec<f64>,
}

/// A parsed file: benchmark names in first-seen order, with their runs.
#[derive(Debug, Default)]
pub struct Parsed {
    pub order: Vec<String>,
    pub runs: HashMap<String, Runs>,
}

fn read(path: &Path) -> Result<Parsed, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse(&text, path)
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
        let ns = ns.ok_or_else(|| bad("no ns/op value"))?;
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

/// One row of the two tables.
#[derive(Clone, Debug)]
pub struct CmpRow {
    pub name: String,
    pub old_ns: f64,
    pub new_ns: f64,
    /// new/old time - 1, e.g. -0.4612.
    pub delta: f64,
    /// Whether the difference is within noise (`~`).
    pub same: bool,
    /// (old MB/s, new MB/s, speed-up) when both sides report MB/s.
    pub mb: Option<(f64, f64, f64)>,
    pub mb_same: bool,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn range(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// Whether two sets of runs cannot be told apart: with repeated runs on at
/// least one side, their ranges overlap. Single runs are always compared.
fn overlaps(a: &[f64], b: &[f64]) -> bool {
    if a.len() < 2 && b.len() < 2 {
        return false;
    }
    let (alo, ahi) = range(a);
    let (blo, bhi) = range(b);
    alo <= bhi && blo <= ahi
}

pub fn compare(
    old: &Parsed,
    new: &Parsed,
    old_path: &Path,
    new_path: &Path,
) -> Result<String, String> {
    if old.order.is_empty() {
        return Err(format!("{}: no benchmark lines", old_path.display()));
    }
    if new.order.is_empty() {
        return Err(format!("{}: no benchmark lines", new_path.display()));
    }
    let mut rows = Vec::new();
    for name in &old.order {
        let Some(n) = new.runs.get(name) else {
            continue;
        };
        let o = &old.runs[name];
        let (old_ns, new_ns) = (median(&o.ns), median(&n.ns));
        let mb = (!o.mb.is_empty() && !n.mb.is_empty()).then(|| {
            let (a, b) = (median(&o.mb), median(&n.mb));
            (a, b, b / a)
        });
        rows.push(CmpRow {
            name: name.clone(),
            old_ns,
            new_ns,
            delta: new_ns / old_ns - 1.0,
            same: overlaps(&o.ns, &n.ns),
            mb,
            mb_same: overlaps(&o.mb, &n.mb),
        });
    }
    if rows.is_empty() {
        return Err(format!(
            "no benchmark in common between {} and {}",
            old_path.display(),
            new_path.display()
        ));
    }
    Ok(render(&rows, false, RANGES_OVERLAP))
}

/// Go's `prettyPrint` for ns/op: integers from 100 up, then three or four
/// significant digits.
pub fn ns_text(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        "0".into()
    } else if a >= 99.95 {
        format!("{x:.0}")
    } else if a >= 9.995 {
        format!("{x:.1}")
    } else if a >= 0.9995 {
        format!("{x:.2}")
    } else if a >= 0.099995 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

fn geomean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = v
        .filter(|x| *x > 0.0 && x.is_finite())
        .fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

/// What `~` means in benchcmp's tables.
pub const RANGES_OVERLAP: &str = "within noise (old and new runs overlap), not a measured change";

/// The two tables, as text or Markdown. `~` follows a delta or speed-up
/// that is within noise; `noise` says what that means, below the tables.
pub fn render(rows: &[CmpRow], markdown: bool, noise: &str) -> String {
    // Unmarked values get two trailing spaces when others carry ` ~`, so
    // the numbers stay aligned (trailing blanks are trimmed at line end).
    let any_ns = rows.iter().any(|r| r.same);
    let any_mb = rows.iter().any(|r| r.mb.is_some() && r.mb_same);
    let mark = |s: String, same: bool, any: bool| match (same, any) {
        (true, _) => format!("{s} ~"),
        (false, true) => format!("{s}  "),
        (false, false) => s,
    };
    let name_col = |h: &str| Col::left(h).sep("");
    let num = |h: &str| Col::right(h).width(12).sep(" ");
    let last = |h: &str| Col::right(h).width(7).sep("  ");

    let mut t = Table::new(vec![
        name_col("benchmark"),
        num("old ns/op"),
        num("new ns/op"),
        last("delta"),
    ]);
    for r in rows {
        t.row(vec![
            r.name.clone(),
            ns_text(r.old_ns),
            ns_text(r.new_ns),
            mark(format!("{:+.2}%", r.delta * 100.0), r.same, any_ns),
        ]);
    }
    if let (Some(go), Some(gn), Some(gr)) = (
        geomean(rows.iter().map(|r| r.old_ns)),
        geomean(rows.iter().map(|r| r.new_ns)),
        geomean(rows.iter().map(|r| r.delta + 1.0)),
    ) {
        t.row(vec![
            "[Geo mean]".into(),
            ns_text(go),
            ns_text(gn),
            mark(format!("{:+.2}%", (gr - 1.0) * 100.0), false, any_ns),
        ]);
    }

    let mb_rows: Vec<(&CmpRow, (f64, f64, f64))> =
        rows.iter().filter_map(|r| r.mb.map(|m| (r, m))).collect();
    let mut m = Table::new(vec![
        name_col("benchmark"),
        num("old MB/s"),
        num("new MB/s"),
        last("speedup"),
    ]);
    for (r, (a, b, s)) in &mb_rows {
        m.row(vec![
            r.name.clone(),
            format!("{a:.2}"),
            format!("{b:.2}"),
            mark(format!("{s:.2}x"), r.mb_same, any_mb),
        ]);
    }
    if let (Some(ga), Some(gb), Some(gs)) = (
        geomean(mb_rows.iter().map(|(_, m)| m.0)),
        geomean(mb_rows.iter().map(|(_, m)| m.1)),
        geomean(mb_rows.iter().map(|(_, m)| m.2)),
    ) {
        m.row(vec![
            "[Geo mean]".into(),
            format!("{ga:.2}"),
            format!("{gb:.2}"),
            mark(format!("{gs:.2}x"), false, any_mb),
        ]);
    }

    let render = |t: &Table| if markdown { t.markdown() } else { t.text() };
    let mut out = render(&t);
    if !mb_rows.is_empty() {
        if markdown {
            out.push('\n');
        }
        out.push_str(&render(&m));
    }
    if any_ns || any_mb {
        out.push_str(if markdown { "\n" } else { "" });
        out.push_str(&format!("~: {noise}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_ns() {
        assert_eq!(ns_text(774.0), "774");
        assert_eq!(ns_text(48394.4), "48394");
        assert_eq!(ns_text(68.25), "68.2");
        assert_eq!(ns_text(5.123), "5.12");
    }

    #[test]
    fn medians_and_noise() {
        let p = Path::new("x");
        let old = parse(
            "BenchmarkA 10 100 ns/op\nBenchmarkA 10 110 ns/op\nBenchmarkA 10 105 ns/op\n",
            p,
        )
        .unwrap();
        let new = parse("BenchmarkA 10 104 ns/op\nBenchmarkA 10 108 ns/op\n", p).unwrap();
        assert_eq!(median(&old.runs["BenchmarkA"].ns), 105.0);
        assert!(overlaps(
            &old.runs["BenchmarkA"].ns,
            &new.runs["BenchmarkA"].ns
        ));
        let out = compare(&old, &new, p, p).unwrap();
        assert!(out.contains("+0.95% ~"), "{out}");
    }

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
}
