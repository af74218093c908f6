//! Defines the two conditions under which SIMD kernels are compiled, so
//! that no kernel, variant or match arm spells out the long
//! `cfg(all(any(target_arch = ...), not(fastcrypt_backend = "portable")))`:
//!
//! - `cfg(fastcrypt_x86)`: x86 or x86-64 (intrinsics kernels, which exist
//!   in both modes);
//! - `cfg(fastcrypt_x86_64)`: x86-64 only (the RC4 `asm!` kernel, which
//!   needs the 64-bit register file);
//! - `cfg(fastcrypt_x86_32)`: 32-bit x86 only (the RC4 `asm!` kernel
//!   written for its seven general registers);
//!
//! each only when the build did not ask for
//! `--cfg fastcrypt_backend="portable"`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fastcrypt_x86)");
    println!("cargo::rustc-check-cfg=cfg(fastcrypt_x86_64)");
    println!("cargo::rustc-check-cfg=cfg(fastcrypt_x86_32)");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    // Cargo passes `--cfg` values from RUSTFLAGS to build scripts as
    // CARGO_CFG_<NAME>.
    let portable = std::env::var("CARGO_CFG_FASTCRYPT_BACKEND")
        .is_ok_and(|v| v.split(',').any(|x| x == "portable"));
    if portable {
        return;
    }
    if arch == "x86" || arch == "x86_64" {
        println!("cargo::rustc-cfg=fastcrypt_x86");
    }
    if arch == "x86_64" {
        println!("cargo::rustc-cfg=fastcrypt_x86_64");
    }
    if arch == "x86" {
        println!("cargo::rustc-cfg=fastcrypt_x86_32");
    }
}
