//! AES-GCM: every backend seals like the portable pair; open inverts seal;
//! any flipped bit (chosen by the input) makes open fail and wipe the buffer.
#![no_main]

use fastcrypt::aes_gcm::{Aes128Gcm, Aes256Gcm, Backend, NonceLen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if input.len() < 48 {
        return;
    }
    let (key, rest) = input.split_at(32);
    let (nonce_len, rest) = (rest[0] as usize % 24 + 1, &rest[1..]);
    let (flip, rest) = (u16::from_le_bytes([rest[0], rest[1]]) as usize, &rest[2..]);
    let nonce_len = nonce_len.min(rest.len());
    let (nonce, rest) = rest.split_at(nonce_len);
    let aad_len = rest.first().map_or(0, |&b| b as usize % 40).min(rest.len());
    let (aad, msg) = rest.split_at(aad_len);
    if nonce.is_empty() {
        return;
    }
    macro_rules! check {
        ($ty:ty, $key:expr) => {{
            let oracle = <$ty>::with_backend(Backend::Portable, $key)
                .unwrap()
                .with_params(NonceLen::Any, 16)
                .unwrap();
            let want = oracle.seal(nonce, aad, msg).unwrap();
            for b in Backend::available() {
                let c = <$ty>::with_backend(b, $key)
                    .unwrap()
                    .with_params(NonceLen::Any, 16)
                    .unwrap();
                let got = c.seal(nonce, aad, msg).unwrap();
                assert_eq!(got, want, "{b}: seal differs from portable");
                assert_eq!(c.open(nonce, aad, &got).unwrap(), msg, "{b}: open(seal)");
                let mut bad = got.clone();
                let bit = flip % (bad.len() * 8);
                bad[bit / 8] ^= 1 << (bit % 8);
                let (ct, tag) = bad.split_at_mut(msg.len());
                let tag = tag.to_vec();
                assert!(
                    c.open_in_place_detached(nonce, aad, ct, &tag).is_err(),
                    "{b}: forgery accepted"
                );
                assert!(ct.iter().all(|&x| x == 0), "{b}: buffer not wiped");
            }
        }};
    }
    check!(Aes128Gcm, <&[u8; 16]>::try_from(&key[..16]).unwrap());
    check!(Aes256Gcm, <&[u8; 32]>::try_from(key).unwrap());
});
