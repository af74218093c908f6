//! `fastcrypt benchcmp` input (crates/fastcrypt-cli/src/gobench.rs): any
//! text parses to well-formed runs or to an error naming a real benchmark
//! line, never a panic; and the lines `fastcrypt speed --format go` writes
//! (`gobench::result_line`), among its header and `n/a` lines, parse back
//! to their names, in order, and their values within the printed rounding.
#![no_main]

// The CLI's Go-format module and the number format it uses, compiled in
// as they are (see sha1_check_line.rs for why not through the binary
// crate).
#[path = "../../crates/fastcrypt-cli/src/gobench.rs"]
mod gobench;
#[allow(dead_code)]
#[path = "../../crates/fastcrypt-cli/src/table.rs"]
mod table;

use gobench::{parse, result_line, Parsed};
use libfuzzer_sys::arbitrary::{self, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|input: &[u8]| {
    any_text(&String::from_utf8_lossy(input));
    let _ = our_lines(&mut Unstructured::new(input));
});

/// Whether `line` is one `parse` must take as a result: first field
/// `Benchmark...` and something after it.
fn is_result(line: &str) -> bool {
    let mut f = line.split_whitespace();
    f.next().is_some_and(|n| n.starts_with("Benchmark")) && f.next().is_some()
}

fn any_text(text: &str) {
    match parse(text, Path::new("old.txt")) {
        Ok(p) => {
            check_shape(&p);
            // Every result line is a run or a skipped line.
            let runs: usize = p.runs.values().map(|r| r.ns.len()).sum();
            assert_eq!(
                runs + p.skipped.len(),
                text.lines().filter(|l| is_result(l)).count()
            );
        }
        Err(e) => {
            // `old.txt:N: malformed benchmark line (why): line`
            let rest = e.strip_prefix("old.txt:").expect(&e);
            let (n, rest) = rest.split_once(':').expect(&e);
            assert!(rest.starts_with(" malformed benchmark line ("), "{e}");
            let n: usize = n.parse().expect(&e);
            let line = text.lines().nth(n - 1).expect("error names no line");
            assert!(is_result(line), "{e} names a line that is not a result");
            assert!(e.ends_with(line.trim()), "{e}");
        }
    }
}

/// What any successful parse holds.
fn check_shape(p: &Parsed) {
    assert_eq!(p.order.len(), p.runs.len());
    for (i, name) in p.order.iter().enumerate() {
        assert!(name.starts_with("Benchmark"));
        assert!(!p.order[..i].contains(name), "{name} listed twice");
        let r = &p.runs[name];
        assert!(!r.ns.is_empty() && r.mb.len() <= r.ns.len());
        for v in r.ns.iter().chain(&r.mb) {
            assert!(v.is_finite() && *v >= 0.0, "{name}: {v}");
        }
    }
}

/// Characters of generated benchmark names (Go names hold no blanks).
const NAME_CHARS: &[u8] = b"ABCKabcxyz0123456789/_-.()=";

/// Lines as `speed --format go` writes them, parsed back.
fn our_lines(u: &mut Unstructured) -> arbitrary::Result<()> {
    let width = u.int_in_range(0..=48)?;
    let ghz = if u.arbitrary()? {
        Some(u.int_in_range(500..=6000u32)? as f64 / 1000.0)
    } else {
        None
    };
    let mut text = String::from("goos: linux\ngoarch: amd64\npkg: fastcrypt\ncpu: AMD EPYC\n");
    text.push_str("# date: 2026-11-30\n");
    // (name, ns, MB/s if printed), in file order.
    let mut want: Vec<(String, f64, Option<f64>)> = Vec::new();
    for _ in 0..u.int_in_range(1..=8)? {
        let name = if !want.is_empty() && u.arbitrary()? {
            want[u.choose_index(want.len())?].0.clone()
        } else {
            let mut n = String::from("Benchmark");
            for _ in 0..u.int_in_range(0..=16)? {
                n.push(NAME_CHARS[u.choose_index(NAME_CHARS.len())?] as char);
            }
            n
        };
        if u.ratio(1, 8)? {
            text.push_str(&format!("# {name}: n/a (not on this CPU)\n"));
            continue;
        }
        let iters: u64 = u.arbitrary()?;
        // 0 ns (an empty run) up to 10^12 ns, in steps of 1 ps.
        let ns = u.int_in_range(0..=1_000_000_000_000_000u64)? as f64 / 1000.0;
        let size = u.int_in_range(0..=1usize << 24)?;
        text.push_str(&result_line(&name, width, iters, ns, size, ghz));
        text.push('\n');
        let mb = (size > 0 && ns > 0.0).then(|| size as f64 * 1e3 / ns);
        want.push((name, ns, mb));
    }
    let p = parse(&text, Path::new("new.txt")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check_shape(&p);
    let mut order: Vec<&String> = Vec::new();
    for (name, _, _) in &want {
        if !order.contains(&name) {
            order.push(name);
        }
    }
    assert!(p.order.iter().eq(order.iter().copied()), "{text}");
    for name in order {
        let r = &p.runs[name];
        let (ns, mb): (Vec<f64>, Vec<f64>) = {
            let mine = want.iter().filter(|w| &w.0 == name);
            (
                mine.clone().map(|w| w.1).collect(),
                mine.filter_map(|w| w.2).collect(),
            )
        };
        assert_eq!((r.ns.len(), r.mb.len()), (ns.len(), mb.len()), "{text}");
        // ns/op is printed to 3 or 4 significant digits, or to the unit
        // from 100 on (at worst 0.5% off, or 0.00005 for tiny values),
        // MB/s to 0.01.
        for (got, want) in r.ns.iter().zip(&ns) {
            assert!(
                (got - want).abs() <= want * 5e-3 + 5e-5,
                "{name}: {got} vs {want}\n{text}"
            );
        }
        for (got, want) in r.mb.iter().zip(&mb) {
            assert!(
                (got - want).abs() <= 5e-3 + want * 1e-12,
                "{name}: {got} vs {want}\n{text}"
            );
        }
    }
    Ok(())
}
