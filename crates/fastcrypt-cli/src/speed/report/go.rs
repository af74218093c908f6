//! Go benchmark lines, one per sample (like `go test -count=N`), so that
//! benchstat and `fastcrypt benchcmp` see the spread.

use super::super::engine::State;
use super::text::compare_section;
use super::{go_name, header_lines, Run};
use crate::gobench::result_line;
use std::fmt::Write as _;

pub fn render(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "goos: {}", std::env::consts::OS);
    let _ = writeln!(out, "goarch: {}", go_arch());
    let _ = writeln!(out, "pkg: fastcrypt");
    let _ = writeln!(out, "cpu: {}", run.header.cpu);
    // `--no-header` keeps the lines benchstat reads (goos, goarch, pkg,
    // cpu) and, as the table does, the command, the timing and the clock.
    let wanted = |k: &str| {
        k != "cpu"
            && (run.header.full
                || matches!(k, "command" | "timing" | "cycles/B" | "OPENSSL_ia32cap"))
    };
    for (k, v) in header_lines(run) {
        if wanted(k) {
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
                    let ghz = run.header.clock.ghz();
                    out.push_str(&result_line(&name, width, r.iters, ns, c.bytes, ghz));
                    out.push('\n');
                }
            }
        }
    }
    // `--compare`'s tables as comments: benchstat and `fastcrypt benchcmp`
    // skip them, a reader sees the run's paired ratios.
    for ai in 0..run.algos.len() {
        if let Some(section) = compare_section(run, ai, false) {
            for line in section.lines() {
                let _ = writeln!(out, "#{}{line}", if line.is_empty() { "" } else { " " });
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
