//! A second Rust static library in the same program, as git links one
//! beside libsha1detectcoll when built with its Rust parts. The C API
//! tests build it with `rustc --crate-type staticlib` and link it beside
//! the prelinked archive, in either order. It unwinds and catches a
//! panic, so the personality routine and unwind tables its frames find
//! must be its own runtime's, and its standard library must link against
//! this system's libc whatever the archive beside it holds.

use std::panic;

/// The sum of `0..n`, plus one if a panic was caught on the way (it is
/// whenever `n > 0`).
#[no_mangle]
pub extern "C" fn foreign_rust_work(n: u32) -> u32 {
    panic::set_hook(Box::new(|_| {}));
    let caught = panic::catch_unwind(|| {
        if n > 0 {
            panic!("unwound and caught");
        }
    });
    let sum: u32 = (0..n).collect::<Vec<u32>>().iter().sum();
    sum + u32::from(caught.is_err())
}
