//! Fast, verified implementations of SHA-1, RC4, GHASH and AES-GCM.
//!
//! Each primitive has a portable backend (safe Rust, the oracle the others
//! are tested against) and x86 SIMD backends chosen at run time. Every
//! primitive follows one pattern:
//!
//! - `Backend` enum with `Display`/`FromStr` names and
//!   `Backend::available()` (what this CPU runs);
//! - `new()` picks the fastest available backend;
//!   `with_backend(backend, ...)` forces one, or returns [`Unsupported`];
//! - `.backend()` tells which one an object uses;
//! - [`PrimitiveBackend`] is that `Backend` API as a trait, for code
//!   generic over primitives.
//!
//! ```
//! use fastcrypt::sha1::{self, Backend, Sha1};
//!
//! let mut h = Sha1::new();
//! h.update(b"abc");
//! assert_eq!(h.finalize(), sha1::digest(b"abc"));
//!
//! // Every backend this CPU has gives the same answer.
//! for b in Backend::available() {
//!     let mut h = Sha1::with_backend(b).unwrap();
//!     h.update(b"abc");
//!     assert_eq!(h.finalize()[..4], [0xa9, 0x99, 0x3e, 0x36]);
//! }
//! ```
//!
//! Build with `RUSTFLAGS='--cfg fastcrypt_backend="portable"'` for a crate
//! with no SIMD code at all.
//!
//! **SHA-1 and RC4 are broken** for new designs (SHA-1 has practical
//! collisions, RC4 has keystream biases). They are here for
//! interoperability with existing protocols and formats.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[macro_use]
mod backend;

mod aes;
pub mod aes_gcm;
mod bytes;
pub mod cpu;
pub mod ghash;
pub mod rc4;
pub mod sha1;

#[cfg(test)]
mod test_rng;
#[cfg(feature = "rustcrypto")]
mod traits;

pub use backend::{PrimitiveBackend, UnknownBackend, Unsupported};
pub use bytes::ByteArray;

/// The RustCrypto trait crates fastcrypt implements, at the versions it
/// implements, as RustCrypto's own crates re-export them: code can name
/// `fastcrypt::digest::Digest` without a dependency of its own. Each
/// primitive's module also re-exports the traits its RustCrypto
/// counterpart does (`fastcrypt::sha1::Digest`, `fastcrypt::aes_gcm::Aead`,
/// ...).
#[cfg(feature = "rustcrypto")]
pub use {aead, cipher, digest, universal_hash};

/// Equality in time independent of where the inputs differ (the lengths
/// are public): for tags and MACs.
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // A full GCM tag: one 16-byte XOR, folded to a word. The byte fold
    // below became a 10-instruction shuffle-and-OR reduction for it,
    // which an AES-GCM open of a short message waits for after its tag.
    if let (Ok(x), Ok(y)) = (<&[u8; 16]>::try_from(a), <&[u8; 16]>::try_from(b)) {
        let d = u128::from_ne_bytes(*x) ^ u128::from_ne_bytes(*y);
        // Keep the compiler from comparing piecewise with early exits.
        return core::hint::black_box(d as u64 | (d >> 64) as u64) == 0;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    // Keep the compiler from turning the fold into an early exit.
    core::hint::black_box(diff) == 0
}

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::ct_eq;

    #[test]
    fn ct_eq_finds_every_flipped_bit() {
        // 16 bytes take the word path, the other lengths the byte fold.
        for len in [0, 1, 4, 8, 12, 15, 16, 17, 20, 32] {
            let a: std::vec::Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
            assert!(ct_eq(&a, &a.clone()), "{len}");
            for bit in 0..8 * len {
                let mut b = a.clone();
                b[bit / 8] ^= 1 << (bit % 8);
                assert!(!ct_eq(&a, &b), "{len} {bit}");
                assert!(!ct_eq(&b, &a), "{len} {bit}");
            }
            if len > 0 {
                assert!(!ct_eq(&a, &a[..len - 1]), "{len}");
            }
        }
        assert!(!ct_eq(&[0; 16], &[0; 15]));
    }
}
