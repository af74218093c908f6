//! Gives the shared library the reference's soname on ELF systems.
//!
//! Debian and others ship the reference sha1collisiondetection library as
//! `libsha1detectcoll.so.1` (package libsha1detectcoll1). Linking with
//! `-lsha1detectcoll` records the soname as the program's `NEEDED` entry,
//! so a program built against this library loads any
//! `libsha1detectcoll.so.1` at run time, and one built against the
//! reference loads this one when it is installed under that name.

/// The shared library's soname (the reference's ABI version 1).
const SONAME: &str = "libsha1detectcoll.so.1";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly"
    );
    if elf {
        // Only the cdylib's link step sees this; the rlib and the
        // staticlib are not linked by rustc.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{SONAME}");
    }
    // For the tests, which install the library under its soname.
    println!(
        "cargo:rustc-env=SHA1DC_SONAME={}",
        if elf { SONAME } else { "" }
    );
}
