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
        line.push_str(&shell_quoted(&arg));
    }
    line
}

/// `arg` as bash, zsh and ksh read it back, on one line: as it is when
/// it holds only characters no shell treats specially; in single quotes
/// when it is printable text (an empty `--peers ''`, a path with
/// spaces); else as `$'...'` with escapes (a newline, a byte that is not
/// UTF-8), which keeps the line one line and every byte as it was.
fn shell_quoted(arg: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(arg).to_vec();
    #[cfg(not(unix))]
    let bytes = arg.to_string_lossy().into_owned().into_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b);
    match std::str::from_utf8(&bytes) {
        Ok(text) if !text.is_empty() && bytes.iter().all(|&b| plain(b)) => text.to_string(),
        Ok(text) if !text.chars().any(char::is_control) => {
            format!("'{}'", text.replace('\'', r"'\''"))
        }
        _ => {
            let mut out = String::from("$'");
            for &b in &bytes {
                match b {
                    b'\\' => out.push_str(r"\\"),
                    b'\'' => out.push_str(r"\'"),
                    b'\n' => out.push_str(r"\n"),
                    b'\t' => out.push_str(r"\t"),
                    0x20..=0x7e => out.push(char::from(b)),
                    _ => out.push_str(&format!("\\x{b:02x}")),
                }
            }
            out.push('\'');
            out
        }
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
        let q = |s: &str| shell_quoted(std::ffi::OsStr::new(s));
        assert_eq!(q("--sizes=8,1K"), "--sizes=8,1K");
        assert_eq!(q("out/plots.svg"), "out/plots.svg");
        assert_eq!(q(""), "''");
        assert_eq!(q("my plots.svg"), "'my plots.svg'");
        assert_eq!(q("it's"), r"'it'\''s'");
        assert_eq!(q("$HOME"), "'$HOME'");
        assert_eq!(q("größe.svg"), "'größe.svg'");
        assert_eq!(q("x\ny\t'\\z\u{1b}"), r"$'x\ny\t\'\\z\x1b'");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let raw = std::ffi::OsStr::from_bytes(b"a b\xff.svg");
            assert_eq!(shell_quoted(raw), r"$'a b\xff.svg'");
        }
    }

    #[test]
    fn dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }
}
