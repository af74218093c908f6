// AES-GCM as users of RustCrypto's `aes-gcm` crate write it.
use lib::aead::{Aead, AeadInOut, Generate, KeyInit, Payload};
use lib::{Aes128Gcm, Aes256Gcm, Key, Nonce};

/// Seals and opens every common way; returns ciphertexts and verdicts.
pub fn run(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], msg: &[u8]) -> Vec<String> {
    let mut out = Vec::new();

    let key = Key::<Aes256Gcm>::from(*key);
    let cipher = Aes256Gcm::new(&key);
    let nonce = Nonce::try_from(&nonce[..]).unwrap();

    // Allocating, without and with associated data.
    let ciphertext = cipher.encrypt(&nonce, msg).unwrap();
    out.push(hex::encode(&ciphertext));
    let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref()).unwrap();
    assert_eq!(plaintext, msg);
    let sealed = cipher.encrypt(&nonce, Payload { msg, aad }).unwrap();
    out.push(hex::encode(&sealed));
    let opened = cipher.decrypt(&nonce, Payload { msg: &sealed, aad });
    out.push(format!("{:?}", opened.map(hex::encode)));

    // Tampering is refused.
    let mut bad = sealed.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x80;
    out.push(
        cipher
            .decrypt(&nonce, Payload { msg: &bad, aad })
            .is_err()
            .to_string(),
    );

    // In place, into a Vec, and detached.
    let mut buffer: Vec<u8> = msg.to_vec();
    cipher.encrypt_in_place(&nonce, aad, &mut buffer).unwrap();
    out.push(hex::encode(&buffer));
    cipher.decrypt_in_place(&nonce, aad, &mut buffer).unwrap();
    assert_eq!(buffer, msg);
    let mut detached = msg.to_vec();
    let tag = cipher
        .encrypt_inout_detached(&nonce, aad, detached.as_mut_slice().into())
        .unwrap();
    out.push(hex::encode(tag));
    out.push(hex::encode(&detached));

    // AES-128 from a slice, and generic code over the traits.
    let cipher128 = Aes128Gcm::new_from_slice(&key[..16]).unwrap();
    out.push(hex::encode(cipher128.encrypt(&nonce, msg).unwrap()));
    fn seal_with<A: AeadInOut + KeyInit>(key: &[u8], nonce: &[u8], msg: &[u8]) -> Vec<u8> {
        let a = A::new_from_slice(key).unwrap();
        let mut buf = msg.to_vec();
        let nonce = lib::aead::Nonce::<A>::try_from(nonce).unwrap();
        a.encrypt_in_place(&nonce, b"generic", &mut buf).unwrap();
        buf
    }
    out.push(hex::encode(seal_with::<Aes128Gcm>(&key[..16], &nonce, msg)));

    // Fresh random key and nonce: only the round trip is comparable.
    let key = Key::<Aes256Gcm>::generate();
    let cipher = Aes256Gcm::new(&key);
    let nonce = Nonce::generate();
    let ciphertext = cipher.encrypt(&nonce, msg).unwrap();
    out.push((cipher.decrypt(&nonce, ciphertext.as_ref()).unwrap() == msg).to_string());
    out
}

/// The type this build exercises, to show which library it is.
pub fn subject() -> &'static str {
    core::any::type_name::<Aes256Gcm>()
}
