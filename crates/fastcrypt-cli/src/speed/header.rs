//! What every report says about the run: the machine, the toolchain, the
//! date, what `auto` picks, and how the samples were taken.

use super::algos::{Algorithm, Params};
use super::clock::CoreClock;
use super::engine::Plan;
use crate::machine;
use std::time::Duration;

/// What the header of every format says.
pub struct Header {
    pub cpu: String,
    /// The detected features (CPU flags and OS state).
    pub features: Vec<&'static str>,
    pub rustc: &'static str,
    pub openssl: &'static str,
    pub date: String,
    /// `(algorithm, backend auto picks)`.
    pub auto: Vec<(&'static str, &'static str)>,
    pub plan: Plan,
    /// What the options set besides sizes (`--aad`).
    pub params: Params,
    /// `--aad`'s line: the bytes and the algorithms they apply to, when
    /// some selected AEAD authenticates associated data.
    pub aad: Option<String>,
    /// The clock cycles/B is computed with, and where it came from.
    pub clock: CoreClock,
    /// `OPENSSL_ia32cap`, when set (it changes which path OpenSSL takes).
    pub ia32cap: Option<String>,
    pub command: String,
    /// Whether to print all of the above, or only `command`.
    pub full: bool,
}

impl Header {
    pub fn new(
        algos: &[&Algorithm],
        plan: Plan,
        clock: CoreClock,
        params: Params,
        full: bool,
    ) -> Header {
        let takers: Vec<&str> = algos
            .iter()
            .filter(|a| a.takes_aad)
            .map(|a| a.name)
            .collect();
        let aad = (params.aad > 0 && !takers.is_empty()).then(|| {
            format!(
                "{} bytes of associated data per operation ({}), not counted in MB/s or cycles/B",
                params.aad,
                takers.join(", ")
            )
        });
        Header {
            cpu: machine::cpu_model(),
            features: machine::present_features(),
            rustc: env!("FASTCRYPT_RUSTC_VERSION"),
            openssl: openssl::version::version(),
            date: utc_now(),
            auto: algos
                .iter()
                .map(|a| (a.name, (a.backends)().fastest))
                .collect(),
            plan,
            params,
            aad,
            clock,
            ia32cap: std::env::var("OPENSSL_ia32cap").ok(),
            command: command_line(),
            full,
        }
    }

    /// How the cells were sampled, given the rounds actually taken.
    pub fn timing(&self, rounds: usize, interrupted: bool) -> String {
        let plan = &self.plan;
        let rounds = if interrupted {
            format!(
                "{rounds} (interrupted by Ctrl-C; --samples {} planned)",
                plan.samples
            )
        } else if rounds > plan.samples {
            format!(
                "{rounds} (--samples {}, more rounds for --compare's load filter)",
                plan.samples
            )
        } else {
            rounds.to_string()
        };
        format!(
            "median [min, max] of {rounds} interleaved samples per cell, ~{} each (--min-time {}); MB/s = 10^6 bytes/s",
            duration_text(plan.sample_time()),
            duration_text(plan.min_time)
        )
    }

    /// The `cycles/B` line: the clock and where it came from, or why the
    /// column is absent.
    pub fn cycles(&self) -> String {
        match &self.clock {
            CoreClock::Measured(g) => format!(
                "ns/op x core clock; ~{g:.2} GHz, measured: dependent-add loop at start (--cpu-ghz GHZ|off overrides)"
            ),
            CoreClock::Stated(g) => format!("ns/op x core clock; {g} GHz, stated (--cpu-ghz)"),
            CoreClock::Off => "not shown (--cpu-ghz off)".into(),
            CoreClock::Unknown(why) => {
                format!("not shown: {why} (state the clock with --cpu-ghz)")
            }
        }
    }
}

fn duration_text(d: Duration) -> String {
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

/// The command as a user types it: `fastcrypt speed ARGS`, whether the
/// lab was started through `fastcrypt speed` or as `fastcrypt-speed`.
fn command_line() -> String {
    let mut line = String::from("fastcrypt speed");
    // `args_os`: a `--plot` path need not be UTF-8 (`args` would panic).
    for arg in std::env::args_os().skip(1) {
        line.push(' ');
        line.push_str(&shell_quoted(&arg.to_string_lossy()));
    }
    line
}

/// `arg` as a POSIX shell reads it back: as it is when it holds only
/// characters no shell treats specially, else in single quotes (an
/// empty `--peers ""` or a path with spaces would otherwise not rerun).
fn shell_quoted(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The date and time in UTC, `YYYY-MM-DD HH:MM:SS UTC`.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Civil date from days since 1970-01-01 (the proleptic Gregorian
/// calendar counted in 400-year eras of 146097 days, as in Howard
/// Hinnant's `civil_from_days`).
fn format_utc(secs: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_as_a_shell_reads_them() {
        assert_eq!(shell_quoted("--sizes=8,1K"), "--sizes=8,1K");
        assert_eq!(shell_quoted("out/plots.svg"), "out/plots.svg");
        assert_eq!(shell_quoted(""), "''");
        assert_eq!(shell_quoted("my plots.svg"), "'my plots.svg'");
        assert_eq!(shell_quoted("it's"), r"'it'\''s'");
        assert_eq!(shell_quoted("$HOME"), "'$HOME'");
    }

    #[test]
    fn dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }
}
