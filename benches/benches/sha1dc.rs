//! Collision-detecting SHA-1: fastcrypt's `Sha1Dc` (the one-shot
//! `digest_dc`, default backend), plain SHA-1 (`sha1::digest`) as the
//! reference the cost of detection is read against, and RustCrypto's
//! `sha1-checked`, at 8 B, 1 KiB, 8 KiB and 1 MiB. Names:
//! `sha1dc/<size>/<impl>`. Both detecting rows run with detection and the
//! safe hash on (their defaults) and read the detection result with the
//! digest. The speed lab (`fastcrypt speed sha1dc`) has every backend and
//! the other detecting crates.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const SIZES: &[(&str, usize)] = &[
    ("Hash8Bytes", 8),
    ("Hash1K", 1 << 10),
    ("Hash8K", 8 << 10),
    ("Hash1M", 1 << 20),
];

/// The digest, and whether the message was found to be part of an attack.
type HashFn = Box<dyn Fn(&[u8]) -> ([u8; 20], bool)>;

fn implementations() -> Vec<(&'static str, HashFn)> {
    vec![
        (
            "auto",
            Box::new(|d| {
                let out = fastcrypt::sha1::digest_dc(d);
                (out.digest, out.is_collision())
            }),
        ),
        (
            "sha1-plain-reference",
            Box::new(|d| (fastcrypt::sha1::digest(d), false)),
        ),
        (
            "sha1-checked",
            Box::new(|d| {
                use sha1_checked::Digest;
                let mut h = sha1_checked::Sha1::new();
                h.update(d);
                let r = h.try_finalize();
                let mut out = [0u8; 20];
                out.copy_from_slice(r.hash());
                (out, r.has_collision())
            }),
        ),
    ]
}

fn bench_sha1dc(c: &mut Criterion) {
    let impls = implementations();
    for &(name, size) in SIZES {
        let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        // The rows must agree before their times mean anything.
        let want = fastcrypt::sha1::digest(&data);
        for (impl_name, f) in &impls {
            assert_eq!(f(&data), (want, false), "{impl_name} at {size} bytes");
        }
        let mut g = c.benchmark_group(format!("sha1dc/{name}"));
        g.throughput(Throughput::Bytes(size as u64));
        if size >= 1 << 20 {
            // Criterion's default 100 samples would take minutes here.
            g.sample_size(20);
        }
        for (impl_name, f) in &impls {
            g.bench_with_input(BenchmarkId::from_parameter(impl_name), &data, |b, d| {
                b.iter(|| f(black_box(d)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_sha1dc);
criterion_main!(benches);
