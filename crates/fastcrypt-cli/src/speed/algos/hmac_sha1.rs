//! HMAC-SHA1 with the key set up once, outside the measured loop (as TOTP
//! servers, Kerberos and TLS-era protocols use it): every fastcrypt
//! backend of `HmacSha1` (`mac`, one call per message), RustCrypto's
//! `Hmac<sha1::Sha1>` (keyed once, cloned per message), ring's
//! `hmac::Key` and OpenSSL's HMAC through `EVP_DigestSign`. The `openssl`
//! crate has no way to copy a keyed HMAC context, so OpenSSL's row makes
//! the `PKey` once but a signer per message, which keys again: its figure
//! includes that set-up. One operation is the MAC of the whole buffer.

use super::{backend_rows, op, Algorithm, BufferUse, Implementation, Params, RowNames};
use crate::backends::backend_table;
use fastcrypt::sha1::{Backend, HmacSha1};
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "hmac-sha1",
    go_family: "HMACSHA1",
    default_sizes: SIZES,
    rows: RowNames::Prefixed("MAC_"),
    sweeps: true,
    min_size: 0,
    // `HmacSha1` runs on SHA-1's backends.
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations,
};

/// A message the size of a TOTP/RPC payload, and 1 KiB.
const SIZES: &[usize] = &[64, 1024];

/// A 20-byte key, the size RFC 2104 recommends for HMAC-SHA1.
const KEY: &[u8; 20] = b"fastcrypt-hmac-key!!";

fn implementations(_: &Params) -> Vec<Implementation> {
    // `HmacSha1::mac`: the MAC of one message from the prepared key.
    let prepared = |key: HmacSha1| {
        op(move |buf| {
            black_box(key.mac(buf));
        })
    };
    let mut v = vec![Implementation::auto(prepared(HmacSha1::new(KEY)))];
    v.extend(backend_rows(|b: Backend| {
        HmacSha1::with_backend(b, KEY).ok().map(prepared)
    }));
    v.push(
        Implementation::peer("rustcrypto", "rustcrypto", Ok(rustcrypto()))
            .about("hmac::Hmac<sha1::Sha1>, keyed once, cloned per message"),
    );
    v.push(
        Implementation::peer("ring", "ring", Ok(ring_hmac()))
            .about("ring::hmac::Key (HMAC_SHA1_FOR_LEGACY_USE_ONLY) made once, hmac::sign"),
    );
    v.push(
        Implementation::peer("openssl", "openssl", openssl_hmac())
            .about("PKey::hmac made once, a Signer (EVP_DigestSign) per message"),
    );
    v
}

fn rustcrypto() -> Box<dyn super::Op> {
    use hmac::{KeyInit, Mac};
    let mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(KEY).expect("any key length");
    op(move |buf| {
        let mut m = mac.clone();
        m.update(buf);
        black_box(m.finalize().into_bytes());
    })
}

fn ring_hmac() -> Box<dyn super::Op> {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, KEY);
    op(move |buf| {
        black_box(ring::hmac::sign(&key, buf));
    })
}

fn openssl_hmac() -> Result<Box<dyn super::Op>, String> {
    use openssl::{hash::MessageDigest, pkey::PKey, sign::Signer};
    let key = PKey::hmac(KEY).map_err(|e| format!("OpenSSL HMAC key: {e}"))?;
    Ok(op(move |buf| {
        let mut s = Signer::new(MessageDigest::sha1(), &key).expect("EVP_DigestSignInit");
        s.update(buf).expect("EVP_DigestSignUpdate");
        black_box(s.sign_to_vec().expect("EVP_DigestSignFinal"));
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every peer and backend computes the same MAC, through the calls
    /// the rows make; then every registered row runs. (An `Op` returns
    /// nothing to compare: the rows pass their results to `black_box`.)
    #[test]
    fn rows_agree() {
        let msg = b"The quick brown fox jumps over the lazy dog".to_vec();
        let want = fastcrypt::sha1::hmac_sha1(KEY, &msg);
        let ring = ring::hmac::sign(
            &ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, KEY),
            &msg,
        );
        assert_eq!(ring.as_ref(), want);
        use hmac::{KeyInit, Mac};
        let mut m = hmac::Hmac::<sha1::Sha1>::new_from_slice(KEY).unwrap();
        m.update(&msg);
        assert_eq!(m.finalize().into_bytes()[..], want);
        let key = openssl::pkey::PKey::hmac(KEY).unwrap();
        let mut s = openssl::sign::Signer::new(openssl::hash::MessageDigest::sha1(), &key).unwrap();
        s.update(&msg).unwrap();
        assert_eq!(s.sign_to_vec().unwrap(), want);
        for b in Backend::available() {
            let key = HmacSha1::with_backend(b, KEY).unwrap();
            assert_eq!(key.mac(&msg), want, "{b}");
        }
        // Every registered row runs.
        for i in implementations(&Params::default()) {
            if let Ok(mut op) = i.op {
                op.run(&mut msg.clone(), 2);
            }
        }
    }
}
