//! GHASH: every backend equals the portable oracle, whatever the key and
//! however the input is split between `update_padded` calls on block edges.
#![no_main]

use fastcrypt::ghash::{Backend, GHash};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if input.len() < 17 {
        return;
    }
    let (h, rest) = input.split_at(16);
    let h: &[u8; 16] = h.try_into().unwrap();
    let (split, data) = (rest[0] as usize * 16, &rest[1..]);
    let split = split.min(data.len() / 16 * 16);
    let mut oracle = GHash::with_backend(Backend::Portable, h).unwrap();
    oracle.update_padded(data);
    let want = oracle.finalize();
    for b in Backend::available() {
        let mut g = GHash::with_backend(b, h).unwrap();
        g.update_padded(&data[..split]);
        g.update_padded(&data[split..]);
        assert_eq!(g.finalize(), want, "{b}");
    }
});
