//! Output of `fastcrypt speed`: table, go, json, csv and markdown, the
//! `--compare` and `--sweep` tables, and the `--plot` SVG.

use super::algos::Origin;
use super::engine::{self, Cell, State, Stats};
use super::table::{Col, Table};
use super::{size_text, Format, Run};
use crate::benchcmp::{self, ns_text, CmpRow};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Table => text(run, false),
        Format::Markdown => text(run, true),
        Format::Go => go(run),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&json_value(run)).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => csv(run),
    }
}

fn origin_text(o: &Origin) -> String {
    match o {
        Origin::Auto => "fastcrypt".into(),
        Origin::Backend => "fastcrypt-backend".into(),
        Origin::Peer(g) => format!("peer:{g}"),
    }
}

/// `auto (shani)` for the default choice, the name otherwise.
fn display_name(run: &Run, c: &Cell) -> String {
    match c.origin {
        Origin::Auto => format!("auto ({})", run.header.auto[c.algo].1),
        _ => c.name.to_string(),
    }
}

fn go_name(run: &Run, c: &Cell) -> String {
    let a = run.algos[c.algo];
    format!(
        "Benchmark{}/{}/{}",
        a.go_family,
        (a.row_name)(c.size),
        c.name
    )
}

fn cycles_per_byte(run: &Run, s: &Stats, size: usize) -> Option<f64> {
    let ghz = run.header.cpu_ghz?;
    (size > 0).then(|| s.median * ghz / size as f64)
}

fn header_lines(run: &Run) -> Vec<(&'static str, String)> {
    let h = &run.header;
    let mut v = vec![
        ("cpu", h.cpu.clone()),
        ("features", h.features.clone()),
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
        (
            "timing",
            format!(
                "median [min, max] of {} interleaved samples per cell, ~{} each (--min-time {}); MB/s = 10^6 bytes/s",
                if run.rounds > h.plan.samples {
                    format!("{} (--samples {}, more rounds for --compare's load filter)", run.rounds, h.plan.samples)
                } else {
                    run.rounds.to_string()
                },
                duration_text(h.plan.sample_time()),
                duration_text(h.plan.min_time)
            ),
        ),
        ("clock", h.plan.clock.describe().to_string()),
        (
            "cycles/B",
            match h.cpu_ghz {
                Some(g) => format!("ns/op x {g} GHz (--cpu-ghz, the clock you stated)"),
                None => "not shown: no known fixed core clock (see --cpu-ghz in --help)".into(),
            },
        ),
    ];
    if let Some(cap) = &h.ia32cap {
        v.push(("OPENSSL_ia32cap", cap.clone()));
    }
    v.push(("command", h.command.clone()));
    v
}

fn duration_text(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{}s", trim_float(s))
    } else if s >= 1e-3 {
        format!("{}ms", trim_float(s * 1e3))
    } else {
        format!("{}us", trim_float(s * 1e6))
    }
}

fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn text(run: &Run, md: bool) -> String {
    let mut out = String::new();
    let render = |t: &Table| if md { t.markdown() } else { t.text() };
    if !run.header.full {
        let timing = header_lines(run)
            .into_iter()
            .find(|(k, _)| *k == "timing")
            .map(|(_, v)| v)
            .unwrap_or_default();
        let timing = match &run.header.ia32cap {
            Some(cap) => format!("{timing}; OPENSSL_ia32cap={cap}"),
            None => timing,
        };
        if md {
            let _ = writeln!(out, "Command: `{}`; {timing}.", run.header.command);
        } else {
            let _ = writeln!(
                out,
                "command:   {}\ntiming:    {timing}",
                run.header.command
            );
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
        if let Some(rows) = compare_rows(run, ai) {
            let (a, b) = run.compare.as_ref().expect("compare rows need --compare");
            let name_of = |n: &str| {
                if n == "auto" {
                    format!("auto ({})", run.header.auto[ai].1)
                } else {
                    n.to_string()
                }
            };
            let used: Vec<String> = rows
                .1
                .iter()
                .map(|(n, t, loaded)| format!("{n}/{t}{}", if *loaded { "*" } else { "" }))
                .collect();
            let loaded_note = if rows.1.iter().any(|r| r.2) {
                "; *: too few quiet rounds, every round used: the machine was loaded throughout, rerun"
            } else {
                ""
            };
            let title = format!(
                "{}: old = {}, new = {}; delta, speedup: medians of per-round paired ratios over quiet rounds (used/taken: {}){loaded_note}",
                algo.name,
                name_of(a),
                name_of(b),
                used.join(", ")
            );
            if md {
                let _ = writeln!(out, "\n#### {title}\n");
            } else {
                let _ = writeln!(out, "\n{title}:");
            }
            out.push_str(&benchcmp::render(
                &rows.0,
                md,
                "not supported by a sign test over the paired rounds (p >= 0.05)",
            ));
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
    let ghz = run.header.cpu_ghz.is_some();
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
        let lead = vec![(algo.row_name)(c.size), display_name(run, c)];
        match (&c.state, c.stats()) {
            (State::NotAvailable(why), _) => t.note(lead, format!("n/a ({why})")),
            (_, None) => t.note(lead, "not measured".into()),
            (_, Some(s)) => {
                let mut row = lead;
                row.push(ns_text(s.median));
                row.push(ns_text(s.min));
                row.push(ns_text(s.max));
                row.push(s.mb_s(c.size).map_or("-".into(), |m| format!("{m:.2}")));
                if ghz {
                    row.push(
                        cycles_per_byte(run, &s, c.size).map_or("-".into(), |x| format!("{x:.2}")),
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
            let s = cells
                .iter()
                .find(|c| c.size == size && c.name == *name)
                .and_then(|c| c.stats());
            match s {
                Some(s) => {
                    row.push(format!("{:.4}", s.median / 1e3));
                    row.push(s.mb_s(size).map_or("-".into(), |m| format!("{m:.2}")));
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

/// `(rounds used, rounds taken, too few quiet rounds)` for each
/// `--compare` row.
type RoundsUsed = Vec<(usize, usize, bool)>;

/// The `--compare` rows for one algorithm with the rounds behind each, if
/// the algorithm has both implementations.
fn compare_rows(run: &Run, ai: usize) -> Option<(Vec<CmpRow>, RoundsUsed)> {
    let (a, b) = run.compare.as_ref()?;
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
                .and_then(|c| c.runner())
        };
        let (Some(ra), Some(rb)) = (find(a), find(b)) else {
            continue;
        };
        let (Some(sa), Some(sb)) = (
            engine::Stats::of(&ra.samples),
            engine::Stats::of(&rb.samples),
        ) else {
            continue;
        };
        let Some(p) = engine::paired(&ra.samples, &rb.samples) else {
            continue;
        };
        n.push((p.n, p.total, p.loaded));
        let same = p.p_value >= 0.05;
        rows.push(CmpRow {
            name: format!("Benchmark{}/{}", algo.go_family, (algo.row_name)(size)),
            old_ns: sa.median,
            new_ns: sb.median,
            delta: p.time_ratio - 1.0,
            same,
            mb: sa
                .mb_s(size)
                .zip(sb.mb_s(size))
                .map(|(x, y)| (x, y, p.speedup)),
            mb_same: same,
        });
    }
    (!rows.is_empty()).then_some((rows, n))
}

fn go(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "goos: {}", std::env::consts::OS);
    let _ = writeln!(out, "goarch: {}", go_arch());
    let _ = writeln!(out, "pkg: fastcrypt");
    let _ = writeln!(out, "cpu: {}", run.header.cpu);
    for (k, v) in header_lines(run) {
        if k != "cpu" {
            let _ = writeln!(out, "# {k}: {v}");
        }
    }
    let width = run
        .cells
        .iter()
        .map(|c| go_name(run, c).len())
        .max()
        .unwrap_or(0);
    for c in &run.cells {
        let name = go_name(run, c);
        match &c.state {
            State::NotAvailable(why) => {
                let _ = writeln!(out, "# {name}: n/a ({why})");
            }
            State::Runnable(r) => {
                for &ns in &r.samples {
                    let mut line =
                        format!("{name:<width$}  {:>10}  {:>10} ns/op", r.iters, ns_text(ns));
                    if c.size > 0 && ns > 0.0 {
                        let _ = write!(line, "  {:>10.2} MB/s", c.size as f64 * 1e3 / ns);
                        if let Some(g) = run.header.cpu_ghz {
                            let _ = write!(line, "  {:>8.2} cycles/B", ns * g / c.size as f64);
                        }
                    }
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        other => other,
    }
}

fn json_value(run: &Run) -> Value {
    let h = &run.header;
    let results: Vec<Value> = run
        .cells
        .iter()
        .map(|c| {
            let algo = run.algos[c.algo];
            let mut v = json!({
                "algorithm": algo.name,
                "size": c.size,
                "benchmark": (algo.row_name)(c.size),
                "go_name": go_name(run, c),
                "implementation": c.name,
                "origin": origin_text(&c.origin),
            });
            match (&c.state, c.stats()) {
                (State::NotAvailable(why), _) => {
                    v["available"] = json!(false);
                    v["reason"] = json!(why);
                }
                (State::Runnable(r), s) => {
                    v["available"] = json!(true);
                    v["iterations_per_sample"] = json!(r.iters);
                    v["samples_ns_per_op"] = json!(r.samples);
                    if let Some(s) = s {
                        v["ns_per_op"] = json!({"median": s.median, "min": s.min, "max": s.max});
                        v["mb_per_s"] = json!(s.mb_s(c.size));
                        if h.cpu_ghz.is_some() {
                            v["cycles_per_byte"] = json!(cycles_per_byte(run, &s, c.size));
                        }
                    }
                }
            }
            v
        })
        .collect();
    let mut compare = Vec::new();
    for ai in 0..run.algos.len() {
        if let Some((rows, n)) = compare_rows(run, ai) {
            let (a, b) = run.compare.as_ref().expect("compare rows need --compare");
            compare.push(json!({
                "algorithm": run.algos[ai].name,
                "old": a,
                "new": b,
                "rows": rows.iter().zip(&n).map(|(r, (used, taken, loaded))| json!({
                    "rounds_used": used,
                    "rounds_taken": taken,
                    "too_few_quiet_rounds": loaded,
                    "benchmark": r.name,
                    "old_ns_per_op": r.old_ns,
                    "new_ns_per_op": r.new_ns,
                    "delta": r.delta,
                    "speedup": r.mb.map(|m| m.2),
                    "within_noise": r.same,
                })).collect::<Vec<_>>(),
            }));
        }
    }
    json!({
        "tool": "fastcrypt speed",
        "command": h.command,
        "cpu": h.cpu,
        "features": h.features.split(' ').collect::<Vec<_>>(),
        "rustc": h.rustc,
        "openssl": h.openssl,
        "openssl_ia32cap": h.ia32cap,
        "date": h.date,
        "auto": h.auto.iter().map(|(a, b)| (a.to_string(), json!(b))).collect::<serde_json::Map<_, _>>(),
        "min_time_s": h.plan.min_time.as_secs_f64(),
        "samples": h.plan.samples,
        "cpu_ghz": h.cpu_ghz,
        "sweep": run.sweep,
        "results": results,
        "compare": compare,
    })
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(run: &Run) -> String {
    let mut out = String::from(
        "algorithm,size,benchmark,implementation,origin,status,ns_per_op,ns_per_op_min,ns_per_op_max,mb_per_s,cycles_per_byte,iterations_per_sample,samples,note\n",
    );
    for c in &run.cells {
        let algo = run.algos[c.algo];
        let mut f = vec![
            algo.name.to_string(),
            c.size.to_string(),
            (algo.row_name)(c.size),
            c.name.to_string(),
            origin_text(&c.origin),
        ];
        match (&c.state, c.stats()) {
            (State::Runnable(r), Some(s)) => {
                f.extend([
                    "ok".to_string(),
                    format!("{:.3}", s.median),
                    format!("{:.3}", s.min),
                    format!("{:.3}", s.max),
                    s.mb_s(c.size).map_or(String::new(), |m| format!("{m:.3}")),
                    cycles_per_byte(run, &s, c.size).map_or(String::new(), |x| format!("{x:.3}")),
                    r.iters.to_string(),
                    s.n.to_string(),
                    String::new(),
                ]);
            }
            (State::NotAvailable(why), _) => {
                f.push("n/a".into());
                f.extend(std::iter::repeat_n(String::new(), 7));
                f.push(why.clone());
            }
            (State::Runnable(_), None) => {
                f.push("not measured".into());
                f.extend(std::iter::repeat_n(String::new(), 8));
            }
        }
        let line: Vec<String> = f.iter().map(|x| csv_field(x)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The SVG file for one algorithm: `FILE` itself, or `FILE-<algo>.svg`
/// when several algorithms were measured.
pub fn plot_path(path: &Path, algo: &str, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or("speed".into(), |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or("svg".into(), |e| e.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-{algo}.{ext}"))
}

/// Draws MB/s against size for each algorithm (log x axis, one line per
/// implementation). Returns the files written.
pub fn plot(run: &Run, path: &Path) -> Result<Vec<(PathBuf, &'static str)>, String> {
    use plotters::prelude::*;
    let several = run.algos.len() > 1;
    let mut written = Vec::new();
    for (ai, algo) in run.algos.iter().enumerate() {
        let file = plot_path(path, algo.name, several);
        let err = |e: &dyn std::fmt::Display| format!("{}: cannot draw plot: {e}", file.display());
        // One series per runnable implementation; size 0 has no place on a
        // log axis and no throughput.
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for c in run.cells.iter().filter(|c| c.algo == ai && c.size > 0) {
            let Some(mb) = c.stats().and_then(|s| s.mb_s(c.size)) else {
                continue;
            };
            let name = display_name(run, c);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((c.size as f64, mb)),
                None => series.push((name, vec![(c.size as f64, mb)])),
            }
        }
        if series.is_empty() {
            continue;
        }
        let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
        let (xmin, xmax) = xs.fold((f64::INFINITY, 0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let (xmin, xmax) = if xmin == xmax {
            (xmin / 2.0, xmax * 2.0)
        } else {
            (xmin, xmax)
        };
        let ymax = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|q| q.1))
            .fold(0f64, f64::max)
            * 1.1;
        {
            let root = SVGBackend::new(&file, (1000, 620)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(&e))?;
            let caption = format!(
                "{}: throughput against message size ({}, {})",
                algo.name, run.header.cpu, run.header.date
            );
            let mut chart = ChartBuilder::on(&root)
                .caption(caption, ("sans-serif", 18))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(70)
                .build_cartesian_2d(
                    (xmin * 0.9..xmax * 1.1).log_scale().base(2.0),
                    0f64..ymax.max(1.0),
                )
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                // Powers of two only: 16, 32, ..., 1K, ..., 16K.
                .x_labels(16)
                .x_desc("message size (bytes, log scale)")
                .y_desc("MB/s (10^6 bytes/s)")
                .x_label_formatter(&|x| size_text(x.round() as usize))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()
                .map_err(|e| err(&e))?;
            for (i, (name, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(|e| err(&e))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
            root.present().map_err(|e| err(&e))?;
        }
        written.push((file, algo.name));
    }
    Ok(written)
}
