//! The table and Markdown formats: the header, one table per algorithm,
//! the `--compare` tables and, in Markdown, links to the plots.

use super::super::engine::{Cell, State};
use super::{compare_rows, cycles_per_byte, display_name, header_lines, Run};
use crate::oldnew;
use crate::table::{ns_text, Col, Table};
use std::fmt::Write as _;

pub fn render(run: &Run, md: bool) -> String {
    let mut out = String::new();
    let render = |t: &Table| if md { t.markdown() } else { t.text() };
    if !run.header.full {
        let timing = run.header.timing(run.rounds, run.interrupted);
        let timing = match &run.header.ia32cap {
            Some(cap) => format!("{timing}; OPENSSL_ia32cap={cap}"),
            None => timing,
        };
        // The clock behind a cycles/B column, which differs from run to
        // run when measured.
        let cycles = run.header.clock.ghz().map(|_| run.header.cycles());
        if md {
            let cycles = cycles.map_or(String::new(), |c| format!("; cycles/B: {c}"));
            let _ = writeln!(out, "Command: `{}`; {timing}{cycles}.", run.header.command);
        } else {
            let _ = writeln!(
                out,
                "command:   {}\ntiming:    {timing}",
                run.header.command
            );
            if let Some(c) = cycles {
                let _ = writeln!(out, "cycles/B:  {c}");
            }
        }
    } else if md {
        out.push_str("Measured by `fastcrypt speed`:\n\n");
        for (k, v) in header_lines(run) {
            let _ = writeln!(out, "- **{k}**: {}", md_code_if_command(k, &v));
        }
    } else {
        for (k, v) in header_lines(run) {
            let _ = writeln!(out, "{:<10} {v}", format!("{k}:"));
        }
    }
    for (ai, algo) in run.algos.iter().enumerate() {
        let cells: Vec<&Cell> = run.cells.iter().filter(|c| c.algo == ai).collect();
        if cells.is_empty() {
            continue;
        }
        out.push('\n');
        if md {
            let _ = writeln!(out, "### {}\n", algo.name);
        } else {
            let _ = writeln!(out, "{}", algo.name);
        }
        let t = if run.sweep {
            sweep_table(run, &cells)
        } else {
            main_table(run, &cells)
        };
        out.push_str(&render(&t));
        if run.sweep {
            let na: Vec<String> = cells
                .iter()
                .filter(|c| c.size == 0)
                .filter_map(|c| match &c.state {
                    State::NotAvailable(why) => Some(format!("{} ({why})", c.name)),
                    State::Runnable(_) => None,
                })
                .collect();
            if !na.is_empty() {
                let _ = writeln!(out, "{}n/a: {}", if md { "\n" } else { "" }, na.join(", "));
            }
        }
        if let Some(section) = compare_section(run, ai, md) {
            out.push_str(&section);
        }
    }
    if md {
        if let Some(p) = &run_plot(run) {
            out.push_str(p);
        }
    }
    out
}

/// Markdown image links for the plots, when `--plot` was given.
fn run_plot(run: &Run) -> Option<String> {
    let files = run.plot_files.as_ref()?;
    let mut s = String::from("\n");
    for (file, algo) in files {
        let _ = writeln!(
            s,
            "![{algo}: MB/s against message size]({})\n",
            file.display()
        );
    }
    Some(s)
}

fn md_code_if_command(k: &str, v: &str) -> String {
    if k == "command" {
        format!("`{v}`")
    } else {
        v.to_string()
    }
}

fn main_table(run: &Run, cells: &[&Cell]) -> Table {
    let ghz = run.header.clock.ghz().is_some();
    let mut cols = vec![
        Col::left("benchmark"),
        Col::left("impl"),
        Col::right("ns/op"),
        Col::right("min"),
        Col::right("max"),
        Col::right("MB/s"),
    ];
    if ghz {
        cols.push(Col::right("cycles/B"));
    }
    let mut t = Table::new(cols);
    let algo = run.algos[cells[0].algo];
    for c in cells {
        let lead = vec![
            algo.row_name(c.size, &run.header.params),
            display_name(run, c),
        ];
        match (&c.state, c.stats()) {
            (State::NotAvailable(why), _) => t.note(lead, format!("n/a ({why})")),
            (_, None) => t.note(lead, "not measured".into()),
            (_, Some(s)) => {
                let mut row = lead;
                row.push(ns_text(s.median));
                row.push(ns_text(s.min));
                row.push(ns_text(s.max));
                row.push(s.mb_s(c.bytes).map_or("-".into(), |m| format!("{m:.2}")));
                if ghz {
                    row.push(
                        cycles_per_byte(run, &s, c.bytes).map_or("-".into(), |x| format!("{x:.2}")),
                    );
                }
                t.row(row);
            }
        }
    }
    t
}

/// One row per size, every runnable implementation's µs/op and MB/s side by
/// side.
fn sweep_table(run: &Run, cells: &[&Cell]) -> Table {
    let mut names: Vec<(&'static str, String)> = Vec::new();
    for c in cells {
        if c.runner().is_some() && !names.iter().any(|(n, _)| *n == c.name) {
            names.push((c.name, display_name(run, c)));
        }
    }
    let mut cols = vec![Col::right("bytes"), Col::right("blocks")];
    for (_, shown) in &names {
        cols.push(Col::right(&format!("{shown} µs/op")).sep("   "));
        cols.push(Col::right(&format!("{shown} MB/s")));
    }
    let mut t = Table::new(cols);
    let mut sizes: Vec<usize> = cells.iter().map(|c| c.size).collect();
    sizes.dedup();
    for size in sizes {
        let mut row = vec![size.to_string(), (size / 16).to_string()];
        for (name, _) in &names {
            let cell = cells.iter().find(|c| c.size == size && c.name == *name);
            match cell.and_then(|c| Some((c.stats()?, c.bytes))) {
                Some((s, bytes)) => {
                    row.push(format!("{:.4}", s.median / 1e3));
                    row.push(s.mb_s(bytes).map_or("-".into(), |m| format!("{m:.2}")));
                }
                None => {
                    row.push("-".into());
                    row.push("-".into());
                }
            }
        }
        t.row(row);
    }
    t
}

/// The `--compare` tables of algorithm `ai` (a title, then old/new in
/// ns/op and in MB/s), if it has the pair.
pub(super) fn compare_section(run: &Run, ai: usize, md: bool) -> Option<String> {
    let algo = run.algos[ai];
    let rows = compare_rows(run, ai)?;
    let mut out = String::new();
    let pair = run.compare.as_ref().expect("compare rows need --compare");
    let name_of = |n: &str| match run.cells.iter().find(|c| c.algo == ai && c.name == n) {
        Some(c) => display_name(run, c),
        None => n.to_string(),
    };
    let used: Vec<String> = rows
        .1
        .iter()
        .map(|(n, t, loaded)| format!("{n}/{t}{}", if *loaded { "*" } else { "" }))
        .collect();
    let loaded_note = match rows.1.iter().any(|r| r.2) {
        false => "",
        // Few rounds because Ctrl-C came early, not because of load.
        true if run.interrupted => {
            "; *: too few rounds to tell quiet from loaded ones, every round used: the run was interrupted"
        }
        true => {
            "; *: too few quiet rounds, every round used: the machine was loaded throughout, rerun"
        }
    };
    let title = format!(
        "{}: old = {}, new = {}; delta, speedup: medians of per-round paired ratios over quiet rounds (used/taken: {}){loaded_note}",
        algo.name,
        name_of(&pair.old),
        name_of(&pair.new),
        used.join(", ")
    );
    if md {
        let _ = writeln!(out, "\n#### {title}\n");
    } else {
        let _ = writeln!(out, "\n{title}:");
    }
    out.push_str(&oldnew::render(
        &rows.0,
        md,
        "not supported by a sign test over the paired rounds (p >= 0.05)",
    ));
    Some(out)
}
