//! Differential fuzzing of every SHA-1 backend this CPU runs against the
//! portable oracle, with update split points taken from the input.
#![no_main]

use fastcrypt::sha1::{Backend, Sha1};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    // First bytes choose split points; the rest is the message.
    let (splits, msg) = input.split_at(input.len().min(4));
    let mut oracle = Sha1::with_backend(Backend::Portable).unwrap();
    oracle.update(msg);
    let want = oracle.finalize();
    for b in Backend::available() {
        let mut h = Sha1::with_backend(b).unwrap();
        let mut rest = msg;
        for &s in splits {
            let k = (s as usize * 3) % (rest.len() + 1);
            h.update(&rest[..k]);
            rest = &rest[k..];
        }
        h.update(rest);
        assert_eq!(h.finalize(), want, "backend {b}, len {}", msg.len());
    }
});
