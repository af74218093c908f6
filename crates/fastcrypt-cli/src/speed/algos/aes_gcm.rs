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
//!
//! The open algorithms also have a reference row, `seal`: fastcrypt's
//! default seal of the same buffer, so that `fastcrypt speed
//! aes-128-gcm-open --compare seal,auto` gives open's speed against
//! seal's as medians of paired rounds.

use super::{backend_rows, op, Algorithm, Implementation, Op, RowNames, AEAD_SIZES};
use crate::backends::backend_table;
use fastcrypt::aes_gcm::{Aes128Gcm, Aes256Gcm, Backend};
use std::hint::black_box;
use std::rc::Rc;

pub static AES_128_GCM: Algorithm = registration(
    "aes-128-gcm",
    "AES128GCM",
    "Seal_",
    implementations::<Aes128Gcm, false>,
);
pub static AES_256_GCM: Algorithm = registration(
    "aes-256-gcm",
    "AES256GCM",
    "Seal_",
    implementations::<Aes256Gcm, false>,
);
pub static AES_128_GCM_OPEN: Algorithm = registration(
    "aes-128-gcm-open",
    "AES128GCMOpen",
    "Open_",
    implementations::<Aes128Gcm, true>,
);
pub static AES_256_GCM_OPEN: Algorithm = registration(
    "aes-256-gcm-open",
    "AES256GCMOpen",
    "Open_",
    implementations::<Aes256Gcm, true>,
);

/// The four registrations differ in key length and direction only.
const fn registration(
    name: &'static str,
    go_family: &'static str,
    row_prefix: &'static str,
    implementations: fn() -> Vec<Implementation>,
) -> Algorithm {
    Algorithm {
        name,
        go_family,
        default_sizes: AEAD_SIZES,
        rows: RowNames::Prefixed(row_prefix),
        sweeps: true,
        backends: backend_table::<Backend>,
        implementations,
    }
}

const NONCE: [u8; 12] = [0x5a; 12];
/// Any fixed key does; its first 16 or 32 bytes are the key.
const KEY: [u8; 32] = [0x42; 32];

/// fastcrypt's two AES-GCM types behind one interface, so that one generic
/// row builder serves both key lengths with static calls in the measured
/// loop.
trait FastcryptGcm: Sized + 'static {
    const KEY_LEN: usize;
    fn auto() -> Self;
    fn with_backend(b: Backend) -> Option<Self>;
    fn seal(&self, buf: &mut [u8]) -> Option<fastcrypt::aes_gcm::Tag>;
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool;
}

macro_rules! fastcrypt_gcm {
    ($ty:ty, $len:literal) => {
        impl FastcryptGcm for $ty {
            const KEY_LEN: usize = $len;
            fn auto() -> Self {
                <$ty>::new(&[0x42; $len])
            }
            fn with_backend(b: Backend) -> Option<Self> {
                <$ty>::with_backend(b, &[0x42; $len]).ok()
            }
            fn seal(&self, buf: &mut [u8]) -> Option<fastcrypt::aes_gcm::Tag> {
                self.seal_in_place_detached(&NONCE, &[], buf).ok()
            }
            fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
                self.open_in_place_detached(&NONCE, &[], buf, tag).is_ok()
            }
        }
    };
}
fastcrypt_gcm!(Aes128Gcm, 16);
fastcrypt_gcm!(Aes256Gcm, 32);

fn implementations<G: FastcryptGcm, const OPEN: bool>() -> Vec<Implementation> {
    let fastcrypt = |g: G| -> Box<dyn Op> {
        if OPEN {
            let g = Rc::new(g);
            let g2 = g.clone();
            open_op(
                move |b| tag16(g.seal(b).expect("seal")),
                move |b, t| g2.open(b, t),
            )
        } else {
            op(move |buf| {
                black_box(g.seal(buf));
            })
        }
    };
    let len = G::KEY_LEN;
    let mut v = vec![Implementation::auto(fastcrypt(G::auto()))];
    v.extend(backend_rows(|b| G::with_backend(b).map(fastcrypt)));
    if OPEN {
        // Sealing is the reference for opening: both are one fused pass
        // over the buffer, so `--compare seal,auto` pairs what a failed
        // tag check must not cost (a second pass) round by round.
        let g = G::auto();
        v.push(
            Implementation::reference_as(
                "seal",
                "sealing",
                op(move |buf| {
                    black_box(g.seal(buf));
                }),
            )
            .about("fastcrypt's seal (auto) of the same buffer: ratios to it are what opening costs over sealing"),
        );
    }
    let (openssl, rustcrypto, ring) = if OPEN {
        (openssl_open(len), rustcrypto_open(len), ring_open(len))
    } else {
        (openssl_seal(len), rustcrypto_seal(len), ring_seal(len))
    };
    v.push(Implementation::peer("openssl", "openssl", openssl));
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok(rustcrypto),
    ));
    v.push(Implementation::peer("ring", "ring", ring));
    v
}

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

fn tag16(t: fastcrypt::aes_gcm::Tag) -> [u8; 16] {
    t.as_ref().try_into().expect("16-byte tag")
}

fn openssl_cipher(len: usize) -> &'static openssl::cipher::CipherRef {
    if len == 16 {
        openssl::cipher::Cipher::aes_128_gcm()
    } else {
        openssl::cipher::Cipher::aes_256_gcm()
    }
}

fn ring_key(len: usize) -> Result<ring::aead::LessSafeKey, String> {
    use ring::aead::{LessSafeKey, UnboundKey, AES_128_GCM, AES_256_GCM};
    let alg = if len == 16 {
        &AES_128_GCM
    } else {
        &AES_256_GCM
    };
    let key = UnboundKey::new(alg, &KEY[..len]).map_err(|_| "ring: key rejected".to_string())?;
    Ok(LessSafeKey::new(key))
}

/// EVP decryption with the key schedule kept, the tag set before final.
fn openssl_open(len: usize) -> Result<Box<dyn Op>, String> {
    use openssl::cipher_ctx::CipherCtx;
    use std::cell::RefCell;
    let why = |e: openssl::error::ErrorStack| format!("AES-GCM: {e}");
    let mut dec = CipherCtx::new().map_err(why)?;
    dec.decrypt_init(Some(openssl_cipher(len)), Some(&KEY[..len]), Some(&NONCE))
        .map_err(why)?;
    let enc = Rc::new(RefCell::new(openssl_ctx(len)?));
    Ok(open_op(
        move |buf| openssl_seal_tag(&mut enc.borrow_mut(), buf),
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

/// EVP with the key schedule kept and a new IV per message, sealing in place.
fn openssl_seal(len: usize) -> Result<Box<dyn Op>, String> {
    let mut ctx = openssl_ctx(len)?;
    Ok(op(move |buf| {
        black_box(openssl_seal_tag(&mut ctx, buf));
    }))
}

/// An EVP encryption context with the key schedule set up.
fn openssl_ctx(len: usize) -> Result<openssl::cipher_ctx::CipherCtx, String> {
    let why = |e: openssl::error::ErrorStack| format!("AES-GCM: {e}");
    let mut ctx = openssl::cipher_ctx::CipherCtx::new().map_err(why)?;
    ctx.encrypt_init(Some(openssl_cipher(len)), Some(&KEY[..len]), Some(&NONCE))
        .map_err(why)?;
    Ok(ctx)
}

fn openssl_seal_tag(ctx: &mut openssl::cipher_ctx::CipherCtx, buf: &mut [u8]) -> [u8; 16] {
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
}

/// RustCrypto's two types differ in their key size only.
macro_rules! with_rustcrypto {
    ($len:expr, $g:ident => $make:expr) => {
        if $len == 16 {
            let $g = aes_gcm::Aes128Gcm::new_from_slice(&KEY[..16]).expect("key length");
            $make
        } else {
            let $g = aes_gcm::Aes256Gcm::new_from_slice(&KEY[..32]).expect("key length");
            $make
        }
    };
}

fn rustcrypto_open(len: usize) -> Box<dyn Op> {
    use aes_gcm::aead::{AeadInOut, KeyInit};
    let nonce = NONCE.into();
    with_rustcrypto!(len, g => {
        let g = Rc::new(g);
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
    })
}

fn rustcrypto_seal(len: usize) -> Box<dyn Op> {
    use aes_gcm::aead::{AeadInOut, KeyInit};
    let nonce = NONCE.into();
    with_rustcrypto!(len, g => op(move |buf| {
        black_box(g.encrypt_inout_detached(&nonce, &[], buf.into()).ok());
    }))
}

fn ring_open(len: usize) -> Result<Box<dyn Op>, String> {
    use ring::aead::{Aad, Nonce, Tag};
    let key = Rc::new(ring_key(len)?);
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

fn ring_seal(len: usize) -> Result<Box<dyn Op>, String> {
    use ring::aead::{Aad, Nonce};
    let key = ring_key(len)?;
    Ok(op(move |buf| {
        let nonce = Nonce::assume_unique_for_key(NONCE);
        black_box(
            key.seal_in_place_separate_tag(nonce, Aad::empty(), buf)
                .ok(),
        );
    }))
}
