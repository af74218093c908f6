//! RC4: every backend's keystream equals the portable oracle's, applied in
//! input-chosen pieces, and multi-stream equals single streams.
#![no_main]

use fastcrypt::rc4::{apply_keystreams, Backend, Rc4};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if input.len() < 3 {
        return;
    }
    let key_len = (input[0] as usize % 32 + 1).min(input.len() - 2);
    let split = input[1] as usize;
    let (key, data) = input[2..].split_at(key_len);
    let mut want = data.to_vec();
    Rc4::with_backend(Backend::Portable, key)
        .unwrap()
        .apply_keystream(&mut want);
    for b in Backend::available() {
        let mut c = Rc4::with_backend(b, key).unwrap();
        let mut got = data.to_vec();
        let k = split.min(got.len());
        let (x, y) = got.split_at_mut(k);
        c.apply_keystream(x);
        c.apply_keystream(y);
        assert_eq!(got, want, "{b}");
    }
    // Three streams of unequal lengths at once.
    let mut streams: Vec<Rc4> = (0..3).map(|_| Rc4::new(key).unwrap()).collect();
    let mut bufs: Vec<Vec<u8>> = (0..3)
        .map(|i| data[..data.len() * i / 2].to_vec())
        .collect();
    let mut refs: Vec<&mut [u8]> = bufs.iter_mut().map(|v| v.as_mut_slice()).collect();
    apply_keystreams(&mut streams, &mut refs).unwrap();
    for (i, buf) in bufs.iter().enumerate() {
        assert_eq!(buf[..], want[..buf.len()], "stream {i}");
    }
});
