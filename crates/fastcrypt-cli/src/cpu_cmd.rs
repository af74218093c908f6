//! `fastcrypt cpu`: what this machine offers and what fastcrypt picks.

use fastcrypt::cpu::{self, Features};
use std::fmt::Write as _;

/// One primitive's backends: `(name, available, needs)` and the default.
pub struct PrimitiveBackends {
    pub primitive: &'static str,
    pub backends: Vec<(&'static str, bool, &'static str)>,
    pub default: String,
}

/// One primitive's rows, from its `Backend` type (the same API for all).
macro_rules! backends_of {
    ($name:literal, $backend:ty) => {
        PrimitiveBackends {
            primitive: $name,
            backends: <$backend>::ALL
                .iter()
                .map(|b| (b.name(), b.is_available(), b.needs()))
                .collect(),
            default: <$backend>::fastest().to_string(),
        }
    };
}

/// Every primitive the library has, in the order the CLI lists them.
pub fn primitives() -> Vec<PrimitiveBackends> {
    vec![
        backends_of!("sha1", fastcrypt::sha1::Backend),
        backends_of!("rc4", fastcrypt::rc4::Backend),
        backends_of!("ghash", fastcrypt::ghash::Backend),
        backends_of!("aes-gcm", fastcrypt::aes_gcm::Backend),
    ]
}

/// The CPU model: CPUID's brand string on x86, else the OS's idea of it.
pub fn cpu_model() -> String {
    if let Some(m) = cpu::model() {
        return m;
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| {
                    l.starts_with("model name")
                        || l.starts_with("Model")
                        || l.starts_with("cpu model")
                })
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH))
}

/// The detected features as a space-separated list (`none` if empty).
pub fn feature_line() -> String {
    let f = Features::get();
    let on: Vec<&str> = f
        .list()
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
    if on.is_empty() {
        "none".into()
    } else {
        on.join(" ")
    }
}

pub fn run() -> Result<(), String> {
    let mut out = String::new();
    let _ = writeln!(out, "cpu:      {}", cpu_model());
    let _ = writeln!(out, "arch:     {}", std::env::consts::ARCH);
    let _ = writeln!(out, "features: {}", feature_line());
    if let Some(x) = cpu::xcr0() {
        let _ = writeln!(out, "xcr0:     {x:#x}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<10} {:<14} {:<10} needs",
        "primitive", "backend", "status"
    );
    for p in primitives() {
        for (name, avail, needs) in &p.backends {
            let status = match (*avail, *name == p.default) {
                (true, true) => "default",
                (true, false) => "available",
                (false, _) => "n/a",
            };
            let needs = if needs.is_empty() { "-" } else { needs };
            let _ = writeln!(
                out,
                "{:<10} {:<14} {:<10} {}",
                p.primitive, name, status, needs
            );
        }
    }
    print!("{out}");
    Ok(())
}
