//! Every program gives the same output built against RustCrypto and built
//! against fastcrypt, on random inputs and on the block-boundary lengths.

use fastcrypt_dropin::{aes_gcm, ghash, hmac_sha1, rc4, sha1};
use rand::{Rng, RngCore};

const CASES: usize = 300;

/// Lengths around the block sizes (16 and 64), then random ones.
fn lengths(rng: &mut impl Rng) -> Vec<usize> {
    let mut v = vec![
        0, 1, 15, 16, 17, 31, 32, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4099,
    ];
    while v.len() < CASES {
        v.push(rng.random_range(0..600));
    }
    v
}

fn bytes(rng: &mut impl Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// Runs both builds and reports the first difference with its input.
fn agree(what: &str, input: &dyn std::fmt::Debug, rc: Vec<String>, fc: Vec<String>) {
    assert!(!rc.is_empty(), "{what}: the program produced nothing");
    assert_eq!(
        rc, fc,
        "{what}: RustCrypto (left) and fastcrypt (right) differ on {input:?}"
    );
}

#[test]
fn sha1_programs_agree() {
    let mut rng = rand::rng();
    for len in lengths(&mut rng) {
        let data = bytes(&mut rng, len);
        let text: String = (0..len % 90).map(|_| rng.random_range('a'..='z')).collect();
        agree(
            "sha1",
            &(len, &text),
            sha1::rustcrypto::run(&data, &text),
            sha1::fastcrypt::run(&data, &text),
        );
    }
}

#[test]
fn hmac_sha1_programs_agree() {
    let mut rng = rand::rng();
    for len in lengths(&mut rng) {
        // Keys shorter than, equal to and longer than the 64-byte block.
        let key_len = rng.random_range(0..=150);
        let key = bytes(&mut rng, key_len);
        let msg = bytes(&mut rng, len);
        agree(
            "hmac-sha1",
            &(key.len(), len),
            hmac_sha1::rustcrypto::run(&key, &msg),
            hmac_sha1::fastcrypt::run(&key, &msg),
        );
    }
}

#[test]
fn aes_gcm_programs_agree() {
    let mut rng = rand::rng();
    for len in lengths(&mut rng) {
        let mut key = [0u8; 32];
        let mut nonce = [0u8; 12];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut nonce);
        let aad_len = rng.random_range(0..40);
        let aad = bytes(&mut rng, aad_len);
        let msg = bytes(&mut rng, len);
        agree(
            "aes-gcm",
            &(len, aad.len()),
            aes_gcm::rustcrypto::run(&key, &nonce, &aad, &msg),
            aes_gcm::fastcrypt::run(&key, &nonce, &aad, &msg),
        );
    }
}

#[test]
fn ghash_programs_agree() {
    let mut rng = rand::rng();
    for len in lengths(&mut rng) {
        let mut h = [0u8; 16];
        rng.fill_bytes(&mut h);
        let data = bytes(&mut rng, len);
        agree(
            "ghash",
            &len,
            ghash::rustcrypto::run(&h, &data),
            ghash::fastcrypt::run(&h, &data),
        );
    }
}

#[test]
fn rc4_programs_agree() {
    let mut rng = rand::rng();
    for len in lengths(&mut rng) {
        let key_len = rng.random_range(1..=256);
        let key = bytes(&mut rng, key_len);
        let data = bytes(&mut rng, len);
        agree(
            "rc4",
            &(key.len(), len),
            rc4::rustcrypto::run(&key, &data),
            rc4::fastcrypt::run(&key, &data),
        );
    }
}

/// The switch is real: each program's fastcrypt build names fastcrypt's
/// type and its RustCrypto build does not.
#[test]
fn builds_use_different_libraries() {
    let pairs = [
        (sha1::rustcrypto::subject(), sha1::fastcrypt::subject()),
        (
            hmac_sha1::rustcrypto::subject(),
            hmac_sha1::fastcrypt::subject(),
        ),
        (
            aes_gcm::rustcrypto::subject(),
            aes_gcm::fastcrypt::subject(),
        ),
        (ghash::rustcrypto::subject(), ghash::fastcrypt::subject()),
        (rc4::rustcrypto::subject(), rc4::fastcrypt::subject()),
    ];
    for (rc, fc) in pairs {
        assert!(fc.contains("fastcrypt::"), "{fc}");
        assert!(!rc.contains("fastcrypt::"), "{rc}");
    }
}
