//! `fastcrypt speed`: every fastcrypt backend and the peers people would
//! otherwise pick, measured side by side in one process and one run.
//!
//! - `algos/`: the registry (one file per algorithm);
//! - `engine.rs`: calibration, warm-up and interleaved sampling;
//! - `report.rs`: table, go, json, csv and markdown output, `--compare`,
//!   `--sweep` and `--plot`;
//! - this file: options, selection and the header.

pub mod algos;
mod engine;
mod report;
pub mod table;

use algos::{Algorithm, Origin};
use clap::Args;
use engine::{Cell, Plan};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

const ABOUT_TIMING: &str = "\
Timing: for each cell (algorithm x size x implementation) the iteration
count is calibrated so that one sample takes --min-time / --samples; after
one discarded warm-up round, every cell is sampled once per round, in an
order rotated each round, so implementations are interleaved (A B C A B C
...) rather than run one after another. Samples are timed with the
thread's CPU time where the OS has it (--clock cpu), so time spent
descheduled while other processes run is not counted; --clock wall uses
elapsed time. Tables show the median ns/op with the samples' min and max;
MB/s is 10^6 bytes per second at the median.

--compare A,B reports the median of the per-round ratios B/A (paired
samples taken back to back), not the ratio of the medians, and marks with
`~` a difference that a sign test over the rounds does not support
(p >= 0.05). A round in which A or B ran more than 10% slower than its own
usual fast speed (the lower quartile of its samples) is set aside as
disturbed by load (load phases slow SIMD and
scalar code by different factors, so they bias even paired ratios); while
fewer than half of --samples rounds are quiet, --compare takes more
rounds, up to three times --samples. If quiet rounds stay too few, every
round is used and the row is marked `*`.

Cycles/byte: shown only with --cpu-ghz, when you know the core clock is
fixed (turbo and frequency scaling off). fastcrypt reads no cycle counter
and does not guess: the TSC ticks at a nominal rate that differs from the
core clock under turbo, power management and in virtual machines.

Go format: one line per sample (like `go test -count=N`), so benchstat and
`fastcrypt benchcmp` see the spread.";

/// Options of `fastcrypt speed`.
#[derive(Args, Debug)]
#[command(after_long_help = ABOUT_TIMING)]
pub struct SpeedArgs {
    /// Algorithms to measure (default: all; `--list` shows them).
    #[arg(value_name = "ALGO")]
    algos: Vec<String>,

    /// Message sizes, e.g. `8,128,1K,8K,16K` (K = 1024, M = 1024 K).
    /// Default: the classic ones (hashes 8,1K,8K; stream ciphers
    /// 128,1K,8K; AEADs 16,64,1350,8K,16K).
    #[arg(long, value_name = "LIST")]
    sizes: Option<String>,

    /// fastcrypt implementations: `auto` (the default choice), `all` (auto
    /// and every backend, unavailable ones shown as n/a), or backend names.
    /// Default: all.
    #[arg(long, value_name = "auto|all|NAME,...")]
    backend: Option<String>,

    /// Peer libraries: openssl, rustcrypto, ring, sha1_smol, `all` or
    /// `none`. Default: all.
    #[arg(long, value_name = "LIST|none")]
    peers: Option<String>,

    /// Sampled time per table cell, e.g. `500ms`, `2s`. Default 500ms (100ms
    /// with --sweep).
    #[arg(long, value_name = "DURATION")]
    min_time: Option<String>,

    /// Samples (rounds) per cell, at least 5.
    #[arg(long, value_name = "N", default_value = "15")]
    samples: String,

    /// Output: table, go (benchstat-readable), json, csv or markdown.
    #[arg(long, value_name = "FORMAT", default_value = "table")]
    format: String,

    /// Old/new tables for implementation A vs B from this run (e.g.
    /// `openssl,auto`). Without --backend/--peers only A and B are measured.
    #[arg(long, value_name = "A,B")]
    compare: Option<String>,

    /// Sizes in 16-byte blocks: 0..=32 blocks, then 64, 128, 256, 512 and
    /// 1024 blocks; one row per size, implementations side by side.
    #[arg(long)]
    sweep: bool,

    /// Draws MB/s against size (log x axis) into an SVG file; with several
    /// algorithms, one file each (`FILE-<algo>.svg`).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,

    /// What samples are timed with: `cpu` (the thread's CPU time, so time
    /// spent descheduled by other load is not counted; the default where
    /// the OS has it) or `wall`.
    #[arg(long, value_name = "cpu|wall")]
    clock: Option<String>,

    /// The core clock in GHz, if you know it is fixed: adds cycles/byte.
    #[arg(long, value_name = "GHZ")]
    cpu_ghz: Option<String>,

    /// List the algorithms and their implementations, then exit.
    #[arg(long)]
    list: bool,

    /// Print only the command line instead of the header (CPU, versions,
    /// date), for reports that assemble several runs under one header.
    #[arg(long)]
    no_header: bool,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Go,
    Json,
    Csv,
    Markdown,
}

/// What the header of every format says.
pub struct Header {
    pub cpu: String,
    pub features: String,
    pub rustc: &'static str,
    pub openssl: &'static str,
    pub date: String,
    /// `(algorithm, backend auto picks)`.
    pub auto: Vec<(&'static str, &'static str)>,
    pub plan: Plan,
    pub cpu_ghz: Option<f64>,
    /// `OPENSSL_ia32cap`, when set (it changes which path OpenSSL takes).
    pub ia32cap: Option<String>,
    pub command: String,
    /// Whether to print all of the above, or only `command`.
    pub full: bool,
}

/// Everything a report needs.
pub struct Run {
    pub header: Header,
    pub algos: Vec<&'static Algorithm>,
    pub cells: Vec<Cell>,
    pub compare: Option<(String, String)>,
    pub sweep: bool,
    /// The SVG files `--plot` wrote, with their algorithm.
    pub plot_files: Option<Vec<(PathBuf, &'static str)>>,
    /// Rounds taken (more than `--samples` when `--compare` needed them).
    pub rounds: usize,
}

pub fn run(args: SpeedArgs) -> Result<(), String> {
    if args.list {
        print!("{}", list());
        return Ok(());
    }
    let format = parse_format(&args.format)?;
    let algos = select_algos(&args.algos)?;
    let samples: usize = args
        .samples
        .trim()
        .parse()
        .ok()
        .filter(|&n| n >= 5)
        .ok_or_else(|| {
            format!(
                "invalid --samples `{}`: expected a whole number of at least 5",
                args.samples
            )
        })?;
    let min_time = match &args.min_time {
        Some(s) => parse_duration(s)?,
        None if args.sweep => Duration::from_millis(100),
        None => Duration::from_millis(500),
    };
    let cpu_ghz = match &args.cpu_ghz {
        None => None,
        Some(s) => Some(
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|g| g.is_finite() && *g > 0.0)
                .ok_or_else(|| {
                    format!("invalid --cpu-ghz `{s}`: expected a clock rate in GHz, e.g. 3.5")
                })?,
        ),
    };
    let sizes: Option<Vec<usize>> = if args.sweep {
        Some(sweep_sizes())
    } else {
        args.sizes.as_deref().map(parse_sizes).transpose()?
    };
    let compare = args.compare.as_deref().map(parse_compare).transpose()?;
    let backends = args
        .backend
        .as_deref()
        .map(|s| parse_backends(s, &algos))
        .transpose()?;
    let peers = args.peers.as_deref().map(parse_peers).transpose()?;
    // --compare alone measures just the pair: fewer cells per round puts A
    // and B closer together in time.
    let compare_only = compare.is_some() && backends.is_none() && peers.is_none();
    let (backends, peers) = match (&compare, backends, peers) {
        (Some(_), None, None) => (Selection::Named(vec![]), Selection::Named(vec![])),
        (_, b, p) => (b.unwrap_or(Selection::All), p.unwrap_or(Selection::All)),
    };

    let mut cells = Vec::new();
    for (ai, algo) in algos.iter().enumerate() {
        if let (true, Some((a, b))) = (compare_only, &compare) {
            // Nothing to pair in an algorithm that lacks A or B.
            let names: Vec<&str> = (algo.implementations)().iter().map(|i| i.name).collect();
            if !names.contains(&a.as_str()) || !names.contains(&b.as_str()) {
                continue;
            }
        }
        let sizes = sizes.clone().unwrap_or_else(|| algo.default_sizes.to_vec());
        for &size in &sizes {
            for imp in (algo.implementations)() {
                let chosen = match &imp.origin {
                    Origin::Auto | Origin::Backend => backends.has(imp.name),
                    Origin::Peer(group) => peers.has(group),
                } || compare
                    .as_ref()
                    .is_some_and(|(a, b)| imp.name == a || imp.name == b);
                if !chosen {
                    continue;
                }
                if imp.origin == Origin::Backend && backends.named(imp.name) {
                    if let Err(why) = &imp.op {
                        return Err(format!(
                            "{} backend `{}` is not available on this CPU ({why})",
                            algo.name, imp.name
                        ));
                    }
                }
                cells.push(Cell::new(ai, size, imp.name, imp.origin, imp.op));
            }
        }
    }
    if let Some((a, b)) = &compare {
        check_compare(a, b, &algos, &cells)?;
    }
    if cells.is_empty() {
        return Err("nothing selected to measure (see --backend and --peers)".into());
    }

    let clock = match args.clock.as_deref().map(str::trim) {
        None | Some("cpu") => engine::Clock::best(),
        Some("wall") => engine::Clock::Wall,
        Some(other) => return Err(format!("unknown --clock `{other}` (valid: cpu, wall)")),
    };
    let plan = Plan {
        min_time,
        samples,
        max_rounds: 3 * samples,
        clock,
    };
    let header = Header {
        cpu: crate::cpu_cmd::cpu_model(),
        features: crate::cpu_cmd::feature_line(),
        rustc: env!("FASTCRYPT_RUSTC_VERSION"),
        openssl: openssl::version::version(),
        date: utc_now(),
        auto: algos.iter().map(|a| (a.name, (a.auto_picks)())).collect(),
        plan,
        cpu_ghz,
        ia32cap: std::env::var("OPENSSL_ia32cap").ok(),
        command: command_line(),
        full: !args.no_header,
    };

    let pairs = compare
        .as_ref()
        .map_or_else(Vec::new, |(a, b)| compare_pairs(&cells, a, b));
    let rounds = measure(&mut cells, &plan, &pairs);

    let mut run = Run {
        header,
        algos,
        cells,
        compare,
        sweep: args.sweep,
        plot_files: None,
        rounds,
    };
    if let Some(path) = &args.plot {
        let files = report::plot(&run, path)?;
        for (file, algo) in &files {
            eprintln!("fastcrypt: wrote {} ({algo})", file.display());
        }
        run.plot_files = Some(files);
    }
    print!("{}", report::render(&run, format));
    Ok(())
}

/// The cell index pairs `(A, B)` that `--compare` will pair, per algorithm
/// and size.
fn compare_pairs(cells: &[Cell], a: &str, b: &str) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if c.name != a {
            continue;
        }
        if let Some(j) = cells
            .iter()
            .position(|d| d.algo == c.algo && d.size == c.size && d.name == b)
        {
            pairs.push((i, j));
        }
    }
    pairs
}

fn measure(cells: &mut [Cell], plan: &Plan, pairs: &[(usize, usize)]) -> usize {
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
    );
    bar.finish_and_clear();
    rounds
}

fn list() -> String {
    let mut out = String::new();
    for a in algos::ALL {
        out.push_str(&format!(
            "{} (default sizes {}; auto picks {})\n",
            a.name,
            a.default_sizes
                .iter()
                .map(|s| size_text(*s))
                .collect::<Vec<_>>()
                .join(","),
            (a.auto_picks)()
        ));
        let backends = (a.backends)();
        let available = backends.iter().filter(|b| b.available).count();
        out.push_str(&format!(
            "  fastcrypt backends available here: {available} of {}\n",
            backends.len()
        ));
        for imp in (a.implementations)() {
            let kind = match imp.origin {
                Origin::Auto => "fastcrypt default".to_string(),
                Origin::Backend => "fastcrypt backend".to_string(),
                Origin::Peer(g) => format!("peer ({g})"),
            };
            let status = match &imp.op {
                Ok(_) => "available".to_string(),
                Err(why) => format!("n/a ({why})"),
            };
            out.push_str(&format!("  {:<14} {:<22} {status}\n", imp.name, kind));
            if !imp.about.is_empty() {
                out.push_str(&format!("  {:<14} {}\n", "", imp.about));
            }
        }
    }
    out
}

/// `--backend` / `--peers` choices.
enum Selection {
    All,
    Named(Vec<String>),
}

impl Selection {
    fn has(&self, name: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Named(v) => v.iter().any(|n| n == name),
        }
    }

    fn named(&self, name: &str) -> bool {
        matches!(self, Selection::Named(v) if v.iter().any(|n| n == name))
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|x| x.trim().to_ascii_lowercase())
        .filter(|x| !x.is_empty())
        .collect()
}

fn parse_format(s: &str) -> Result<Format, String> {
    Ok(match s.trim().to_ascii_lowercase().as_str() {
        "table" | "text" => Format::Table,
        "go" => Format::Go,
        "json" => Format::Json,
        "csv" => Format::Csv,
        "markdown" | "md" => Format::Markdown,
        _ => {
            return Err(format!(
                "unknown format `{s}` (valid: table, go, json, csv, markdown)"
            ))
        }
    })
}

fn select_algos(names: &[String]) -> Result<Vec<&'static Algorithm>, String> {
    if names.is_empty() {
        return Ok(algos::ALL.to_vec());
    }
    let mut out: Vec<&'static Algorithm> = Vec::new();
    for n in names.iter().flat_map(|n| split_list(n)) {
        let a =
            if n == "all" {
                None
            } else {
                Some(algos::find(&n).ok_or_else(|| {
                    format!("unknown algorithm `{n}` (valid: {})", algos::names())
                })?)
            };
        for a in a.map_or_else(|| algos::ALL.to_vec(), |a| vec![a]) {
            if !out.iter().any(|b| std::ptr::eq(*b, a)) {
                out.push(a);
            }
        }
    }
    Ok(out)
}

fn parse_backends(s: &str, algos: &[&'static Algorithm]) -> Result<Selection, String> {
    let names = split_list(s);
    if names.is_empty() {
        return Err("empty --backend (valid: auto, all, or backend names)".into());
    }
    if names.iter().any(|n| n == "all") {
        return Ok(Selection::All);
    }
    for n in &names {
        let known = n == "auto"
            || algos
                .iter()
                .any(|a| (a.backends)().iter().any(|b| b.name == n));
        if !known {
            let mut valid = vec!["auto".to_string(), "all".to_string()];
            for a in algos {
                for b in (a.backends)() {
                    if !valid.iter().any(|v| v == b.name) {
                        valid.push(b.name.into());
                    }
                }
            }
            return Err(format!(
                "unknown backend `{n}` (valid: {})",
                valid.join(", ")
            ));
        }
    }
    Ok(Selection::Named(names))
}

fn parse_peers(s: &str) -> Result<Selection, String> {
    let names = split_list(s);
    if names.iter().any(|n| n == "all") {
        return Ok(Selection::All);
    }
    if names.iter().any(|n| n == "none") {
        return Ok(Selection::Named(vec![]));
    }
    if let Some(bad) = names
        .iter()
        .find(|n| !algos::PEER_GROUPS.contains(&n.as_str()))
    {
        return Err(format!(
            "unknown peer `{bad}` (valid: {}, all, none)",
            algos::PEER_GROUPS.join(", ")
        ));
    }
    Ok(Selection::Named(names))
}

fn parse_compare(s: &str) -> Result<(String, String), String> {
    let v = split_list(s);
    match v.as_slice() {
        [a, b] if a != b => Ok((a.clone(), b.clone())),
        _ => Err(format!(
            "invalid --compare `{s}`: expected two different implementations, e.g. openssl,auto"
        )),
    }
}

/// `--compare A,B` applies to every selected algorithm that has both; it
/// is an error when none has, or when A or B is n/a where both exist.
fn check_compare(a: &str, b: &str, algos: &[&Algorithm], cells: &[Cell]) -> Result<(), String> {
    let mut any = false;
    for (ai, algo) in algos.iter().enumerate() {
        let find = |name: &str| cells.iter().find(|c| c.algo == ai && c.name == name);
        let (Some(ca), Some(cb)) = (find(a), find(b)) else {
            continue;
        };
        for (name, cell) in [(a, ca), (b, cb)] {
            if let engine::State::NotAvailable(why) = &cell.state {
                return Err(format!(
                    "cannot compare on {}: `{name}` is n/a ({why})",
                    algo.name
                ));
            }
        }
        any = true;
    }
    if any {
        return Ok(());
    }
    let mut valid: Vec<&str> = Vec::new();
    for algo in algos {
        for i in (algo.implementations)() {
            if !valid.contains(&i.name) {
                valid.push(i.name);
            }
        }
    }
    let algo_names: Vec<&str> = algos.iter().map(|x| x.name).collect();
    match [a, b].into_iter().find(|n| !valid.contains(n)) {
        Some(unknown) => Err(format!(
            "--compare: no implementation `{unknown}` in {} (valid: {})",
            algo_names.join(", "),
            valid.join(", ")
        )),
        None => Err(format!(
            "--compare: no selected algorithm ({}) has both `{a}` and `{b}`",
            algo_names.join(", ")
        )),
    }
}

/// `8`, `1K`, `16k`, `2M`, `4KiB`: sizes in bytes.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: usize = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        _ => 0,
    };
    num.parse::<usize>()
        .ok()
        .filter(|_| mult != 0)
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n <= 1 << 30)
        .ok_or_else(|| {
            format!("invalid size `{t}`: expected bytes with an optional K or M suffix (e.g. 8, 1K, 16K), at most 1G")
        })
}

fn parse_sizes(s: &str) -> Result<Vec<usize>, String> {
    let mut v = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let n = parse_size(part)?;
        if !v.contains(&n) {
            v.push(n);
        }
    }
    if v.is_empty() {
        return Err(format!("invalid --sizes `{s}`: no size given"));
    }
    Ok(v)
}

/// `1K` for 1024, `8` for 8: how sizes are written back.
pub fn size_text(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

/// 0..=32 blocks of 16 bytes, then 64, 128, 256, 512, 1024 blocks.
pub fn sweep_sizes() -> Vec<usize> {
    (0..=32)
        .chain([64, 128, 256, 512, 1024])
        .map(|b| b * 16)
        .collect()
}

/// `500ms`, `2s`, `1.5s`, `100us`, `250000ns`; a bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "m" | "min" => 60.0,
        _ => f64::NAN,
    };
    num.parse::<f64>()
        .ok()
        .map(|n| n * scale)
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 3600.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!("invalid --min-time `{t}`: expected a duration such as 500ms, 2s or 100us")
        })
}

/// The date and time in UTC, `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Civil date from days since 1970-01-01 (the proleptic Gregorian
/// calendar counted in 400-year eras of 146097 days, as in Howard
/// Hinnant's `civil_from_days`).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("fastcrypt {}", args.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(
            parse_sizes("8,128,1K,8K,16K").unwrap(),
            [8, 128, 1024, 8192, 16384]
        );
        assert_eq!(parse_size("2M").unwrap(), 2 << 20);
        assert_eq!(parse_size("0").unwrap(), 0);
        assert!(parse_size("12Q").unwrap_err().contains("`12Q`"));
        assert!(parse_size("K").is_err());
        assert!(parse_size("-1").is_err());
        assert_eq!(size_text(8192), "8K");
        assert_eq!(size_text(1350), "1350");
    }

    #[test]
    fn sweep_has_38_sizes() {
        let s = sweep_sizes();
        assert_eq!(s.len(), 38);
        assert_eq!((s[0], s[32], s[37]), (0, 512, 16384));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("100us").unwrap(), Duration::from_micros(100));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("0s").is_err());
    }

    #[test]
    fn dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }
}
