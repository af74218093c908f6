//! `fastcrypt speed`: every fastcrypt backend and the peers people would
//! otherwise pick, measured side by side in one process and one run.
//!
//! - `algos/`: the registry (one file per algorithm);
//! - `options.rs`: the options' types and parsers;
//! - `select.rs`: which cells (algorithm x size x implementation) to measure;
//! - `engine.rs`: calibration, warm-up and interleaved sampling;
//! - `clock.rs`: the core clock for cycles/B, measured or stated;
//! - `header.rs`: what every report says about the run;
//! - `report/`: one file per output format, and the `--plot` SVG;
//! - this file: the options and the steps of a run.

pub mod algos;
mod clock;
mod engine;
mod header;
mod options;
mod report;
mod select;

use crate::stdio;
use algos::{Algorithm, Origin, Params};
use clap::Args;
use engine::{Cell, Plan};
use header::Header;
use options::{one_of, ClockChoice, CpuGhz, Format, Pair, Selection, Sizes};
use std::io::IsTerminal;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What Ctrl-C does, in `-h` and at the end of `--help`.
macro_rules! ABOUT_CTRL_C {
    () => {
        "Ctrl-C stops the measuring and reports the whole rounds taken, then
exits with status 130 (a second Ctrl-C quits at once). Send the report to
a file to keep it: a pipe's reader gets the Ctrl-C too."
    };
}

const ABOUT_TIMING: &str = concat!(
    "\
Timing: for each cell (algorithm x size x implementation) the iteration
count is calibrated so that one sample takes --min-time / --samples; after
one discarded warm-up round, every cell is sampled once per round, in an
order rotated each round, so implementations are interleaved (A B C A B C
...) rather than run one after another. Samples are timed with the
thread's CPU time where the OS has it (--clock cpu), so time spent
descheduled while other processes run is not counted; --clock wall uses
elapsed time. Tables show the median ns/op with the samples' min and max;
MB/s is 10^6 bytes per second at the median, counting the bytes one
operation processes: the message, or every message of a message set
(sha1-many's sizes name sets, see --list).

--compare A,B reports the median of the per-round ratios B/A (paired
samples taken back to back), not the ratio of the medians, and marks with
`~` a difference that a sign test over the rounds does not support
(p >= 0.05). A round in which A or B ran more than 10% slower than its own
usual fast speed (the lower quartile of its samples) is set aside as
disturbed by load (load phases slow SIMD and
scalar code by different factors, so they bias even paired ratios); while
fewer than half of --samples rounds are quiet, or fewer than six (the
fewest in which a sign test can reach p < 0.05), or fewer than a third of
the rounds taken, --compare takes more rounds, up to three times
--samples. If quiet rounds stay too few, every round is used and the row
is marked `*`.

Cycles/byte: ns/op x the core clock / bytes. On x86 the clock is measured
at start (about 7 ms): a chain of dependent adds, one per cycle, timed
against the wall clock, best of 8 repeats after a warm-up; the header says
~X.XX GHz, measured. It is the clock of that moment: turbo and frequency
scaling can move it during the run, and in a virtual machine it is the
clock the guest sees. When you have fixed the clock (turbo and scaling
off), state it with --cpu-ghz GHZ (the header says stated); --cpu-ghz off
drops the column. Off x86 nothing is measured: cycles/byte only with
--cpu-ghz GHZ. No cycle counter is read: the TSC ticks at a nominal rate
that differs from the core clock under turbo, power management and in
virtual machines.

Go format: one line per sample (like `go test -count=N`), so benchstat and
`fastcrypt benchcmp` see the spread.

",
    ABOUT_CTRL_C!()
);

/// Options of `fastcrypt speed`.
#[derive(Args, Debug)]
#[command(after_long_help = ABOUT_TIMING, after_help = ABOUT_CTRL_C!())]
pub struct SpeedArgs {
    // Help text from the registry (`algos_help`), not a doc comment.
    #[arg(value_name = "ALGO", help = algos_help())]
    algos: Vec<String>,

    // Help text from the registry (`sizes_help`).
    #[arg(long, value_name = "LIST", value_parser = options::sizes, help = sizes_help())]
    sizes: Option<Sizes>,

    /// fastcrypt implementations: `auto` (the default choice), `all` (auto,
    /// every backend, unavailable ones shown as n/a, and the plain
    /// primitive's reference row, e.g. sha1dc's `sha1`), or names.
    /// Default: all.
    #[arg(long, value_name = "auto|all|NAME,...", value_parser = options::backends)]
    backend: Option<Selection>,

    // Help text from the registry (`peers_help`).
    #[arg(long, value_name = "LIST|none", value_parser = options::peers, help = peers_help())]
    peers: Option<Selection>,

    /// Sampled time per table cell, e.g. `500ms`, `2s`. Default 500ms (100ms
    /// with --sweep).
    #[arg(long, value_name = "DURATION", value_parser = options::min_time)]
    min_time: Option<Duration>,

    /// Samples (rounds) per cell, 5 to 1000.
    #[arg(long, value_name = "N", default_value = "15", value_parser = options::samples)]
    samples: usize,

    /// Output: table, go (benchstat-readable), json, csv or markdown.
    #[arg(long, value_name = "FORMAT", default_value = "table", value_parser = one_of::<Format>("format"))]
    format: Format,

    /// Old/new tables for implementation A vs B from this run (e.g.
    /// `openssl,auto`). Without --backend/--peers only A and B are measured.
    /// In the go format they are comment lines; CSV cannot hold them.
    #[arg(long, value_name = "A,B", value_parser = options::compare)]
    compare: Option<Pair>,

    /// Sizes in 16-byte blocks: 0..=32 blocks, then 64, 128, 256, 512 and
    /// 1024 blocks; one row per size, implementations side by side.
    /// Skips pbkdf2-sha1, whose size is the derived key's length, and
    /// sha1-many and sha1dc-many, whose sizes pick message sets.
    #[arg(long)]
    sweep: bool,

    /// Draws MB/s against size (log x axis) into an SVG file; with several
    /// algorithms, one file each (`FILE-<algo>.svg`). Algorithms whose
    /// sizes pick message sets are not drawn.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,

    /// What samples are timed with: `cpu` (the thread's CPU time, so time
    /// spent descheduled by other load is not counted; the default where
    /// the OS has it) or `wall`.
    #[arg(long, value_name = "cpu|wall", default_value = "cpu", value_parser = one_of::<ClockChoice>("--clock"))]
    clock: ClockChoice,

    /// The core clock for the cycles/B column, in GHz: on x86 it is
    /// measured at start unless given (a dependent-add loop, see --help);
    /// state it when you have fixed it, or `off` to drop the column.
    #[arg(long, value_name = "GHZ|off", value_parser = options::cpu_ghz)]
    cpu_ghz: Option<CpuGhz>,

    /// Bytes of associated data that every AEAD operation (aes-*-gcm,
    /// aes-*-gcm-open) authenticates besides the message, e.g. 13 for a
    /// TLS 1.2 record, 5 for TLS 1.3 (default: none). Not counted in MB/s;
    /// row names get `_AD<BYTES>` (`Seal_16_AD13`).
    #[arg(long, value_name = "BYTES", value_parser = options::aad)]
    aad: Option<usize>,

    /// List the algorithms and their implementations, then exit.
    #[arg(long)]
    list: bool,

    /// Print only the command line instead of the header (CPU, versions,
    /// date), for reports that assemble several runs under one header.
    #[arg(long)]
    no_header: bool,
}

impl SpeedArgs {
    /// What the options set for every operation besides its size.
    fn params(&self) -> Params {
        Params {
            aad: self.aad.unwrap_or(0),
        }
    }

    fn plan(&self) -> Plan {
        let min_time = match self.min_time {
            Some(t) => t,
            None if self.sweep => Duration::from_millis(100),
            None => Duration::from_millis(500),
        };
        Plan {
            min_time,
            samples: self.samples,
            max_rounds: 3 * self.samples,
            clock: match self.clock {
                ClockChoice::Cpu => engine::Clock::best(),
                ClockChoice::Wall => engine::Clock::Wall,
            },
        }
    }
}

/// `--help` for the ALGO argument: every algorithm of the registry.
fn algos_help() -> String {
    format!(
        "Algorithms to measure: {} (default: all; `--list` shows their implementations)",
        algos::names()
    )
}

/// `--help` for `--sizes`: the syntax, and each algorithm's default sizes.
fn sizes_help() -> String {
    let mut defaults: Vec<(String, Vec<&str>)> = Vec::new();
    for a in algos::ALL {
        let sizes = a
            .default_sizes
            .iter()
            .map(|s| options::size_text(*s))
            .collect::<Vec<_>>()
            .join(",");
        match defaults.iter_mut().find(|(s, _)| *s == sizes) {
            Some((_, names)) => names.push(a.name),
            None => defaults.push((sizes, vec![a.name])),
        }
    }
    let defaults: Vec<String> = defaults
        .iter()
        .map(|(sizes, names)| format!("{sizes} ({})", names.join(", ")))
        .collect();
    format!(
        "Message sizes, e.g. `8,128,1K,8K,16K` (K = 1024, M = 1024 K, G = 1024 M; at most 1G); \
         where a size picks a message set instead, `--list` says how. \
         Default: each algorithm's own: {}",
        defaults.join("; ")
    )
}

/// `--help` for `--peers`: every peer group.
fn peers_help() -> String {
    format!(
        "Peer libraries: {}, `all` or `none`. Default: all",
        algos::PEER_GROUPS.join(", ")
    )
}

/// Everything a report needs.
pub struct Run {
    pub header: Header,
    pub algos: Vec<&'static Algorithm>,
    pub cells: Vec<Cell>,
    pub compare: Option<Pair>,
    pub sweep: bool,
    /// The SVG files `--plot` wrote, with their algorithm.
    pub plot_files: Option<Vec<(PathBuf, &'static str)>>,
    /// Rounds taken (more than `--samples` when `--compare` needed them,
    /// fewer when Ctrl-C cut the run short).
    pub rounds: usize,
    /// Whether Ctrl-C cut the run short.
    pub interrupted: bool,
}

/// Set by the first Ctrl-C while measuring: measuring stops before the
/// next timing and the whole rounds done so far are reported. A Ctrl-C
/// at any other time (a second one, or one while the report is written)
/// quits at once with status 130, as SIGINT's default would.
static STOP: AtomicBool = AtomicBool::new(false);

/// Whether the cells are being measured (Ctrl-C then stops measuring
/// rather than the program).
static MEASURING: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C cut the measuring short: the report covers fewer rounds
/// than planned. `main` then exits with status 130, as a shell reports a
/// command that SIGINT ended.
static CUT: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C cut this run short.
pub fn interrupted() -> bool {
    CUT.load(Ordering::Relaxed)
}

/// Catches Ctrl-C (SIGINT) for [`STOP`], unless SIGINT was ignored (a
/// background job of a shell without job control), which it then stays.
/// Without the handler (it could not be installed) Ctrl-C ends the run as
/// before, losing it.
fn catch_interrupt() {
    if stdio::sigint_ignored() {
        return;
    }
    let installed = ctrlc::set_handler(|| {
        if !MEASURING.load(Ordering::Relaxed) || STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        // On a terminal, off the line of the progress bar and the `^C`.
        let nl = if std::io::stderr().is_terminal() {
            "\n"
        } else {
            ""
        };
        // Not `eprintln!`, which panics when stderr cannot be written:
        // this thread must live to quit on a second Ctrl-C.
        let _ = writeln!(
            std::io::stderr(),
            "{nl}fastcrypt: interrupted: reporting the rounds measured so far (Ctrl-C again to quit)"
        );
    });
    if let Err(e) = installed {
        let _ = writeln!(
            std::io::stderr(),
            "fastcrypt: warning: cannot catch Ctrl-C ({e}); it will lose the run"
        );
    }
}

pub fn run(args: SpeedArgs) -> Result<(), String> {
    if args.list {
        return stdio::print_out(&list());
    }
    if stdio::stdout_was_closed() {
        // Before minutes of measuring: the report could not be written.
        return Err(stdio::write_error(&std::io::Error::from_raw_os_error(
            libc::EBADF,
        )));
    }
    if args.compare.is_some() && args.format == Format::Csv {
        // CSV is one table of cells; the paired ratios would be lost.
        return Err(
            "--compare's tables have no place in CSV's one table of cells: use --format \
             table, markdown, json or go (as comments there)"
                .into(),
        );
    }
    let algos = select::algorithms(&args.algos)?;
    let mut cells = select::cells(&args, &algos)?;
    let mut unplotted = Vec::new();
    if let Some(path) = &args.plot {
        // Before minutes of measuring, not after.
        report::plot::check_destination(path)?;
        unplotted = algos
            .iter()
            .filter_map(|a| Some((a.name, report::plot::unplottable(a)?)))
            .collect();
        if unplotted.len() == algos.len() {
            let (name, why) = unplotted[0];
            return Err(format!("--plot draws nothing for {name}: {why}"));
        }
    }
    let plan = args.plan();
    if let Some(warning) = plan.too_short() {
        eprintln!("fastcrypt: warning: {warning}");
    }
    catch_interrupt();
    // Measured here, just before the cells, after the options are checked.
    let clock = clock::CoreClock::new(args.cpu_ghz);
    let params = args.params();
    let header = Header::new(&algos, plan, clock, params, !args.no_header);
    let pairs = args
        .compare
        .as_ref()
        .map_or_else(Vec::new, |pair| select::compare_pairs(&cells, pair));
    MEASURING.store(true, Ordering::Relaxed);
    let (rounds, cut) = measure(&mut cells, &plan, &pairs);
    MEASURING.store(false, Ordering::Relaxed);
    CUT.store(cut, Ordering::Relaxed);
    if cut && rounds == 0 {
        return Err("interrupted before a round was measured: nothing to report".into());
    }
    let mut run = Run {
        header,
        algos,
        cells,
        compare: args.compare,
        sweep: args.sweep,
        plot_files: None,
        rounds,
        interrupted: cut,
    };
    // A plot that cannot be drawn still leaves the measurements printed:
    // minutes of work are not thrown away for a bad path.
    let mut plot_failed = None;
    if let Some(path) = &args.plot {
        match report::plot::draw(&run, path) {
            Ok(files) => {
                for (file, algo) in &files {
                    eprintln!("fastcrypt: wrote {} ({algo})", file.display());
                }
                for (name, why) in &unplotted {
                    eprintln!("fastcrypt: --plot: no plot for {name}: {why}");
                }
                for a in &run.algos {
                    let drawn = files.iter().any(|(_, name)| name == &a.name);
                    if !drawn && !unplotted.iter().any(|(name, _)| name == &a.name) {
                        eprintln!(
                            "fastcrypt: --plot: no plot for {}: no size above 0 was measured",
                            a.name
                        );
                    }
                }
                run.plot_files = Some(files);
            }
            Err(e) => plot_failed = Some(e),
        }
    }
    stdio::print_out(&report::render(&run, args.format))?;
    plot_failed.map_or(Ok(()), Err)
}

/// Measures the cells; returns the rounds taken and whether Ctrl-C cut
/// them short.
fn measure(cells: &mut [Cell], plan: &Plan, pairs: &[(usize, usize)]) -> (usize, bool) {
    let total = engine::total_steps(cells, plan);
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} measuring [{bar:30}] {pos}/{len} {msg} ({eta} left)",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let rounds = engine::run(
        cells,
        plan,
        pairs,
        |label| {
            bar.set_message(label.to_string());
            bar.inc(1);
        },
        |more| bar.inc_length(more),
        || STOP.load(Ordering::Relaxed),
    );
    bar.finish_and_clear();
    rounds
}

fn list() -> String {
    let kind_of = |o: &Origin| match o {
        Origin::Auto => "fastcrypt default".to_string(),
        Origin::Backend => "fastcrypt backend".to_string(),
        Origin::Reference { .. } => "fastcrypt reference".to_string(),
        Origin::Peer(g) => format!("peer ({g})"),
    };
    let mut out = String::new();
    for a in algos::ALL {
        let imps = (a.implementations)(&Params::default());
        // Columns as wide as this algorithm's longest name and kind.
        let width = imps.iter().map(|i| i.name.len()).fold(14, usize::max);
        let kind_width = imps
            .iter()
            .map(|i| kind_of(&i.origin).len())
            .fold(22, usize::max);
        let backends = (a.backends)();
        out.push_str(&format!(
            "{} (default sizes {}; auto picks {}{})\n",
            a.name,
            a.default_sizes
                .iter()
                .map(|s| options::size_text(*s))
                .collect::<Vec<_>>()
                .join(","),
            backends.fastest,
            if a.takes_aad { "; takes --aad" } else { "" }
        ));
        if let Some(about) = a.rows.about() {
            for line in about.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        let available = backends.rows.iter().filter(|b| b.available).count();
        out.push_str(&format!(
            "  fastcrypt backends available here: {available} of {}\n",
            backends.rows.len()
        ));
        for imp in imps {
            let kind = kind_of(&imp.origin);
            let status = match &imp.op {
                Ok(_) => "available".to_string(),
                Err(why) => format!("n/a ({why})"),
            };
            out.push_str(&format!(
                "  {:<width$} {kind:<kind_width$} {status}\n",
                imp.name
            ));
            if !imp.about.is_empty() {
                out.push_str(&format!("  {:<width$} {}\n", "", imp.about));
            }
        }
    }
    out
}
