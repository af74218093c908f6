//! Sealing and opening a message with AES-256-GCM, as a TLS or QUIC record
//! layer does: a 96-bit nonce that is never reused with the same key,
//! additional data that is authenticated but not encrypted, and an open
//! that returns nothing but an error when anything was changed.
//!
//! ```text
//! cargo run -p fastcrypt --example aes_gcm_seal_open
//! ```

use fastcrypt::aes_gcm::{Aes256Gcm, Error};

fn main() {
    // A real key comes from a key exchange or a KDF, never from a constant.
    let key = [0x42u8; 32];
    let gcm = Aes256Gcm::new(&key);
    println!("backend: {}", gcm.backend());

    // Per-message nonce: here a counter in the last 8 bytes.
    let mut nonce = [0u8; 12];
    nonce[4..].copy_from_slice(&1u64.to_be_bytes());
    let header = b"record header v1";

    let sealed = gcm
        .seal(&nonce, header, b"attack at dawn")
        .expect("lengths are within GCM's limits");
    println!("sealed {} bytes: ciphertext + 16-byte tag", sealed.len());

    let opened = gcm.open(&nonce, header, &sealed).expect("authentic");
    assert_eq!(opened, b"attack at dawn");
    println!("opened: {}", String::from_utf8_lossy(&opened));

    // One flipped bit anywhere, or other additional data: refused, and no
    // plaintext is returned.
    let mut forged = sealed.clone();
    forged[0] ^= 1;
    assert_eq!(
        gcm.open(&nonce, header, &forged),
        Err(Error::Authentication)
    );
    assert_eq!(
        gcm.open(&nonce, b"record header v2", &sealed),
        Err(Error::Authentication)
    );
    println!("forgeries refused");

    // In place, with a detached tag: no allocation per message.
    let mut buf = *b"in place";
    let tag = gcm
        .seal_in_place_detached(&nonce, header, &mut buf)
        .unwrap();
    gcm.open_in_place_detached(&nonce, header, &mut buf, tag.as_ref())
        .unwrap();
    assert_eq!(&buf, b"in place");
}
