//! SHA-1: every fastcrypt backend, and OpenSSL (low-level and EVP),
//! RustCrypto `sha1`, ring and `sha1_smol` on the same buffers. One
//! operation hashes the whole buffer from a fresh state and finalizes, as
//! Go's `BenchmarkHash*` do.

use super::{backend_rows, op, Algorithm, BufferUse, Implementation, Params, RowNames};
use crate::backends::backend_table;
use fastcrypt::sha1::Backend;
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "sha1",
    go_family: "SHA1",
    default_sizes: super::HASH_SIZES,
    rows: RowNames::Hash,
    sweeps: true,
    min_size: 0,
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations,
};

fn implementations(_: &Params) -> Vec<Implementation> {
    // `auto` is the one-shot API a user calls: it picks the backend per call.
    let mut v = vec![Implementation::auto(op(|buf| {
        black_box(fastcrypt::sha1::digest(buf));
    }))];
    // A forced backend does what `auto` does with the choice made: the
    // same one-shot (`digest_with`), so a row and `auto` on the same
    // kernel run the same code, short messages included.
    v.extend(backend_rows(|b: Backend| {
        b.is_available().then(|| {
            op(move |buf| {
                black_box(fastcrypt::sha1::digest_with(b, buf).ok());
            })
        })
    }));
    v.push(Implementation::peer(
        "openssl",
        "openssl",
        // SHA1_Init/Update/Final: OpenSSL's low-level API, its fastest path.
        Ok(op(|buf| {
            let mut h = openssl::sha::Sha1::new();
            h.update(buf);
            black_box(h.finish());
        })),
    ));
    v.push(Implementation::peer(
        "openssl",
        "openssl-evp",
        openssl_evp(),
    ));
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok(op(|buf| {
            use ::sha1::Digest;
            black_box(::sha1::Sha1::digest(&*buf));
        })),
    ));
    v.push(Implementation::peer(
        "ring",
        "ring",
        Ok(op(|buf| {
            black_box(ring::digest::digest(
                &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
                buf,
            ));
        })),
    ));
    v.push(Implementation::peer(
        "sha1_smol",
        "sha1_smol",
        Ok(op(|buf| {
            black_box(sha1_smol::Sha1::from(&*buf).digest().bytes());
        })),
    ));
    v
}

/// The EVP interface (`EVP_DigestUpdate`/`EVP_DigestFinal_ex`) on one
/// reused context, the way a program using OpenSSL 3's provider API would.
fn openssl_evp() -> Result<Box<dyn super::Op>, String> {
    use openssl::hash::{Hasher, MessageDigest};
    let mut h = Hasher::new(MessageDigest::sha1()).map_err(|e| format!("EVP SHA-1: {e}"))?;
    Ok(op(move |buf| {
        h.update(buf).expect("EVP_DigestUpdate");
        black_box(h.finish().expect("EVP_DigestFinal_ex"));
    }))
}
