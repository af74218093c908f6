//! Go's old/new benchmark tables (ns/op with deltas, MB/s with speed-ups),
//! laid out as Go's benchcmp did (`%-*s %12s %12s  %7s`): what `benchcmp`
//! prints for two files and `speed --compare` for two implementations.

use crate::stats::geomeans;
use crate::table::{ns_text, Col, Table};

/// One row of the two tables.
#[derive(Clone, Debug)]
pub struct CmpRow {
    /// The benchmark's name.
    pub name: String,
    /// The old side's ns/op (median).
    pub old_ns: f64,
    /// The new side's ns/op (median).
    pub new_ns: f64,
    /// new/old time - 1, e.g. -0.4612.
    pub delta: f64,
    /// Whether the difference is within noise (`~`).
    pub same: bool,
    /// (old MB/s, new MB/s, speed-up) when both sides report MB/s.
    pub mb: Option<(f64, f64, f64)>,
    /// Whether the MB/s difference is within noise (`~`).
    pub mb_same: bool,
}

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
    if let Some([go, gn, gr]) = geomeans(rows.iter().map(|r| [r.old_ns, r.new_ns, r.delta + 1.0])) {
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
    if let Some([ga, gb, gs]) = geomeans(mb_rows.iter().map(|(_, m)| [m.0, m.1, m.2])) {
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
