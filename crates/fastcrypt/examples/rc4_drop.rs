//! RC4-drop[1024], the keystream BitTorrent's message stream encryption
//! uses: RC4 with the first 1024 bytes discarded, one stream per
//! direction. RC4 is broken; this is for talking to peers that require it.
//!
//! ```text
//! cargo run -p fastcrypt --example rc4_drop
//! ```

use fastcrypt::rc4::Rc4;

fn main() {
    // MSE derives each direction's key as SHA1("keyA" | S | SKEY); any
    // 1..=256-byte key works here.
    let key = fastcrypt::sha1::digest(b"keyA and the shared secret");
    let mut sender = Rc4::new_drop(&key, 1024).expect("20-byte key");
    let mut receiver = Rc4::new_drop(&key, 1024).expect("20-byte key");
    println!("backend: {}", sender.backend());

    let mut message = *b"handshake: crypto_provide = RC4";
    sender.apply_keystream(&mut message);
    println!("on the wire: {:02x?}", &message[..8]);
    receiver.apply_keystream(&mut message);
    assert_eq!(&message, b"handshake: crypto_provide = RC4");
    println!("received: {}", String::from_utf8_lossy(&message));

    // Calls of any size continue one keystream: two calls on one side
    // encrypt exactly as one call on the other.
    let mut a = [7u8; 1000];
    let mut b = a;
    sender.apply_keystream(&mut a[..333]);
    sender.apply_keystream(&mut a[333..]);
    receiver.apply_keystream(&mut b);
    assert_eq!(a, b);
    println!("split and whole calls agree");
}
