//! Records the compiler's version for `fastcrypt speed`'s header: the
//! numbers in a benchmark table mean little without the toolchain that
//! built the code being measured.

use std::process::Command;

fn main() {
    // Cargo hands build scripts the compiler it builds with in `RUSTC`
    // (a wrapper such as sccache may sit in front of it; `-V` still answers).
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("unknown ({rustc} -V failed)"));
    println!("cargo:rustc-env=FASTCRYPT_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");
}
