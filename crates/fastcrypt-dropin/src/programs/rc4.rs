// RC4 as users of RustCrypto's `rc4` crate write it.
use lib::{KeyInit, Rc4, StreamCipher};

/// Encrypts `data` under `key` every common way; returns the results.
pub fn run(key: &[u8], data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();

    let mut rc4 = Rc4::new_from_slice(key).unwrap();
    let mut buf = data.to_vec();
    rc4.apply_keystream(&mut buf);
    out.push(hex::encode(&buf));

    // The same stream continues: buffer to buffer, fallible form, raw
    // keystream.
    let mut other = vec![0u8; data.len()];
    rc4.apply_keystream_b2b(data, &mut other);
    out.push(hex::encode(&other));
    let mut again = vec![0u8; data.len()];
    rc4.try_apply_keystream_b2b(data, &mut again).unwrap();
    out.push(hex::encode(&again));
    let mut short = vec![0u8; data.len() + 1];
    out.push(
        rc4.try_apply_keystream_b2b(data, &mut short)
            .is_err()
            .to_string(),
    );
    rc4.try_apply_keystream(&mut buf).unwrap();
    out.push(hex::encode(&buf));
    let mut ks = [0u8; 37];
    rc4.write_keystream(&mut ks);
    out.push(hex::encode(ks));

    // Generic code over the traits.
    fn make<C: KeyInit + StreamCipher>(key: &[u8]) -> C {
        C::new_from_slice(key).unwrap()
    }
    let mut c: Rc4 = make(key);
    let mut again = data.to_vec();
    c.apply_keystream(&mut again);
    out.push(hex::encode(&again));

    // Key lengths outside 1..=256 are refused.
    out.push(Rc4::new_from_slice(&[]).is_err().to_string());
    out.push(Rc4::new_from_slice(&[0u8; 257]).is_err().to_string());
    out
}

/// The type this build exercises, to show which library it is.
pub fn subject() -> &'static str {
    core::any::type_name::<Rc4>()
}
