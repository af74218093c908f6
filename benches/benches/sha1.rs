//! SHA-1: every fastcrypt backend this CPU runs, and OpenSSL, RustCrypto
//! `sha1`, ring and `sha1_smol`, at Go's classic sizes (Hash8Bytes,
//! Hash320Bytes, Hash1K, Hash8K) plus 64K. Names: `sha1/<size>/<impl>`.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fastcrypt::sha1::{Backend, Sha1};
use std::hint::black_box;

const SIZES: &[(&str, usize)] = &[
    ("Hash8Bytes", 8),
    ("Hash320Bytes", 320),
    ("Hash1K", 1024),
    ("Hash8K", 8192),
    ("Hash64K", 65536),
];

type HashFn = Box<dyn Fn(&[u8]) -> [u8; 20]>;

fn implementations() -> Vec<(String, HashFn)> {
    let mut v: Vec<(String, HashFn)> = Vec::new();
    for b in Backend::available() {
        v.push((
            b.to_string(),
            Box::new(move |d| {
                let mut h = Sha1::with_backend(b).expect("available");
                h.update(d);
                h.finalize()
            }),
        ));
    }
    v.push(("auto".into(), Box::new(fastcrypt::sha1::digest)));
    // OpenSSL's low-level SHA1_Init/Update/Final (what `openssl speed sha1`
    // runs). Not `openssl::sha::sha1`: OpenSSL 3's one-shot SHA1() fetches
    // the algorithm from a provider on every call (~0.4 us here).
    v.push((
        "openssl".into(),
        Box::new(|d| {
            let mut h = openssl::sha::Sha1::new();
            h.update(d);
            h.finish()
        }),
    ));
    // OpenSSL's EVP interface, with the digest fetched once.
    let md = openssl::hash::MessageDigest::sha1();
    v.push((
        "openssl-evp".into(),
        Box::new(move |d| {
            let out = openssl::hash::hash(md, d).expect("EVP SHA-1");
            out.as_ref().try_into().expect("20 bytes")
        }),
    ));
    v.push((
        "rustcrypto".into(),
        Box::new(|d| {
            use sha1::Digest;
            sha1::Sha1::digest(d).into()
        }),
    ));
    v.push((
        "ring".into(),
        Box::new(|d| {
            let out = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, d);
            out.as_ref().try_into().expect("20 bytes")
        }),
    ));
    v.push((
        "sha1_smol".into(),
        Box::new(|d| sha1_smol::Sha1::from(d).digest().bytes()),
    ));
    v
}

fn bench_sha1(c: &mut Criterion) {
    let impls = implementations();
    for &(name, size) in SIZES {
        let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let mut g = c.benchmark_group(format!("sha1/{name}"));
        g.throughput(Throughput::Bytes(size as u64));
        for (impl_name, f) in &impls {
            g.bench_with_input(BenchmarkId::from_parameter(impl_name), &data, |b, d| {
                b.iter(|| f(black_box(d)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_sha1);
criterion_main!(benches);
