//! RC4: every fastcrypt backend, OpenSSL (through OpenSSL 3's legacy
//! provider) and RustCrypto `rc4`. As in Go's `BenchmarkRC4_*`, the key is
//! set up once and each operation XORs the next stretch of one continuing
//! keystream into the buffer.

use super::{backend_rows, op, Algorithm, BufferUse, Implementation, Op, Params, RowNames};
use crate::backends::backend_table;
use fastcrypt::rc4::{Backend, Rc4};
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "rc4",
    go_family: "RC4",
    default_sizes: super::STREAM_SIZES,
    rows: RowNames::Prefixed("RC4_"),
    sweeps: true,
    min_size: 0,
    takes_aad: false,
    buffer: BufferUse::Written,
    backends: backend_table::<Backend>,
    implementations,
};

const KEY: [u8; 16] = *b"fastcrypt rc4 k!";

fn fastcrypt_op(mut c: Rc4) -> Box<dyn Op> {
    op(move |buf| {
        c.apply_keystream(buf);
        black_box(&*buf);
    })
}

fn implementations(_: &Params) -> Vec<Implementation> {
    // A 16-byte key is always valid.
    let auto = Rc4::new(&KEY).expect("16-byte RC4 key");
    let mut v = vec![Implementation::auto(fastcrypt_op(auto))];
    v.extend(backend_rows(|b| {
        Rc4::with_backend(b, &KEY).ok().map(fastcrypt_op)
    }));
    v.push(
        Implementation::peer("openssl", "openssl", openssl_rc4())
            .about("EVP RC4 from OpenSSL 3's legacy provider, in place"),
    );
    v.push(Implementation::peer("rustcrypto", "rustcrypto", {
        use ::rc4::{KeyInit, StreamCipher};
        ::rc4::Rc4::new_from_slice(&KEY)
            .map(|mut c| {
                op(move |buf| {
                    c.apply_keystream(buf);
                    black_box(&*buf);
                })
            })
            .map_err(|e| format!("rc4 crate: {e}"))
    }));
    v
}

/// OpenSSL 3 keeps RC4 in its legacy provider; when that cannot be loaded
/// the row says why instead of disappearing.
fn openssl_rc4() -> Result<Box<dyn Op>, String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    use openssl::provider::Provider;
    let legacy = Provider::try_load(None, "legacy", true).map_err(|e| {
        // The first error says what went wrong (usually a missing
        // legacy.so); the rest is OpenSSL's call stack.
        let first = e.errors().first();
        let what = first
            .and_then(|x| x.data().or(x.reason()))
            .unwrap_or("unknown error");
        format!("OpenSSL's legacy provider did not load: {what}")
    })?;
    let why = |e: openssl::error::ErrorStack| format!("OpenSSL RC4: {e}");
    let mut ctx = CipherCtx::new().map_err(why)?;
    ctx.encrypt_init(Some(Cipher::rc4()), None, None)
        .map_err(why)?;
    ctx.set_key_length(KEY.len()).map_err(why)?;
    ctx.encrypt_init(None, Some(&KEY), None).map_err(why)?;
    Ok(op(move |buf| {
        // The provider must outlive the context that uses it.
        let _ = &legacy;
        let n = buf.len();
        ctx.cipher_update_inplace(buf, n)
            .expect("EVP_EncryptUpdate");
        black_box(&*buf);
    }))
}
