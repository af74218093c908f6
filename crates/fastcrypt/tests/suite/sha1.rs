//! SHA-1: NIST CAVP vectors, the portable oracle, streaming, guard pages,
//! OpenSSL and RustCrypto differentials, digest-trait conformance. Every
//! test runs on every backend.

use super::common::{
    assignments, backend_api, before_guard_page, check_eq, lengths, painted, per_backend,
    read_testdata, rng, TestResult,
};
use fastcrypt::sha1::{self, Backend, Sha1};
use libtest_mimic::{Failed, Trial};
use rand::Rng;

fn hasher(b: Backend) -> Sha1 {
    Sha1::with_backend(b).expect("registered only when available")
}

fn hash_with(b: Backend, data: &[u8]) -> [u8; 20] {
    let mut h = hasher(b);
    h.update(data);
    h.finalize()
}

fn oracle(data: &[u8]) -> [u8; 20] {
    hash_with(Backend::Portable, data)
}

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "sha1_cavp_short", |b| {
        cavp_msgs(b, "sha1/SHA1ShortMsg.rsp", 65)
    });
    per_backend(trials, "sha1_cavp_long", |b| {
        cavp_msgs(b, "sha1/SHA1LongMsg.rsp", 64)
    });
    per_backend(trials, "sha1_cavp_monte", cavp_monte);
    per_backend(trials, "sha1_lengths_vs_portable", lengths_vs_portable);
    per_backend(trials, "sha1_random_splits", random_splits);
    per_backend(trials, "sha1_clone_reset", clone_reset);
    per_backend(trials, "sha1_16mib_odd_updates", feed_16mib);
    per_backend(trials, "sha1_guard_page", guard_page);
    per_backend(trials, "sha1_vs_openssl", vs_openssl);
    per_backend(trials, "sha1_vs_rustcrypto", vs_rustcrypto);
    per_backend(trials, "sha1_digest_traits", digest_traits);
    per_backend(trials, "sha1_block_api", block_api);
    per_backend(trials, "sha1_one_shot_with_backend", one_shot_with_backend);
    trials.push(Trial::test("sha1_backend_api", || {
        backend_api(
            |b| Sha1::with_backend(b).map(|h| h.backend()),
            || Sha1::new().backend(),
        )
    }));
    trials.push(Trial::test("sha1_one_shot_digest", one_shot_digest));
    trials.push(Trial::test(
        "sha1_digest_dev_conformance",
        digest_dev_conformance,
    ));
}

/// `(message, digest)` pairs of a CAVP `.rsp` file (`Len` is in bits).
/// A message and its digest.
type Case = (Vec<u8>, Vec<u8>);

fn parse_msgs(text: &str) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    let mut len_bits: Option<usize> = None;
    let mut msg: Option<Vec<u8>> = None;
    for a in assignments(text) {
        match a.key {
            "Len" => len_bits = Some(a.value.parse().map_err(|e| a.bad(e))?),
            "Msg" => msg = Some(a.hex()?),
            "MD" => {
                let bits = len_bits.take().ok_or_else(|| a.bad("MD without Len"))?;
                let mut m = msg.take().ok_or_else(|| a.bad("MD without Msg"))?;
                // Len = 0 still carries `Msg = 00`.
                m.truncate(bits / 8);
                out.push((m, a.hex()?));
            }
            _ => {}
        }
    }
    Ok(out)
}

fn cavp_msgs(b: Backend, file: &str, expect_cases: usize) -> TestResult {
    let cases = parse_msgs(&read_testdata(file)?)?;
    if cases.len() != expect_cases {
        return Err(format!(
            "{file}: parsed {} cases, expected {expect_cases}",
            cases.len()
        )
        .into());
    }
    for (i, (msg, md)) in cases.iter().enumerate() {
        check_eq(
            &format!("{file} case {i} (len {})", msg.len()),
            &hash_with(b, msg),
            md,
        )?;
        // The same message fed a byte at a time exercises the buffer path.
        if msg.len() <= 200 {
            let mut h = hasher(b);
            msg.iter().for_each(|x| h.update(std::slice::from_ref(x)));
            check_eq(&format!("{file} case {i} bytewise"), &h.finalize(), md)?;
        }
    }
    Ok(())
}

/// SHAVS Monte Carlo: MD0 = MD1 = MD2 = Seed; Mi = MD(i-3)||MD(i-2)||MD(i-1);
/// MDi = SHA1(Mi) for i in 3..1003; checkpoint MD1002, which seeds the next.
fn cavp_monte(b: Backend) -> TestResult {
    let text = read_testdata("sha1/SHA1Monte.rsp")?;
    let mut seed = None;
    let mut checkpoints = Vec::new();
    for a in assignments(&text) {
        match a.key {
            "Seed" => seed = Some(a.hex()?),
            "MD" => checkpoints.push(a.hex()?),
            _ => {}
        }
    }
    let mut seed = seed.ok_or("SHA1Monte.rsp: no Seed")?;
    if checkpoints.len() != 100 {
        return Err(format!(
            "SHA1Monte.rsp: {} checkpoints, expected 100",
            checkpoints.len()
        )
        .into());
    }
    let mut h = hasher(b);
    for (j, want) in checkpoints.iter().enumerate() {
        let mut md = [seed.clone(), seed.clone(), seed.clone()];
        for _ in 3..1003 {
            h.update(&md[0]);
            h.update(&md[1]);
            h.update(&md[2]);
            let next = h.finalize_reset().to_vec();
            md = [md[1].clone(), md[2].clone(), next];
        }
        check_eq(&format!("Monte checkpoint {j}"), &md[2], want)?;
        seed = md[2].clone();
    }
    Ok(())
}

/// The shared length table at SHA-1's block and the widest kernel's
/// stride (AVX2: two blocks per pass).
fn lens() -> Vec<usize> {
    lengths(64, 128)
}

fn lengths_vs_portable(b: Backend) -> TestResult {
    let lens = lens();
    let data = painted(lens[lens.len() - 1] + 3);
    for len in lens {
        let msg = &data[..len];
        check_eq(&format!("len {len}"), &hash_with(b, msg), &oracle(msg))?;
        // Misaligned start: kernels must not assume alignment.
        let msg = &data[3..3 + len];
        check_eq(
            &format!("len {len} at offset 3"),
            &hash_with(b, msg),
            &oracle(msg),
        )?;
    }
    Ok(())
}

fn random_splits(b: Backend) -> TestResult {
    let seed = 0x5EED_0001;
    let mut r = rng(seed);
    for round in 0..300 {
        let len = r.random_range(0..3000);
        let data: Vec<u8> = (0..len).map(|_| r.random()).collect();
        let want = oracle(&data);
        let mut h = hasher(b);
        let mut rest = &data[..];
        while !rest.is_empty() {
            let take = r.random_range(0..=rest.len().min(300));
            h.update(&rest[..take]);
            rest = &rest[take..];
        }
        check_eq(
            &format!("seed {seed:#x} round {round} len {len}"),
            &h.finalize(),
            &want,
        )?;
    }
    Ok(())
}

fn clone_reset(b: Backend) -> TestResult {
    let data = painted(1000);
    for split in [0usize, 1, 63, 64, 65, 500, 1000] {
        let mut h = hasher(b);
        h.update(&data[..split]);
        let mut fork = h.clone();
        h.update(&data[split..]);
        fork.update(&data[split..]);
        let a = h.clone().finalize();
        check_eq(&format!("clone at {split}"), &fork.finalize(), &a)?;
        check_eq(&format!("clone at {split} vs oracle"), &a, &oracle(&data))?;
        h.reset();
        if h.backend() != b {
            return Err("reset changed the backend".into());
        }
        h.update(b"abc");
        check_eq("after reset", &h.finalize_reset(), &oracle(b"abc"))?;
        check_eq("after finalize_reset", &h.finalize(), &oracle(b""))?;
    }
    Ok(())
}

fn feed_16mib(b: Backend) -> TestResult {
    const TOTAL: usize = 16 << 20;
    let data: Vec<u8> = (0..TOTAL)
        .map(|i| (i % 251) as u8 ^ (i >> 16) as u8)
        .collect();
    let mut h = hasher(b);
    let mut oracle_h = hasher(Backend::Portable);
    // Odd-sized updates, cycling through sizes that straddle block edges.
    let sizes = [1usize, 3, 63, 64, 65, 127, 1000, 4097, 65_537, 1 << 20];
    let (mut off, mut i) = (0, 0);
    while off < TOTAL {
        let n = sizes[i % sizes.len()].min(TOTAL - off);
        h.update(&data[off..off + n]);
        off += n;
        i += 1;
    }
    oracle_h.update(&data);
    check_eq("16 MiB", &h.finalize(), &oracle_h.finalize())
}

fn guard_page(b: Backend) -> TestResult {
    before_guard_page(&lens(), |len, tail| {
        check_eq("digest", &hash_with(b, tail), &oracle(&painted(len)))
    })
}

/// 40 seeded random messages, mostly short and mid lengths plus a few up
/// to 1 MiB, against a peer implementation.
fn vs_peer(b: Backend, seed: u64, peer: impl Fn(&[u8]) -> Vec<u8>) -> TestResult {
    let mut r = rng(seed);
    for i in 0..40 {
        let max = if i % 8 == 0 { 1 << 20 } else { 5000 };
        let len = r.random_range(0..=max);
        let msg: Vec<u8> = (0..len).map(|_| r.random()).collect();
        check_eq(
            &format!("seed {seed:#x} case {i} len {len}"),
            &hash_with(b, &msg),
            &peer(&msg),
        )?;
    }
    Ok(())
}

fn vs_openssl(b: Backend) -> TestResult {
    vs_peer(b, 0x0551, |msg| openssl::sha::sha1(msg).to_vec())
}

fn vs_rustcrypto(b: Backend) -> TestResult {
    use ::sha1::Digest as _;
    vs_peer(b, 0x05C1, |msg| ::sha1::Sha1::digest(msg).to_vec())
}

/// The digest traits, used generically, on a hasher of backend `b`.
fn digest_traits(b: Backend) -> TestResult {
    use digest::{FixedOutputReset, Reset, Update};
    fn via_traits<D: Update + FixedOutputReset + Reset + Clone>(mut d: D, msg: &[u8]) -> Vec<u8> {
        Update::update(&mut d, &msg[..msg.len() / 2]);
        let mut fork = d.clone();
        Update::update(&mut d, &msg[msg.len() / 2..]);
        let a = d.finalize_fixed_reset().to_vec();
        Update::update(&mut fork, &msg[msg.len() / 2..]);
        assert_eq!(fork.finalize_fixed().to_vec(), a, "clone through traits");
        Reset::reset(&mut d);
        Update::update(&mut d, msg);
        assert_eq!(d.finalize_fixed().to_vec(), a, "after Reset");
        a
    }
    for len in [0usize, 3, 55, 56, 64, 1000] {
        let msg = painted(len);
        check_eq(
            &format!("len {len}"),
            &via_traits(hasher(b), &msg),
            &oracle(&msg),
        )?;
    }
    Ok(())
}

/// The block-level API (`CoreProxy`, [`fastcrypt::sha1::Sha1Core`]) that
/// `hmac::Hmac<Sha1>` builds on: a hasher taken apart mid-stream and put
/// back keeps its backend and its digest; the core alone (whole blocks,
/// then the tail in `digest`'s buffer) digests like the oracle.
fn block_api(b: Backend) -> TestResult {
    use digest::block_api::{Buffer, CoreProxy, FixedOutputCore, UpdateCore};
    use digest::Update;
    use fastcrypt::sha1::Sha1Core;
    for len in lengths(64, 128) {
        let msg = painted(len);
        let want = oracle(&msg);
        for cut in [0, len / 3, len.saturating_sub(1), len] {
            let mut h = hasher(b);
            h.update(&msg[..cut]);
            let (core, buffer) = h.decompose();
            if core.backend() != b {
                return Err(format!("decompose moved to backend {}", core.backend()).into());
            }
            let mut h = Sha1::compose(core, buffer);
            Update::update(&mut h, &msg[cut..]);
            check_eq(&format!("len {len}, cut {cut}"), &h.finalize(), &want)?;
        }
        let (mut core, _): (Sha1Core, _) = hasher(b).decompose();
        let whole = len / 64 * 64;
        let blocks: Vec<digest::array::Array<u8, digest::consts::U64>> = msg[..whole]
            .chunks_exact(64)
            .map(|c| c.try_into().unwrap())
            .collect();
        core.update_blocks(&blocks);
        let mut buffer = Buffer::<Sha1Core>::new(&msg[whole..]);
        let mut out = Default::default();
        core.finalize_fixed_core(&mut buffer, &mut out);
        check_eq(&format!("core alone, len {len}"), &out, &want)?;
        // Saved mid-stream, states move between fastcrypt and RustCrypto.
        use digest::common::hazmat::SerializableState;
        let cut = len / 2;
        let mut h = hasher(b);
        h.update(&msg[..cut]);
        let mut theirs = ::sha1::Sha1::deserialize(&h.serialize()).map_err(|e| e.to_string())?;
        Update::update(&mut theirs, &msg[cut..]);
        check_eq(
            &format!("resumed by RustCrypto, len {len}"),
            &digest::Digest::finalize(theirs),
            &want,
        )?;
        let mut theirs = <::sha1::Sha1 as digest::Digest>::new();
        Update::update(&mut theirs, &msg[..cut]);
        let mut ours = Sha1::deserialize(&theirs.serialize()).map_err(|e| e.to_string())?;
        ours.update(&msg[cut..]);
        check_eq(
            &format!("resumed by fastcrypt, len {len}"),
            &ours.finalize(),
            &want,
        )?;
    }
    // Any block count deserializes and finalizes, without an overflow
    // panic in a debug build: the length field wraps mod 2^64 bits, as
    // OpenSSL's and RustCrypto's release builds count. Every backend
    // agrees with the portable one.
    use digest::common::hazmat::SerializableState;
    let huge = |b: Backend| -> Result<[u8; 20], Failed> {
        let (core, _): (Sha1Core, _) = hasher(b).decompose();
        let mut bytes = core.serialize();
        bytes[20..].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
        let core = Sha1Core::deserialize(&bytes).map_err(|e| e.to_string())?;
        let mut h = Sha1::compose(core, Buffer::<Sha1Core>::default());
        Update::update(&mut h, &painted(200));
        Ok(h.finalize())
    };
    check_eq(
        "2^64 - 2 blocks resumed",
        &huge(b)?,
        &huge(Backend::Portable)?,
    )?;
    Ok(())
}

/// RustCrypto's own conformance helpers (`digest::dev`) and generic use:
/// `Digest`, `DynDigest`, HMAC, names and OID, exactly as code written for
/// RustCrypto's `sha1::Sha1` would use them.
fn digest_dev_conformance() -> TestResult {
    use digest::const_oid::AssociatedOid;
    use digest::dev::{fixed_reset_test, fixed_test, TestVector};
    use digest::{Digest, DynDigest};
    // digest::dev wants 'static vectors; leaking 65 small cases is fine here.
    let cases: &'static [Case] = Vec::leak(parse_msgs(&read_testdata("sha1/SHA1ShortMsg.rsp")?)?);
    for (msg, md) in cases {
        let tv = TestVector {
            input: msg,
            output: md,
        };
        fixed_reset_test::<Sha1>(&tv)?;
        fixed_test::<Sha1>(&tv)?;
    }
    let mut dyn_d: Box<dyn DynDigest> = Box::new(Sha1::default());
    dyn_d.update(b"abc");
    check_eq(
        "DynDigest",
        &dyn_d.finalize_reset(),
        &<Sha1 as Digest>::digest(b"abc"),
    )?;
    check_eq(
        "chain_update",
        &Sha1::new_with_prefix(b"a").chain_update(b"bc").finalize(),
        &sha1::digest(b"abc"),
    )?;
    // HMAC through the generic `hmac` crate (the eager `Hmac`, which keys
    // `Sha1Core`s once, the resettable and the simple forms), against
    // OpenSSL's HMAC-SHA1, keys around the 64-byte block.
    {
        use hmac::{Hmac, HmacReset, KeyInit, Mac, SimpleHmac};
        fn mac<M: Mac + KeyInit>(key: &[u8], msg: &[u8]) -> Result<Vec<u8>, String> {
            let mut m = M::new_from_slice(key).map_err(|e| e.to_string())?;
            m.update(&msg[..msg.len() / 2]);
            m.update(&msg[msg.len() / 2..]);
            Ok(m.finalize().into_bytes().to_vec())
        }
        for (key_len, msg_len) in [(0, 0), (1, 28), (63, 64), (64, 55), (65, 200), (100, 1000)] {
            let key = painted(key_len);
            let msg = painted(msg_len + 7)[7..].to_vec();
            // OpenSSL refuses an empty HMAC key; RustCrypto's own SHA-1
            // is the oracle there.
            let want = if key.is_empty() {
                mac::<Hmac<::sha1::Sha1>>(&key, &msg)?
            } else {
                let pkey = openssl::pkey::PKey::hmac(&key).map_err(|e| e.to_string())?;
                let mut signer =
                    openssl::sign::Signer::new(openssl::hash::MessageDigest::sha1(), &pkey)
                        .map_err(|e| e.to_string())?;
                signer.update(&msg).map_err(|e| e.to_string())?;
                signer.sign_to_vec().map_err(|e| e.to_string())?
            };
            let what = format!("{key_len}-byte key, {msg_len}-byte message");
            check_eq(
                &format!("Hmac, {what}"),
                &mac::<Hmac<Sha1>>(&key, &msg)?,
                &want,
            )?;
            check_eq(
                &format!("HmacReset, {what}"),
                &mac::<HmacReset<Sha1>>(&key, &msg)?,
                &want,
            )?;
            check_eq(
                &format!("SimpleHmac, {what}"),
                &mac::<SimpleHmac<Sha1>>(&key, &msg)?,
                &want,
            )?;
        }
    }
    struct Name;
    impl std::fmt::Display for Name {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            <Sha1 as digest::common::AlgorithmName>::write_alg_name(f)
        }
    }
    if Name.to_string() != "Sha1" {
        return Err(format!("AlgorithmName is {}", Name).into());
    }
    if Sha1::OID.to_string() != "1.3.14.3.2.26" || Sha1::OID != ::sha1::Sha1::OID {
        return Err(format!("OID {} differs from RustCrypto's", Sha1::OID).into());
    }
    if <Sha1 as Digest>::output_size() != 20 {
        return Err("output_size".into());
    }
    Ok(())
}

/// `sha1::digest_with`, the one-shot path on a forced backend: every
/// length of the table, misaligned too, against the portable oracle.
fn one_shot_with_backend(b: Backend) -> TestResult {
    let lens = lens();
    let data = painted(lens[lens.len() - 1] + 5);
    for len in lens {
        for at in [0, 5] {
            let msg = &data[at..at + len];
            let got = sha1::digest_with(b, msg).map_err(|e| e.to_string())?;
            check_eq(&format!("len {len} at offset {at}"), &got, &oracle(msg))?;
        }
    }
    Ok(())
}

/// `sha1::digest` has its own path (no hasher object): FIPS 180's "abc",
/// then every length of the table, misaligned too, against the portable
/// oracle.
fn one_shot_digest() -> TestResult {
    check_eq(
        "abc",
        &sha1::digest(b"abc"),
        &hex::decode("a9993e364706816aba3e25717850c26c9cd0d89d").unwrap(),
    )?;
    let lens = lens();
    let data = painted(lens[lens.len() - 1] + 5);
    for len in lens.into_iter().chain([1000]) {
        check_eq(
            &format!("len {len}"),
            &sha1::digest(&data[..len]),
            &oracle(&data[..len]),
        )?;
        check_eq(
            &format!("len {len} at offset 5"),
            &sha1::digest(&data[5..5 + len]),
            &oracle(&data[5..5 + len]),
        )?;
    }
    Ok(())
}
