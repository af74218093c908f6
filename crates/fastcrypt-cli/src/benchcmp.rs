//! `fastcrypt benchcmp OLD NEW`: Go's old/new benchmark tables.
//!
//! Reads Go benchmark-format lines (`fastcrypt speed --format go` or
//! `go test -bench` output; other lines are ignored), joins them by name and
//! prints the ns/op table with deltas and the MB/s table with speed-ups,
//! laid out as Go's benchcmp did (`%-*s %12s %12s  %7s`). Several runs of a
//! benchmark in one file are summarised by their median; a delta whose old
//! and new runs' ranges overlap is marked `~`, as benchstat marks changes it
//! cannot tell from noise. A geometric-mean row closes each table.

use crate::gobench::{parse, Parsed};
use crate::oldnew::{self, CmpRow};
use crate::stats::{median, range};
use clap::Args;
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
    for note in old.skipped.iter().chain(&new.skipped) {
        eprintln!("fastcrypt: warning: {note}");
    }
    crate::stdio::print_out(&compare(&old, &new, &args.old, &args.new)?)
}

fn read(path: &Path) -> Result<Parsed, String> {
    // Bytes, not a String: benchmark output may carry other lines in any
    // encoding (a test's log, a locale's quotes), and only `Benchmark`
    // lines, which are ASCII, matter.
    let bytes = std::fs::read(path).map_err(|e| {
        format!(
            "{}: cannot read: {}",
            path.display(),
            crate::stdio::os_message(&e)
        )
    })?;
    parse(&String::from_utf8_lossy(&bytes), path)
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
    let mut out = oldnew::render(&rows, false, RANGES_OVERLAP);
    // What one file has and the other lacks is said, not dropped: a
    // backend that exists on one machine only, a benchmark renamed.
    for (path, this, other) in [(old_path, old, new), (new_path, new, old)] {
        let only: Vec<&str> = this
            .order
            .iter()
            .filter(|n| !other.runs.contains_key(*n))
            .map(String::as_str)
            .collect();
        if !only.is_empty() {
            out.push_str(&format!(
                "\nonly in {} (not compared): {}\n",
                path.display(),
                only.join(" ")
            ));
        }
    }
    Ok(out)
}

/// What `~` means in benchcmp's tables.
const RANGES_OVERLAP: &str = "within noise (old and new runs overlap), not a measured change";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_noise() {
        let p = Path::new("x");
        let old = parse(
            "BenchmarkA 10 100 ns/op\nBenchmarkA 10 110 ns/op\nBenchmarkA 10 105 ns/op\n",
            p,
        )
        .unwrap();
        let new = parse("BenchmarkA 10 104 ns/op\nBenchmarkA 10 108 ns/op\n", p).unwrap();
        assert!(overlaps(
            &old.runs["BenchmarkA"].ns,
            &new.runs["BenchmarkA"].ns
        ));
        let out = compare(&old, &new, p, p).unwrap();
        assert!(out.contains("+0.95% ~"), "{out}");
    }
}
