// HMAC-SHA1 as users of RustCrypto's `hmac` and `sha1` crates write it:
// only the SHA-1 type comes from `lib`.
use hmac::{Hmac, HmacReset, KeyInit, Mac, SimpleHmac};
use lib::Sha1;

type HmacSha1 = Hmac<Sha1>;

/// MACs `msg` under `key` every common way; returns the results.
pub fn run(key: &[u8], msg: &[u8]) -> Vec<String> {
    let mut out = Vec::new();

    // The eager HMAC most code uses.
    let mut mac = HmacSha1::new_from_slice(key).expect("HMAC takes keys of any size");
    mac.update(msg);
    let code = mac.finalize().into_bytes();
    out.push(hex::encode(code));

    // Verification, right and wrong.
    let mut mac = HmacSha1::new_from_slice(key).unwrap();
    mac.update(msg);
    out.push(mac.clone().verify_slice(&code).is_ok().to_string());
    let mut wrong = code;
    wrong[0] ^= 1;
    out.push(mac.verify_slice(&wrong).is_ok().to_string());

    // Truncated verification (RFC 2104 section 5, as TOTP-style users do).
    let mut mac = HmacSha1::new_from_slice(key).unwrap();
    mac.update(msg);
    out.push(mac.verify_truncated_left(&code[..10]).is_ok().to_string());

    // The simple (re-hashing) form and the resettable form.
    let mut simple = SimpleHmac::<Sha1>::new_from_slice(key).unwrap();
    simple.update(msg);
    out.push(hex::encode(simple.finalize().into_bytes()));
    let mut reset = HmacReset::<Sha1>::new_from_slice(key).unwrap();
    reset.update(msg);
    let a = reset.finalize_reset().into_bytes();
    reset.update(msg);
    let b = reset.finalize_reset().into_bytes();
    assert_eq!(a, b);
    out.push(hex::encode(a));

    // Generic code over `Mac`.
    fn tag<M: Mac + KeyInit>(key: &[u8], msg: &[u8]) -> Vec<u8> {
        let mut m = M::new_from_slice(key).unwrap();
        m.update(msg);
        m.finalize().into_bytes().to_vec()
    }
    out.push(hex::encode(tag::<HmacSha1>(key, msg)));
    out
}

/// The type this build exercises, to show which library it is.
pub fn subject() -> &'static str {
    core::any::type_name::<Hmac<Sha1>>()
}
