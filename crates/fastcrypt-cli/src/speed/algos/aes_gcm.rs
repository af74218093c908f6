//! AES-128-GCM and AES-256-GCM sealing: every fastcrypt backend, OpenSSL
//! (EVP), RustCrypto `aes-gcm` and ring. The key is set up once per
//! implementation; one operation seals the buffer in place with a 12-byte
//! nonce, no associated data, and produces the 16-byte tag. (A fixed nonce
//! is fine for timing and nothing else.)

use super::{backend_infos, op, Algorithm, BackendInfo, Implementation, Op};
use fastcrypt::aes_gcm::{Aes128Gcm, Aes256Gcm, Backend};
use std::hint::black_box;

pub static AES_128_GCM: Algorithm = Algorithm {
    name: "aes-128-gcm",
    go_family: "AES128GCM",
    default_sizes: super::AEAD_SIZES,
    row_name: |n| super::cipher_row_name("Seal_", n),
    backends,
    auto_picks: || Backend::fastest().name(),
    implementations: || implementations::<16>(),
};

pub static AES_256_GCM: Algorithm = Algorithm {
    name: "aes-256-gcm",
    go_family: "AES256GCM",
    default_sizes: super::AEAD_SIZES,
    row_name: |n| super::cipher_row_name("Seal_", n),
    backends,
    auto_picks: || Backend::fastest().name(),
    implementations: || implementations::<32>(),
};

const NONCE: [u8; 12] = [0x5a; 12];

fn backends() -> Vec<BackendInfo> {
    backend_infos!(Backend)
}

/// fastcrypt's cipher for a key length, with its backend (`None`: auto).
enum Gcm {
    A128(Aes128Gcm),
    A256(Aes256Gcm),
}

fn fastcrypt_gcm<const K: usize>(backend: Option<Backend>) -> Option<Gcm> {
    let key = [0x42u8; K];
    match K {
        16 => {
            let key: &[u8; 16] = key[..].try_into().ok()?;
            Some(Gcm::A128(match backend {
                None => Aes128Gcm::new(key),
                Some(b) => Aes128Gcm::with_backend(b, key).ok()?,
            }))
        }
        _ => {
            let key: &[u8; 32] = key[..].try_into().ok()?;
            Some(Gcm::A256(match backend {
                None => Aes256Gcm::new(key),
                Some(b) => Aes256Gcm::with_backend(b, key).ok()?,
            }))
        }
    }
}

fn fastcrypt_op(gcm: Gcm) -> Box<dyn Op> {
    match gcm {
        Gcm::A128(g) => op(move |buf| {
            black_box(g.seal_in_place_detached(&NONCE, &[], buf).ok());
        }),
        Gcm::A256(g) => op(move |buf| {
            black_box(g.seal_in_place_detached(&NONCE, &[], buf).ok());
        }),
    }
}

fn implementations<const K: usize>() -> Vec<Implementation> {
    // K is 16 or 32 (the two registrations above), so this cannot fail.
    let auto = fastcrypt_gcm::<K>(None).expect("AES-GCM key of 16 or 32 bytes");
    let mut v = vec![Implementation::auto(fastcrypt_op(auto))];
    for (&b, info) in Backend::ALL.iter().zip(backends()) {
        let run = fastcrypt_gcm::<K>(Some(b)).map(fastcrypt_op);
        v.push(Implementation::backend(&info, run));
    }
    v.push(Implementation::peer(
        "openssl",
        "openssl",
        openssl_seal::<K>(),
    ));
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok(rustcrypto_seal::<K>()),
    ));
    v.push(Implementation::peer("ring", "ring", ring_seal::<K>()));
    v
}

/// EVP with the key schedule kept and a new IV per message, sealing in place.
fn openssl_seal<const K: usize>() -> Result<Box<dyn Op>, String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let cipher = if K == 16 {
        Cipher::aes_128_gcm()
    } else {
        Cipher::aes_256_gcm()
    };
    let key = [0x42u8; K];
    let why = |e: openssl::error::ErrorStack| format!("AES-GCM: {e}");
    let mut ctx = CipherCtx::new().map_err(why)?;
    ctx.encrypt_init(Some(cipher), Some(&key), Some(&NONCE))
        .map_err(why)?;
    Ok(op(move |buf| {
        let mut tag = [0u8; 16];
        ctx.encrypt_init(None, None, Some(&NONCE))
            .expect("EVP_EncryptInit_ex");
        let n = buf.len();
        ctx.cipher_update_inplace(buf, n)
            .expect("EVP_EncryptUpdate");
        ctx.cipher_final(&mut [0u8; 16])
            .expect("EVP_EncryptFinal_ex");
        ctx.tag(&mut tag).expect("EVP_CTRL_GCM_GET_TAG");
        black_box(tag);
    }))
}

fn rustcrypto_seal<const K: usize>() -> Box<dyn Op> {
    use aes_gcm::aead::{AeadInOut, KeyInit};
    let nonce = NONCE.into();
    if K == 16 {
        let g = aes_gcm::Aes128Gcm::new(&[0x42u8; 16].into());
        op(move |buf| {
            black_box(g.encrypt_inout_detached(&nonce, &[], buf.into()).ok());
        })
    } else {
        let g = aes_gcm::Aes256Gcm::new(&[0x42u8; 32].into());
        op(move |buf| {
            black_box(g.encrypt_inout_detached(&nonce, &[], buf.into()).ok());
        })
    }
}

fn ring_seal<const K: usize>() -> Result<Box<dyn Op>, String> {
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM, AES_256_GCM};
    let alg = if K == 16 { &AES_128_GCM } else { &AES_256_GCM };
    let key = UnboundKey::new(alg, &[0x42u8; K]).map_err(|_| "ring: key rejected".to_string())?;
    let key = LessSafeKey::new(key);
    Ok(op(move |buf| {
        let nonce = Nonce::assume_unique_for_key(NONCE);
        black_box(
            key.seal_in_place_separate_tag(nonce, Aad::empty(), buf)
                .ok(),
        );
    }))
}
