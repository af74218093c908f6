//! Which implementation runs where: every primitive's backends, whether
//! this CPU runs them, which one `new()` picks, and forcing one (what a
//! benchmark or a test of every kernel does).
//!
//! ```text
//! cargo run -p fastcrypt --example backends
//! ```

use fastcrypt::PrimitiveBackend;

/// One generic function for every primitive, through the trait that all
/// `Backend` enums implement.
fn report<B: PrimitiveBackend>() {
    println!("{} (new() picks {}):", B::PRIMITIVE, B::fastest());
    for &b in B::ALL {
        let state = match b.check() {
            Ok(()) => "runs here".to_string(),
            Err(e) => e.to_string(),
        };
        println!("  {:<14} {state}", b.name());
    }
}

fn main() {
    report::<fastcrypt::sha1::Backend>();
    report::<fastcrypt::rc4::Backend>();
    report::<fastcrypt::ghash::Backend>();
    report::<fastcrypt::aes_gcm::Backend>();

    // Forcing a backend is an ordinary, safe call; one the CPU lacks is an
    // error, never undefined behaviour.
    use fastcrypt::sha1::{Backend, Sha1};
    let digests: Vec<[u8; 20]> = Backend::available()
        .into_iter()
        .map(|b| {
            let mut h = Sha1::with_backend(b).expect("available");
            h.update(b"every backend agrees");
            h.finalize()
        })
        .collect();
    assert!(digests.windows(2).all(|w| w[0] == w[1]));
    println!("sha1: {} backends, one answer", digests.len());
}
