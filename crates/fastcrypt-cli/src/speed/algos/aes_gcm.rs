//! AES-128-GCM and AES-256-GCM, sealing (`aes-128-gcm`, rows `Seal_*`) and
//! opening (`aes-128-gcm-open`, rows `Open_*`): every fastcrypt backend,
//! OpenSSL (EVP), RustCrypto `aes-gcm` and ring. The key is set up once per
//! implementation; one operation seals the buffer in place with a 12-byte
//! nonce, no associated data, and produces the 16-byte tag, or opens it:
//! checks a real tag and decrypts. (A fixed nonce is fine for timing and
//! nothing else.)
//!
//! Opening in place turns the buffer into plaintext, which no longer
//! matches the tag. But CTR with one nonce is an involution: opening the
//! result again, with the tag computed over *it*, gives the original bytes
//! back. So each open row computes, once, the tags of the buffer B and of
//! B xor keystream, and alternates them: every timed open verifies a valid
//! tag and decrypts, for every implementation alike.

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

pub static AES_128_GCM_OPEN: Algorithm = Algorithm {
    name: "aes-128-gcm-open",
    go_family: "AES128GCMOpen",
    default_sizes: super::AEAD_SIZES,
    row_name: |n| super::cipher_row_name("Open_", n),
    backends,
    auto_picks: || Backend::fastest().name(),
    implementations: || open_implementations::<16>(),
};

pub static AES_256_GCM_OPEN: Algorithm = Algorithm {
    name: "aes-256-gcm-open",
    go_family: "AES256GCMOpen",
    default_sizes: super::AEAD_SIZES,
    row_name: |n| super::cipher_row_name("Open_", n),
    backends,
    auto_picks: || Backend::fastest().name(),
    implementations: || open_implementations::<32>(),
};

const NONCE: [u8; 12] = [0x5a; 12];

/// An open row from a `seal` and an `open` of one implementation (see the
/// module docs for the alternating tags).
fn open_op(
    mut seal: impl FnMut(&mut [u8]) -> [u8; 16] + 'static,
    mut open: impl FnMut(&mut [u8], &[u8; 16]) -> bool + 'static,
) -> Box<dyn Op> {
    // (tag over the buffer as it is now, tag over it after one open)
    let mut tags: Option<([u8; 16], [u8; 16])> = None;
    op(move |buf| {
        let (now, next) = *tags.get_or_insert_with(|| {
            let mut x = buf.to_vec();
            let over_x = seal(&mut x); // x = B ^ KS, tag over x
            let over_b = seal(&mut x); // x = B again, tag over B
            (over_b, over_x)
        });
        let ok = open(buf, &now);
        assert!(
            ok,
            "AES-GCM open refused a valid tag: the benchmark is wrong"
        );
        tags = Some((next, now));
        black_box(ok);
    })
}

fn fastcrypt_open_op(gcm: Gcm) -> Box<dyn Op> {
    match gcm {
        Gcm::A128(g) => {
            let g = std::rc::Rc::new(g);
            let g2 = g.clone();
            open_op(
                move |b| tag16(g.seal_in_place_detached(&NONCE, &[], b).expect("seal")),
                move |b, t| g2.open_in_place_detached(&NONCE, &[], b, t).is_ok(),
            )
        }
        Gcm::A256(g) => {
            let g = std::rc::Rc::new(g);
            let g2 = g.clone();
            open_op(
                move |b| tag16(g.seal_in_place_detached(&NONCE, &[], b).expect("seal")),
                move |b, t| g2.open_in_place_detached(&NONCE, &[], b, t).is_ok(),
            )
        }
    }
}

fn tag16(t: fastcrypt::aes_gcm::Tag) -> [u8; 16] {
    t.as_ref().try_into().expect("16-byte tag")
}

fn open_implementations<const K: usize>() -> Vec<Implementation> {
    let auto = fastcrypt_gcm::<K>(None).expect("AES-GCM key of 16 or 32 bytes");
    let mut v = vec![Implementation::auto(fastcrypt_open_op(auto))];
    for (&b, info) in Backend::ALL.iter().zip(backends()) {
        let run = fastcrypt_gcm::<K>(Some(b)).map(fastcrypt_open_op);
        v.push(Implementation::backend(&info, run));
    }
    v.push(Implementation::peer(
        "openssl",
        "openssl",
        openssl_open::<K>(),
    ));
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok(rustcrypto_open::<K>()),
    ));
    v.push(Implementation::peer("ring", "ring", ring_open::<K>()));
    v
}

/// EVP decryption with the key schedule kept, the tag set before final.
fn openssl_open<const K: usize>() -> Result<Box<dyn Op>, String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    use std::cell::RefCell;
    use std::rc::Rc;
    let cipher = if K == 16 {
        Cipher::aes_128_gcm()
    } else {
        Cipher::aes_256_gcm()
    };
    let key = [0x42u8; K];
    let why = |e: openssl::error::ErrorStack| format!("AES-GCM: {e}");
    let mut enc = CipherCtx::new().map_err(why)?;
    enc.encrypt_init(Some(cipher), Some(&key), Some(&NONCE))
        .map_err(why)?;
    let mut dec = CipherCtx::new().map_err(why)?;
    dec.decrypt_init(Some(cipher), Some(&key), Some(&NONCE))
        .map_err(why)?;
    let enc = Rc::new(RefCell::new(enc));
    Ok(open_op(
        move |buf| {
            let mut ctx = enc.borrow_mut();
            ctx.encrypt_init(None, None, Some(&NONCE))
                .expect("EVP_EncryptInit_ex");
            let n = buf.len();
            ctx.cipher_update_inplace(buf, n)
                .expect("EVP_EncryptUpdate");
            ctx.cipher_final(&mut [0u8; 16])
                .expect("EVP_EncryptFinal_ex");
            let mut tag = [0u8; 16];
            ctx.tag(&mut tag).expect("EVP_CTRL_GCM_GET_TAG");
            tag
        },
        move |buf, tag| {
            dec.decrypt_init(None, None, Some(&NONCE))
                .expect("EVP_DecryptInit_ex");
            let n = buf.len();
            dec.cipher_update_inplace(buf, n)
                .expect("EVP_DecryptUpdate");
            dec.set_tag(tag).expect("EVP_CTRL_GCM_SET_TAG");
            dec.cipher_final(&mut [0u8; 16]).is_ok()
        },
    ))
}

fn rustcrypto_open<const K: usize>() -> Box<dyn Op> {
    use aes_gcm::aead::{AeadInOut, KeyInit};
    let nonce = NONCE.into();
    macro_rules! with {
        ($ty:ty) => {{
            let g = std::rc::Rc::new(<$ty>::new_from_slice(&[0x42u8; K]).expect("key length"));
            let g2 = g.clone();
            open_op(
                move |b| {
                    g.encrypt_inout_detached(&nonce, &[], b.into())
                        .expect("seal")
                        .into()
                },
                move |b, t| {
                    g2.decrypt_inout_detached(&nonce, &[], b.into(), t.into())
                        .is_ok()
                },
            )
        }};
    }
    if K == 16 {
        with!(aes_gcm::Aes128Gcm)
    } else {
        with!(aes_gcm::Aes256Gcm)
    }
}

fn ring_open<const K: usize>() -> Result<Box<dyn Op>, String> {
    use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_128_GCM, AES_256_GCM};
    let alg = if K == 16 { &AES_128_GCM } else { &AES_256_GCM };
    let key = UnboundKey::new(alg, &[0x42u8; K]).map_err(|_| "ring: key rejected".to_string())?;
    let key = std::rc::Rc::new(LessSafeKey::new(key));
    let key2 = key.clone();
    Ok(open_op(
        move |buf| {
            let nonce = Nonce::assume_unique_for_key(NONCE);
            let tag = key
                .seal_in_place_separate_tag(nonce, Aad::empty(), buf)
                .expect("seal");
            tag.as_ref().try_into().expect("16-byte tag")
        },
        move |buf, tag| {
            let nonce = Nonce::assume_unique_for_key(NONCE);
            key2.open_in_place_separate_tag(nonce, Aad::empty(), Tag::from(*tag), buf, 0..)
                .is_ok()
        },
    ))
}

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
