//! Output of `fastcrypt speed`: one file per format (`text.rs` writes the
//! table and Markdown, which share their layout), the `--plot` SVG, and
//! here what they share: names, the header lines and the `--compare` rows.

mod csv;
mod go;
mod json;
pub mod plot;
mod text;

use super::algos::Origin;
use super::engine::{paired, Cell};
use super::options::{Format, Pair};
use super::Run;
use crate::machine::name_list;
use crate::oldnew::CmpRow;
use crate::stats::Stats;

pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Table => text::render(run, false),
        Format::Markdown => text::render(run, true),
        Format::Go => go::render(run),
        Format::Json => json::render(run),
        Format::Csv => csv::render(run),
    }
}

pub(super) fn origin_text(o: &Origin) -> String {
    match o {
        Origin::Auto => "fastcrypt".into(),
        Origin::Backend => "fastcrypt-backend".into(),
        Origin::Reference { .. } => "fastcrypt-reference".into(),
        Origin::Peer(g) => format!("peer:{g}"),
    }
}

/// `auto (shani)` for the default choice, `sha1 auto (plain, reference)`
/// or `sha1 auto (one stream, reference)` for a reference row, the name
/// otherwise.
pub(super) fn display_name(run: &Run, c: &Cell) -> String {
    match c.origin {
        Origin::Auto => format!("auto ({})", run.header.auto[c.algo].1),
        Origin::Reference { how, auto: true } => format!("{} auto ({how}, reference)", c.name),
        Origin::Reference { how, auto: false } => format!("{} ({how}, reference)", c.name),
        _ => c.name.to_string(),
    }
}

/// The associated data one operation of cell `c` authenticates, for the
/// algorithms that take `--aad` (0 when it is not given).
pub(super) fn aad_bytes(run: &Run, c: &Cell) -> Option<usize> {
    run.algos[c.algo].takes_aad.then_some(run.header.params.aad)
}

pub(super) fn go_name(run: &Run, c: &Cell) -> String {
    let a = run.algos[c.algo];
    format!(
        "Benchmark{}/{}/{}",
        a.go_family,
        a.row_name(c.size, &run.header.params),
        c.name
    )
}

/// Cycles per byte at the median, over the `bytes` one operation processes.
pub(super) fn cycles_per_byte(run: &Run, s: &Stats, bytes: usize) -> Option<f64> {
    let ghz = run.header.clock.ghz()?;
    (bytes > 0).then(|| s.median * ghz / bytes as f64)
}

/// The header as `(key, value)` lines, for the formats that print it whole.
pub(super) fn header_lines(run: &Run) -> Vec<(&'static str, String)> {
    let h = &run.header;
    let mut v = vec![
        ("cpu", h.cpu.clone()),
        ("features", name_list(&h.features)),
        ("rustc", h.rustc.to_string()),
        ("openssl", h.openssl.to_string()),
        ("date", h.date.clone()),
        (
            "auto",
            h.auto
                .iter()
                .map(|(a, b)| format!("{a} -> {b}"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        ("timing", h.timing(run.rounds, run.interrupted)),
        ("clock", h.plan.clock.describe().to_string()),
        ("cycles/B", h.cycles()),
    ];
    if let Some(aad) = &h.aad {
        v.push(("aad", aad.clone()));
    }
    if let Some(cap) = &h.ia32cap {
        v.push(("OPENSSL_ia32cap", cap.clone()));
    }
    v.push(("command", h.command.clone()));
    v
}

/// `(rounds used, rounds taken, too few quiet rounds)` for each
/// `--compare` row.
pub(super) type RoundsUsed = Vec<(usize, usize, bool)>;

/// The `--compare` rows for one algorithm with the rounds behind each, if
/// the algorithm has both implementations.
pub(super) fn compare_rows(run: &Run, ai: usize) -> Option<(Vec<CmpRow>, RoundsUsed)> {
    let Pair { old: a, new: b } = run.compare.as_ref()?;
    let algo = run.algos[ai];
    let mut rows = Vec::new();
    let mut n = Vec::new();
    let mut sizes: Vec<usize> = run
        .cells
        .iter()
        .filter(|c| c.algo == ai)
        .map(|c| c.size)
        .collect();
    sizes.dedup();
    for size in sizes {
        let find = |name: &str| {
            run.cells
                .iter()
                .find(|c| c.algo == ai && c.size == size && c.name == name)
                .and_then(|c| Some((c.runner()?, c.bytes)))
        };
        let (Some((ra, bytes)), Some((rb, _))) = (find(a), find(b)) else {
            continue;
        };
        let (Some(sa), Some(sb)) = (Stats::of(&ra.samples), Stats::of(&rb.samples)) else {
            continue;
        };
        let Some(p) = paired(&ra.samples, &rb.samples) else {
            continue;
        };
        n.push((p.n, p.total, p.loaded));
        let same = p.p_value >= 0.05;
        rows.push(CmpRow {
            name: format!(
                "Benchmark{}/{}",
                algo.go_family,
                algo.row_name(size, &run.header.params)
            ),
            old_ns: sa.median,
            new_ns: sb.median,
            delta: p.time_ratio - 1.0,
            same,
            mb: sa
                .mb_s(bytes)
                .zip(sb.mb_s(bytes))
                .map(|(x, y)| (x, y, p.speedup)),
            mb_same: same,
        });
    }
    (!rows.is_empty()).then_some((rows, n))
}
