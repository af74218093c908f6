//! AES-128-GCM and AES-256-GCM, sealing (`aes-128-gcm`, rows `Seal_*`) and
//! opening (`aes-128-gcm-open`, rows `Open_*`): every fastcrypt backend,
//! OpenSSL (EVP), RustCrypto `aes-gcm` and ring. The key is set up once per
//! implementation; one operation seals the buffer in place with a 12-byte
//! nonce and produces the 16-byte tag, or opens it: checks a real tag and
//! decrypts. (A fixed nonce is fine for timing and nothing else.) There is
//! no associated data unless `--aad N` asks for N bytes of it, which every
//! operation then authenticates (a TLS 1.2 record has 13, TLS 1.3 5).
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

use super::{
    backend_rows, op, Algorithm, BufferUse, Implementation, Op, Params, RowNames, AEAD_SIZES,
};
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
    implementations: fn(&Params) -> Vec<Implementation>,
) -> Algorithm {
    Algorithm {
        name,
        go_family,
        default_sizes: AEAD_SIZES,
        rows: RowNames::Prefixed(row_prefix),
        sweeps: true,
        min_size: 0,
        takes_aad: true,
        buffer: BufferUse::Written,
        backends: backend_table::<Backend>,
        implementations,
    }
}

const NONCE: [u8; 12] = [0x5a; 12];
/// Any fixed key does; its first 16 or 32 bytes are the key.
const KEY: [u8; 32] = [0x42; 32];

/// One implementation's seal of a buffer in place, returning the tag,
/// with the run's associated data.
type Seal = Box<dyn FnMut(&mut [u8]) -> [u8; 16]>;
/// One implementation's open of a buffer in place with a tag: whether the
/// tag was accepted.
type Open = Box<dyn FnMut(&mut [u8], &[u8; 16]) -> bool>;

/// The associated data every operation of a run authenticates, shared by
/// the closures of all rows.
type Aad = Rc<[u8]>;

/// fastcrypt's two AES-GCM types behind one interface, so that one generic
/// row builder serves both key lengths with static calls in the measured
/// loop.
trait FastcryptGcm: Sized + 'static {
    const KEY_LEN: usize;
    fn auto() -> Self;
    fn with_backend(b: Backend) -> Option<Self>;
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> Option<fastcrypt::aes_gcm::Tag>;
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool;
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
            fn seal(&self, aad: &[u8], buf: &mut [u8]) -> Option<fastcrypt::aes_gcm::Tag> {
                self.seal_in_place_detached(&NONCE, aad, buf).ok()
            }
            fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
                self.open_in_place_detached(&NONCE, aad, buf, tag).is_ok()
            }
        }
    };
}
fastcrypt_gcm!(Aes128Gcm, 16);
fastcrypt_gcm!(Aes256Gcm, 32);

/// Seal and open with one fastcrypt AES-GCM object.
fn fastcrypt_pair<G: FastcryptGcm>(g: G, aad: &Aad) -> (Seal, Open) {
    let g = Rc::new(g);
    let (g2, aad2, aad) = (g.clone(), aad.clone(), aad.clone());
    (
        Box::new(move |b| tag16(g.seal(&aad, b).expect("seal"))),
        Box::new(move |b, t| g2.open(&aad2, b, t)),
    )
}

/// The row of an implementation: its seal, or for the open algorithms
/// its open (see [`open_op`]).
fn row<const OPEN: bool>((mut seal, open): (Seal, Open)) -> Box<dyn Op> {
    if OPEN {
        open_op(seal, open)
    } else {
        op(move |buf| {
            black_box(seal(buf));
        })
    }
}

fn implementations<G: FastcryptGcm, const OPEN: bool>(params: &Params) -> Vec<Implementation> {
    let aad: Aad = params.aad_bytes().into();
    let len = G::KEY_LEN;
    let mut v = vec![Implementation::auto(row::<OPEN>(fastcrypt_pair(
        G::auto(),
        &aad,
    )))];
    v.extend(backend_rows(|b| {
        G::with_backend(b).map(|g| row::<OPEN>(fastcrypt_pair(g, &aad)))
    }));
    if OPEN {
        // Sealing is the reference for opening: both are one fused pass
        // over the buffer, so `--compare seal,auto` pairs what a failed
        // tag check must not cost (a second pass) round by round.
        v.push(
            Implementation::reference_as(
                "seal",
                "sealing",
                row::<false>(fastcrypt_pair(G::auto(), &aad)),
            )
            .about("fastcrypt's seal (auto) of the same buffer: ratios to it are what opening costs over sealing"),
        );
    }
    v.push(Implementation::peer(
        "openssl",
        "openssl",
        openssl_pair(len, &aad).map(row::<OPEN>),
    ));
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok(row::<OPEN>(rustcrypto_pair(len, &aad))),
    ));
    v.push(Implementation::peer(
        "ring",
        "ring",
        ring_pair(len, &aad).map(row::<OPEN>),
    ));
    v
}

/// An open row from a `seal` and an `open` of one implementation (see the
/// module docs for the alternating tags).
fn open_op(mut seal: Seal, mut open: Open) -> Box<dyn Op> {
    let mut tags: Option<TagPair> = None;
    op(move |buf| {
        let pair = tags.get_or_insert_with(|| {
            let mut x = buf.to_vec();
            let over_x = seal(&mut x); // x = B ^ KS, tag over x
            let over_b = seal(&mut x); // x = B again, tag over B
            TagPair([over_b, over_x])
        });
        let ok = open(buf, &pair.0[0]);
        assert!(
            ok,
            "AES-GCM open refused a valid tag: the benchmark is wrong"
        );
        pair.0.swap(0, 1);
        black_box(ok);
    })
}

/// The tag over the buffer as it is now, and the tag over it after one
/// open. Aligned so that neither tag straddles two cache lines: in an
/// `Option<([u8; 16], [u8; 16])>` they sat at odd offsets of the closure's
/// heap block, and in the runs where the second crossed a 64-byte line,
/// each round's 16-byte reload of it missed store-to-load forwarding. That
/// added 10-20 ns to every 16- and 64-byte open of every implementation
/// (AMD EPYC Zen 4), in some runs and not others, as the heap moved.
#[repr(align(32))]
struct TagPair([[u8; 16]; 2]);

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

/// EVP contexts with the key schedule kept and a new IV per message, the
/// associated data passed as an update without output, in place; for
/// open, the tag set before final.
fn openssl_pair(len: usize, aad: &Aad) -> Result<(Seal, Open), String> {
    use openssl::cipher_ctx::CipherCtx;
    let why = |e: openssl::error::ErrorStack| format!("AES-GCM: {e}");
    let mut enc = CipherCtx::new().map_err(why)?;
    enc.encrypt_init(Some(openssl_cipher(len)), Some(&KEY[..len]), Some(&NONCE))
        .map_err(why)?;
    let mut dec = CipherCtx::new().map_err(why)?;
    dec.decrypt_init(Some(openssl_cipher(len)), Some(&KEY[..len]), Some(&NONCE))
        .map_err(why)?;
    let (aad, aad2) = (aad.clone(), aad.clone());
    Ok((
        Box::new(move |buf| {
            enc.encrypt_init(None, None, Some(&NONCE))
                .expect("EVP_EncryptInit_ex");
            if !aad.is_empty() {
                enc.cipher_update(&aad, None)
                    .expect("EVP_EncryptUpdate (AAD)");
            }
            let n = buf.len();
            enc.cipher_update_inplace(buf, n)
                .expect("EVP_EncryptUpdate");
            enc.cipher_final(&mut [0u8; 16])
                .expect("EVP_EncryptFinal_ex");
            let mut tag = [0u8; 16];
            enc.tag(&mut tag).expect("EVP_CTRL_GCM_GET_TAG");
            tag
        }),
        Box::new(move |buf, tag| {
            dec.decrypt_init(None, None, Some(&NONCE))
                .expect("EVP_DecryptInit_ex");
            if !aad2.is_empty() {
                dec.cipher_update(&aad2, None)
                    .expect("EVP_DecryptUpdate (AAD)");
            }
            let n = buf.len();
            dec.cipher_update_inplace(buf, n)
                .expect("EVP_DecryptUpdate");
            dec.set_tag(tag).expect("EVP_CTRL_GCM_SET_TAG");
            dec.cipher_final(&mut [0u8; 16]).is_ok()
        }),
    ))
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

fn rustcrypto_pair(len: usize, aad: &Aad) -> (Seal, Open) {
    use aes_gcm::aead::{AeadInOut, KeyInit};
    let nonce = NONCE.into();
    let (aad, aad2) = (aad.clone(), aad.clone());
    with_rustcrypto!(len, g => {
        let g = Rc::new(g);
        let g2 = g.clone();
        (
            Box::new(move |b: &mut [u8]| {
                g.encrypt_inout_detached(&nonce, &aad, b.into())
                    .expect("seal")
                    .into()
            }),
            Box::new(move |b: &mut [u8], t: &[u8; 16]| {
                g2.decrypt_inout_detached(&nonce, &aad2, b.into(), t.into())
                    .is_ok()
            }),
        )
    })
}

fn ring_pair(len: usize, aad: &Aad) -> Result<(Seal, Open), String> {
    use ring::aead::{LessSafeKey, Nonce, Tag, UnboundKey, AES_128_GCM, AES_256_GCM};
    let alg = if len == 16 {
        &AES_128_GCM
    } else {
        &AES_256_GCM
    };
    let key = UnboundKey::new(alg, &KEY[..len]).map_err(|_| "ring: key rejected".to_string())?;
    let key = Rc::new(LessSafeKey::new(key));
    let key2 = key.clone();
    let (aad, aad2) = (aad.clone(), aad.clone());
    Ok((
        Box::new(move |buf| {
            let nonce = Nonce::assume_unique_for_key(NONCE);
            let tag = key
                .seal_in_place_separate_tag(nonce, ring::aead::Aad::from(&aad[..]), buf)
                .expect("seal");
            tag.as_ref().try_into().expect("16-byte tag")
        }),
        Box::new(move |buf, tag| {
            let nonce = Nonce::assume_unique_for_key(NONCE);
            key2.open_in_place_separate_tag(
                nonce,
                ring::aead::Aad::from(&aad2[..]),
                Tag::from(*tag),
                buf,
                0..,
            )
            .is_ok()
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every implementation seals to the same ciphertext and tag with and
    /// without associated data, opens what the others sealed, and its tag
    /// depends on the AAD: a row that dropped `--aad` (measuring less work
    /// than the others) fails here.
    fn all_agree<G: FastcryptGcm>() {
        for aad_len in [0, 5, 13, 40] {
            let aad: Aad = Params { aad: aad_len }.aad_bytes().into();
            let mut pairs: Vec<(String, (Seal, Open))> =
                vec![("auto".into(), fastcrypt_pair(G::auto(), &aad))];
            for &b in Backend::ALL {
                if let Some(g) = G::with_backend(b) {
                    pairs.push((b.to_string(), fastcrypt_pair(g, &aad)));
                }
            }
            pairs.push(("openssl".into(), openssl_pair(G::KEY_LEN, &aad).unwrap()));
            pairs.push(("rustcrypto".into(), rustcrypto_pair(G::KEY_LEN, &aad)));
            pairs.push(("ring".into(), ring_pair(G::KEY_LEN, &aad).unwrap()));
            let plain: Vec<u8> = (0..100u8).collect();
            let mut want: Option<(Vec<u8>, [u8; 16])> = None;
            let mut no_aad_tag = [0u8; 16];
            if aad_len > 0 {
                let mut x = plain.clone();
                no_aad_tag = (fastcrypt_pair(G::auto(), &Rc::from(&[][..])).0)(&mut x);
            }
            for (name, (seal, _)) in &mut pairs {
                let mut x = plain.clone();
                let tag = seal(&mut x);
                assert!(aad_len == 0 || tag != no_aad_tag, "{name} ignores the AAD");
                let w = want.get_or_insert_with(|| (x.clone(), tag));
                assert_eq!((&x, &tag), (&w.0, &w.1), "{name}, {aad_len} B AAD");
            }
            let (ct, tag) = want.unwrap();
            for (name, (_, open)) in &mut pairs {
                let mut x = ct.clone();
                assert!(open(&mut x, &tag), "{name}, {aad_len} B AAD");
                assert_eq!(x, plain, "{name}");
            }
        }
    }

    #[test]
    fn implementations_agree_with_aad() {
        all_agree::<Aes128Gcm>();
        all_agree::<Aes256Gcm>();
    }

    /// The open rows run (they assert that every open accepts its tag)
    /// with associated data.
    #[test]
    fn open_rows_run_with_aad() {
        let params = Params { aad: 13 };
        for imp in implementations::<Aes256Gcm, true>(&params) {
            if let Ok(mut op) = imp.op {
                let mut buf = vec![7u8; 64];
                op.run(&mut buf, 3);
            }
        }
    }
}
