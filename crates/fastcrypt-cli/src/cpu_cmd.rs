//! `fastcrypt cpu`: what this machine offers and what fastcrypt picks.

use crate::backends::{backend_table, BackendTable};
use crate::machine::{self, name_list};
use std::fmt::Write as _;

/// Every primitive the library has, in the order `fastcrypt cpu` lists them.
const PRIMITIVES: [fn() -> BackendTable; 4] = [
    backend_table::<fastcrypt::sha1::Backend>,
    backend_table::<fastcrypt::rc4::Backend>,
    backend_table::<fastcrypt::ghash::Backend>,
    backend_table::<fastcrypt::aes_gcm::Backend>,
];

/// The feature lines: the CPU flags present and absent (named as
/// `/proc/cpuinfo` names them, so the two can be checked against each
/// other), then the register state the OS saves, which is no CPU flag.
fn feature_lines(out: &mut String) {
    let features = machine::features();
    let flags = |present: bool| -> Vec<&str> {
        features
            .iter()
            .filter(|f| !f.os_state && f.present == present)
            .map(|f| f.name)
            .collect()
    };
    let os_state: Vec<String> = features
        .iter()
        .filter(|f| f.os_state)
        .map(|f| format!("{} {}", f.name, if f.present { "yes" } else { "no" }))
        .collect();
    let _ = writeln!(out, "features: {}", name_list(&flags(true)));
    let _ = writeln!(out, "absent:   {}", name_list(&flags(false)));
    if !os_state.is_empty() {
        let _ = writeln!(out, "os state: {}", os_state.join(", "));
    }
}

pub fn run() -> Result<(), String> {
    let mut out = String::new();
    let _ = writeln!(out, "cpu:      {}", machine::cpu_model());
    let _ = writeln!(out, "arch:     {}", std::env::consts::ARCH);
    feature_lines(&mut out);
    if let Some(x) = fastcrypt::cpu::xcr0() {
        let _ = writeln!(out, "xcr0:     {x:#x}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<10} {:<14} {:<10} needs",
        "primitive", "backend", "status"
    );
    for table in PRIMITIVES.map(|f| f()) {
        for b in &table.rows {
            let status = match (b.available, b.name == table.fastest) {
                (true, true) => "default",
                (true, false) => "available",
                // The build, not the CPU, is why (a portable-only build).
                (false, _) if !b.compiled => "not-built",
                (false, _) => "n/a",
            };
            let needs = if b.needs.is_empty() { "-" } else { b.needs };
            let _ = writeln!(
                out,
                "{:<10} {:<14} {:<10} {}",
                table.primitive, b.name, status, needs
            );
        }
    }
    print!("{out}");
    Ok(())
}
