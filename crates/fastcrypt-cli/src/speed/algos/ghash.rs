//! GHASH (the universal hash of AES-GCM): every fastcrypt backend,
//! RustCrypto `ghash` and OpenSSL's GMAC. The key `H` is set up once per
//! implementation; one operation hashes the whole buffer (zero-padded to a
//! block) from a fresh state and finalizes, as GCM does for one message.

use super::{backend_rows, op, Algorithm, BufferUse, Implementation, Op, Params, RowNames};
use crate::backends::backend_table;
use fastcrypt::ghash::{Backend, GHash};
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "ghash",
    go_family: "GHASH",
    // The sizes GHASH meets inside AES-GCM.
    default_sizes: super::AEAD_SIZES,
    rows: RowNames::Prefixed("GHASH_"),
    sweeps: true,
    min_size: 0,
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations,
};

/// Any fixed key does: GHASH's speed does not depend on it.
const H: [u8; 16] = [
    0x66, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b, 0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b, 0x2e,
];

/// fastcrypt keeps `H`'s powers across messages: `finalize_reset` starts
/// the next message without redoing the key setup.
fn fastcrypt_op(mut g: GHash) -> Box<dyn Op> {
    op(move |buf| {
        g.update_padded(buf);
        black_box(g.finalize_reset());
    })
}

fn implementations(_: &Params) -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(fastcrypt_op(GHash::new(&H)))];
    v.extend(backend_rows(|b| {
        GHash::with_backend(b, &H).ok().map(fastcrypt_op)
    }));
    v.push(
        Implementation::peer("openssl", "openssl", openssl_gmac()).about(
            "GMAC: AES-128-GCM with the buffer as AAD only (EVP, key schedule kept, \
             new IV per message); includes one AES block per message",
        ),
    );
    v.push(Implementation::peer(
        "rustcrypto",
        "rustcrypto",
        Ok({
            use ::ghash::universal_hash::UniversalHash;
            // ghash 0.6 has no reset: a keyed template is cloned per message.
            let template = ::ghash::GHash::new(&H.into());
            op(move |buf| {
                let mut g = template.clone();
                g.update_padded(buf);
                black_box(g.finalize());
            })
        }),
    ));
    v
}

fn openssl_gmac() -> Result<Box<dyn Op>, String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let key = [0x2bu8; 16];
    let iv = [0x1cu8; 12];
    let why = |e: openssl::error::ErrorStack| format!("AES-128-GCM: {e}");
    let mut ctx = CipherCtx::new().map_err(why)?;
    ctx.encrypt_init(Some(Cipher::aes_128_gcm()), Some(&key), Some(&iv))
        .map_err(why)?;
    Ok(op(move |buf| {
        let mut tag = [0u8; 16];
        ctx.encrypt_init(None, None, Some(&iv))
            .expect("EVP_EncryptInit_ex");
        ctx.cipher_update(buf, None)
            .expect("EVP_EncryptUpdate (AAD)");
        ctx.cipher_final(&mut [0u8; 16])
            .expect("EVP_EncryptFinal_ex");
        ctx.tag(&mut tag).expect("EVP_CTRL_GCM_GET_TAG");
        black_box(tag);
    }))
}
