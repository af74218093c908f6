//! Collision-detecting SHA-1: every backend this CPU runs gives the
//! portable oracle's whole report (digest, first collision, count), the
//! message fed in input-chosen pieces; the filter off gives the same
//! report; the digest is plain SHA-1 whenever nothing is detected or the
//! safe hash is off.
#![no_main]

use fastcrypt::sha1::{self, Backend, DcConfig, DcDigest, Sha1Dc};
use libfuzzer_sys::fuzz_target;

/// `msg` hashed on `b` with `cfg`, cut where the `splits` bytes say.
fn run(b: Backend, cfg: DcConfig, splits: &[u8], msg: &[u8]) -> DcDigest {
    let mut h = Sha1Dc::with_backend(b).unwrap().with_config(cfg);
    let mut rest = msg;
    for &s in splits {
        let k = (s as usize * 3) % (rest.len() + 1);
        h.update(&rest[..k]);
        rest = &rest[k..];
    }
    h.update(rest);
    h.finalize()
}

fuzz_target!(|input: &[u8]| {
    // First byte: the switches (bit 0 safe hash off, bit 1 reduced-round
    // detection on, bit 2 detection off, bit 3 also check the filter off);
    // then 4 split bytes; the rest is the message.
    let Some((&flags, rest)) = input.split_first() else {
        return;
    };
    let (splits, msg) = rest.split_at(rest.len().min(4));
    let cfg = DcConfig {
        safe_hash: flags & 1 == 0,
        reduced_round: flags & 2 != 0,
        detect: flags & 4 == 0,
        ubc: true,
    };
    let want = run(Backend::Portable, cfg, &[], msg);
    if flags & 8 != 0 {
        // ~30 times slower, so only when the input asks for it.
        let no_ubc = run(Backend::Portable, DcConfig { ubc: false, ..cfg }, &[], msg);
        assert_eq!(no_ubc, want, "filter off, len {}", msg.len());
    }
    let plain = sha1::digest(msg);
    match want.collision {
        None => {
            assert_eq!(want.digest, plain, "nothing detected, len {}", msg.len());
            assert_eq!(want.collisions, 0);
        }
        Some(c) => {
            assert!(cfg.detect, "detected with detection off");
            assert!(want.collisions >= 1);
            assert_eq!(c.offset % 64, 0);
            assert!(cfg.reduced_round || !c.reduced_round);
            if !cfg.safe_hash {
                assert_eq!(want.digest, plain, "safe hash off, len {}", msg.len());
            }
        }
    }
    for b in Backend::available() {
        let got = run(b, cfg, splits, msg);
        assert_eq!(got, want, "backend {b}, len {}", msg.len());
    }
});
