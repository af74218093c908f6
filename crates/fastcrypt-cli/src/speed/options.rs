//! The typed values of `fastcrypt speed`'s options, and their parsers.
//! Each parser's error is the whole message `main` prints on one line.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::ValueEnum;
use std::ffi::OsStr;
use std::marker::PhantomData;
use std::time::Duration;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(alias = "text")]
    Table,
    Go,
    Json,
    Csv,
    #[value(alias = "md")]
    Markdown,
}

/// What `--clock` names; [`super::engine::Clock`] is what it resolves to
/// on this OS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockChoice {
    Cpu,
    Wall,
}

/// A [`ValueEnum`] parser that ignores case and says `unknown WHAT `x`
/// (valid: ...)` rather than clap's multi-line report, while `--help`
/// still lists the values.
#[derive(Clone)]
pub struct OneOf<E> {
    what: &'static str,
    values: PhantomData<fn() -> E>,
}

pub fn one_of<E>(what: &'static str) -> OneOf<E> {
    OneOf {
        what,
        values: PhantomData,
    }
}

fn possible_values<E: ValueEnum + 'static>() -> impl Iterator<Item = PossibleValue> {
    E::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
}

impl<E: ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for OneOf<E> {
    type Value = E;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<E, clap::Error> {
        let what = self.what;
        let parse = move |s: &str| {
            E::from_str(s.trim(), true).map_err(|_| {
                let valid: Vec<String> = possible_values::<E>()
                    .map(|p| p.get_name().to_string())
                    .collect();
                format!("unknown {what} `{s}` (valid: {})", valid.join(", "))
            })
        };
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(possible_values::<E>()))
    }
}

/// The most `--samples` a run takes: --compare may take three times as
/// many rounds, and every round visits every cell.
pub const MAX_SAMPLES: usize = 1000;

/// `--samples`: a whole number from 5 to [`MAX_SAMPLES`].
pub fn samples(s: &str) -> Result<usize, String> {
    s.trim()
        .parse()
        .ok()
        .filter(|n| (5..=MAX_SAMPLES).contains(n))
        .ok_or_else(|| {
            format!("invalid --samples `{s}`: expected a whole number from 5 to {MAX_SAMPLES}")
        })
}

/// `--cpu-ghz`: the core clock stated, or the cycles/B column turned off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CpuGhz {
    /// A clock rate a CPU can have: above 0 and at most 100 GHz.
    Rate(f64),
    /// `off`: no clock, no cycles/B.
    Off,
}

pub fn cpu_ghz(s: &str) -> Result<CpuGhz, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(CpuGhz::Off);
    }
    t.parse::<f64>()
        .ok()
        .filter(|g| *g > 0.0 && *g <= 100.0)
        .map(CpuGhz::Rate)
        .ok_or_else(|| {
            format!(
                "invalid --cpu-ghz `{s}`: expected a clock rate in GHz, e.g. 3.5 (at most 100), or off"
            )
        })
}

/// `--min-time`: `500ms`, `2s`, `1.5s`, `100us`, `1min 30s` (humantime's
/// syntax); a bare number is seconds. More than 0, at most an hour.
pub fn min_time(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    t.parse::<f64>()
        .ok()
        .filter(|secs| *secs > 0.0 && *secs <= 3600.0)
        .map(Duration::from_secs_f64)
        .or_else(|| humantime::parse_duration(t).ok())
        .filter(|d| !d.is_zero() && *d <= Duration::from_secs(3600))
        .ok_or_else(|| {
            format!("invalid --min-time `{t}`: expected a duration such as 500ms, 2s or 100us, at most 1h")
        })
}

/// `--sizes`: distinct sizes in the order given.
#[derive(Clone, Debug)]
pub struct Sizes(pub Vec<usize>);

pub fn sizes(s: &str) -> Result<Sizes, String> {
    let mut v = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let n = size(part)?;
        if !v.contains(&n) {
            v.push(n);
        }
    }
    if v.is_empty() {
        return Err(format!("invalid --sizes `{s}`: no size given"));
    }
    Ok(Sizes(v))
}

/// `8`, `1K`, `16k`, `2M`, `4KiB`: sizes in bytes.
fn size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: usize = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        _ => 0,
    };
    num.parse::<usize>()
        .ok()
        .filter(|_| mult != 0)
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n <= 1 << 30)
        .ok_or_else(|| {
            format!("invalid size `{t}`: expected bytes with an optional K, M or G suffix (e.g. 8, 1K, 16K), at most 1G")
        })
}

/// The most associated data `--aad` takes: far beyond any record or
/// packet header, small enough to stay out of the measured buffer's way.
pub const MAX_AAD: usize = 1 << 20;

/// `--aad`: bytes of associated data, with the size suffixes of `--sizes`.
pub fn aad(s: &str) -> Result<usize, String> {
    size(s)
        .ok()
        .filter(|n| *n <= MAX_AAD)
        .ok_or_else(|| {
            format!(
                "invalid --aad `{}`: expected bytes of associated data, e.g. 13 (a TLS 1.2 record) or 5 (TLS 1.3), at most 1M",
                s.trim()
            )
        })
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

/// A comma-separated list, lower-cased, empty entries dropped.
pub fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|x| x.trim().to_ascii_lowercase())
        .filter(|x| !x.is_empty())
        .collect()
}

/// `--backend` / `--peers` choices.
#[derive(Clone, Debug)]
pub enum Selection {
    All,
    Named(Vec<String>),
}

impl Selection {
    pub fn has(&self, name: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Named(v) => v.iter().any(|n| n == name),
        }
    }

    pub fn named(&self, name: &str) -> bool {
        matches!(self, Selection::Named(v) if v.iter().any(|n| n == name))
    }
}

/// `--backend`: `all`, or names (`auto` and backends), checked against
/// the selected algorithms once they are known.
pub fn backends(s: &str) -> Result<Selection, String> {
    let names = split_list(s);
    if names.is_empty() {
        return Err("empty --backend (valid: auto, all, or backend names)".into());
    }
    if names.iter().any(|n| n == "all") {
        return Ok(Selection::All);
    }
    Ok(Selection::Named(names))
}

/// `--peers`: groups, `all` or `none`.
pub fn peers(s: &str) -> Result<Selection, String> {
    let names = split_list(s);
    let groups = super::algos::PEER_GROUPS;
    if names.is_empty() {
        return Err(format!(
            "empty --peers (valid: {}, all, none)",
            groups.join(", ")
        ));
    }
    // `all` or `none` stand alone: `none,openssl` would otherwise mean
    // one of them silently.
    for only in ["all", "none"] {
        if names.iter().any(|n| n == only) && names.len() > 1 {
            return Err(format!(
                "--peers {only} cannot be combined with other peers"
            ));
        }
    }
    if names[0] == "all" {
        return Ok(Selection::All);
    }
    if names[0] == "none" {
        return Ok(Selection::Named(vec![]));
    }
    if let Some(bad) = names.iter().find(|n| !groups.contains(&n.as_str())) {
        return Err(format!(
            "unknown peer `{bad}` (valid: {}, all, none)",
            groups.join(", ")
        ));
    }
    Ok(Selection::Named(names))
}

/// `--compare A,B`: old and new.
#[derive(Clone, Debug)]
pub struct Pair {
    pub old: String,
    pub new: String,
}

pub fn compare(s: &str) -> Result<Pair, String> {
    match split_list(s).as_slice() {
        [a, b] if a != b => Ok(Pair {
            old: a.clone(),
            new: b.clone(),
        }),
        _ => Err(format!(
            "invalid --compare `{s}`: expected two different implementations, e.g. openssl,auto"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_their_text() {
        assert_eq!(
            sizes("8,128,1K,8K,16K").unwrap().0,
            [8, 128, 1024, 8192, 16384]
        );
        assert_eq!(size("2M").unwrap(), 2 << 20);
        // The bound the message names is itself accepted.
        assert_eq!(size("1G").unwrap(), 1 << 30);
        assert!(size("2G").unwrap_err().contains("at most 1G"));
        assert!(size("1025M").is_err());
        assert_eq!(size("0").unwrap(), 0);
        assert!(size("12Q").unwrap_err().contains("`12Q`"));
        assert!(size("K").is_err());
        assert!(size("-1").is_err());
        assert_eq!(size_text(8192), "8K");
        assert_eq!(size_text(1350), "1350");
    }

    #[test]
    fn samples_are_bounded() {
        assert_eq!(samples("5").unwrap(), 5);
        assert_eq!(samples("1000").unwrap(), MAX_SAMPLES);
        assert!(samples("4").is_err());
        assert!(samples("1001").is_err());
        assert!(samples("18446744073709551615")
            .unwrap_err()
            .contains("5 to 1000"));
    }

    #[test]
    fn sweep_has_38_sizes() {
        let s = sweep_sizes();
        assert_eq!(s.len(), 38);
        assert_eq!((s[0], s[32], s[37]), (0, 512, 16384));
    }

    #[test]
    fn clock_rates() {
        assert_eq!(cpu_ghz("3").unwrap(), CpuGhz::Rate(3.0));
        assert_eq!(cpu_ghz(" 2.45 ").unwrap(), CpuGhz::Rate(2.45));
        assert_eq!(cpu_ghz("OFF").unwrap(), CpuGhz::Off);
        for bad in ["0", "-1", "100.5", "NaN", "inf", "fast"] {
            assert!(cpu_ghz(bad).unwrap_err().contains("or off"), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(min_time("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(min_time("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(min_time("2").unwrap(), Duration::from_secs(2));
        assert_eq!(min_time("100us").unwrap(), Duration::from_micros(100));
        assert_eq!(min_time("1min 30s").unwrap(), Duration::from_secs(90));
        assert!(min_time("fast").is_err());
        assert!(min_time("0s").is_err());
        assert!(min_time("2h").is_err());
    }
}
