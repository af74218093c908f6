//! PBKDF2-HMAC-SHA1 with 4096 iterations (WPA2-PSK's count, and the
//! Kerberos AES enctypes' default): every fastcrypt backend, RustCrypto
//! (`pbkdf2::pbkdf2::<Hmac<sha1::Sha1>>`), ring (`ring::pbkdf2`) and
//! OpenSSL (`PKCS5_PBKDF2_HMAC`). The size is the derived key's length:
//! 20 bytes is one output block (one chain of 2 x 4096 compressions),
//! 32 bytes (a WPA2 PMK) two. The time per derivation (ns/op) is the
//! figure; MB/s counts derived bytes and says little here.

use super::{backend_rows, op, Algorithm, Implementation, RowNames};
use crate::backends::backend_table;
use fastcrypt::sha1::{Backend, HmacSha1};
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "pbkdf2-sha1",
    go_family: "PBKDF2SHA1",
    default_sizes: SIZES,
    rows: RowNames::Prefixed("PBKDF2_4096_"),
    // Output lengths up to 16 KiB at 4096 iterations would take minutes.
    sweeps: false,
    // PBKDF2 runs on SHA-1's backends.
    backends: backend_table::<Backend>,
    implementations,
};

/// One output block, and a WPA2 PMK (two).
const SIZES: &[usize] = &[20, 32];

const ITERATIONS: u32 = 4096;
const PASSWORD: &[u8] = b"correct horse battery staple";
const SALT: &[u8] = b"ThisIsASSID";

fn implementations() -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(op(|buf| {
        fastcrypt::sha1::pbkdf2_hmac_sha1(PASSWORD, SALT, ITERATIONS, buf).expect("valid");
        black_box(buf);
    }))];
    v.extend(backend_rows(|b: Backend| {
        HmacSha1::with_backend(b, PASSWORD).ok()?;
        Some(op(move |buf| {
            if let Ok(key) = HmacSha1::with_backend(b, PASSWORD) {
                key.pbkdf2(SALT, ITERATIONS, buf).expect("valid");
            }
            black_box(buf);
        }))
    }));
    v.push(
        Implementation::peer(
            "rustcrypto",
            "rustcrypto",
            Ok(op(|buf| {
                pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>>(PASSWORD, SALT, ITERATIONS, buf)
                    .expect("valid");
                black_box(buf);
            })),
        )
        .about("pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>>"),
    );
    v.push(
        Implementation::peer(
            "ring",
            "ring",
            Ok(op(|buf| {
                ring::pbkdf2::derive(
                    ring::pbkdf2::PBKDF2_HMAC_SHA1,
                    ITERATIONS.try_into().expect("non-zero"),
                    SALT,
                    PASSWORD,
                    buf,
                );
                black_box(buf);
            })),
        )
        .about("ring::pbkdf2::derive(PBKDF2_HMAC_SHA1)"),
    );
    v.push(
        Implementation::peer(
            "openssl",
            "openssl",
            Ok(op(|buf| {
                openssl::pkcs5::pbkdf2_hmac(
                    PASSWORD,
                    SALT,
                    ITERATIONS as usize,
                    openssl::hash::MessageDigest::sha1(),
                    buf,
                )
                .expect("PKCS5_PBKDF2_HMAC");
                black_box(buf);
            })),
        )
        .about("PKCS5_PBKDF2_HMAC with EVP_sha1"),
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row derives the same key (run once per size).
    #[test]
    fn rows_agree() {
        for &size in SIZES {
            let mut want = vec![0u8; size];
            fastcrypt::sha1::pbkdf2_hmac_sha1(PASSWORD, SALT, ITERATIONS, &mut want).unwrap();
            for i in implementations() {
                let Ok(mut op) = i.op else { continue };
                let mut buf = vec![0u8; size];
                op.run(&mut buf, 1);
                assert_eq!(buf, want, "{} {size}", i.name);
            }
        }
    }
}
