//! Defines `cfg(fastcrypt_x86)`: x86 or x86-64, and not built with
//! `--cfg fastcrypt_backend="portable"`. It is the one condition under
//! which SIMD kernels are compiled; naming it once keeps the four-line
//! `cfg(all(any(...), not(...)))` off every kernel, variant and match arm.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fastcrypt_x86)");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    // Cargo passes `--cfg` values from RUSTFLAGS to build scripts as
    // CARGO_CFG_<NAME>.
    let portable = std::env::var("CARGO_CFG_FASTCRYPT_BACKEND")
        .is_ok_and(|v| v.split(',').any(|x| x == "portable"));
    if (arch == "x86" || arch == "x86_64") && !portable {
        println!("cargo::rustc-cfg=fastcrypt_x86");
    }
}
