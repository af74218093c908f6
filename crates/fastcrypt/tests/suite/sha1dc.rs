//! Collision-detecting SHA-1: the SHAttered and SHAMBLES files and the
//! reduced-round collision, with the reference's safe hashes, alone and
//! with suffixes; differential against `sha1-checked` and
//! `sha1collisiondetection` (ports of the reference); negatives (a
//! million random blocks); streaming, every split point, clones; the
//! `digest` traits; the block-level `compress_dc` and what its callback
//! receives; the filter against no filter. Every test on every backend.
//!
//! No MD5 collision files serve as negatives: no crates.io package was
//! found that ships any, so the negatives are random data.

use super::common::{check_eq, per_backend, rng, testdata, TestResult};
use fastcrypt::sha1::{self, Backend, Collision, DcConfig, DcDigest, DisturbanceVector, Sha1Dc};
use libtest_mimic::{Failed, Trial};
use rand::{Rng, RngCore};

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "sha1dc_collision_files", collision_files);
    per_backend(trials, "sha1dc_reduced_round_file", reduced_round_file);
    per_backend(trials, "sha1dc_ubc_off_agrees", ubc_off_agrees);
    per_backend(trials, "sha1dc_random_is_plain_sha1", random_is_plain);
    per_backend(trials, "sha1dc_streaming_splits", streaming_splits);
    per_backend(trials, "sha1dc_peers_random", peers_random);
    per_backend(
        trials,
        "sha1dc_peers_collision_files",
        peers_collision_files,
    );
    per_backend(trials, "sha1dc_attack_suffixes", attack_suffixes);
    per_backend(
        trials,
        "sha1dc_no_false_positives_1m",
        no_false_positives_1m,
    );
    per_backend(trials, "sha1dc_digest_traits", digest_traits);
    per_backend(trials, "sha1dc_compress_dc_blocks", compress_dc_blocks);
    per_backend(trials, "sha1dc_every_split", every_split);
    per_backend(
        trials,
        "sha1dc_one_shot_with_backend",
        one_shot_with_backend,
    );
}

fn file(name: &str) -> Vec<u8> {
    let p = testdata(&format!("sha1dc/{name}"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn dc(b: Backend, cfg: DcConfig, data: &[u8]) -> DcDigest {
    let mut h = Sha1Dc::with_backend(b)
        .expect("registered only when available")
        .with_config(cfg);
    h.update(data);
    h.finalize()
}

/// `sha1::digest_dc_with`, the one-shot path on a forced backend, gives
/// what the streaming hasher gives (digest, first report, count): the
/// collision files whole and cut short (the attack blocks then fall in
/// the stack copy of a short message, or in its padded tail), and every
/// length of random data up to 400 bytes.
fn one_shot_with_backend(b: Backend) -> TestResult {
    let one_shot = |data: &[u8]| sha1::digest_dc_with(b, data).map_err(|e| e.to_string());
    for (name, _, _) in ATTACKS {
        let data = file(name);
        // The attack's first block lies at some offset: cut just after it
        // and one block later too.
        let at = dc(b, DcConfig::default(), &data)
            .collision
            .ok_or_else(|| format!("{name}: no collision"))?
            .offset as usize;
        for len in [data.len(), at + 64, at + 128, at + 129] {
            let msg = &data[..len.min(data.len())];
            let want = dc(b, DcConfig::default(), msg);
            if one_shot(msg)? != want {
                return Err(
                    format!("{name}, {len} bytes: {:?} != {want:?}", one_shot(msg)?).into(),
                );
            }
        }
        // Only the attack blocks, as a short message of its own.
        let msg = &data[at..(at + 128).min(data.len())];
        if one_shot(msg)? != dc(b, DcConfig::default(), msg) {
            return Err(format!("{name}: the attack blocks alone").into());
        }
    }
    let mut r = rng(0x5EED_DC20);
    let long = random_bytes(&mut r, 400);
    for len in 0..=long.len() {
        let msg = &long[..len];
        if one_shot(msg)? != dc(b, DcConfig::default(), msg) {
            return Err(format!("random, {len} bytes").into());
        }
    }
    Ok(())
}

fn rr() -> DcConfig {
    DcConfig {
        reduced_round: true,
        ..DcConfig::default()
    }
}

/// The files, their plain SHA-1, and the reference's safe hashes (the
/// upstream Makefile's values; SHAMBLES from three crates that agree:
/// see testdata/SOURCES.md).
const ATTACKS: [(&str, &str, &str); 4] = [
    (
        "shattered-1.pdf",
        "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
        "16e96b70000dd1e7c85b8368ee197754400e58ec",
    ),
    (
        "shattered-2.pdf",
        "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
        "e1761773e6a35916d99f891b77663e6405313587",
    ),
    (
        "sha-mbles-1.bin",
        "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
        "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14",
    ),
    (
        "sha-mbles-2.bin",
        "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
        "9ed5d77a4f48be1dbf3e9e15650733eb850897f2",
    ),
];

fn collision_files(b: Backend) -> TestResult {
    for (name, plain, safe) in ATTACKS {
        let data = file(name);
        let out = dc(b, DcConfig::default(), &data);
        let c = out
            .collision
            .ok_or_else(|| format!("{name}: no collision detected"))?;
        if c.reduced_round || c.offset % 64 != 0 || c.offset >= data.len() as u64 {
            return Err(format!("{name}: odd report {c:?}").into());
        }
        check_eq(
            &format!("{name} safe hash"),
            hex(&out.digest).as_bytes(),
            safe.as_bytes(),
        )?;
        // Safe hash off: the detection stays, the digest is plain SHA-1.
        let cfg = DcConfig {
            safe_hash: false,
            ..DcConfig::default()
        };
        let out = dc(b, cfg, &data);
        if !out.is_collision() {
            return Err(format!("{name}: not detected with the safe hash off").into());
        }
        check_eq(
            &format!("{name} unsafe"),
            hex(&out.digest).as_bytes(),
            plain.as_bytes(),
        )?;
        // Detection off: plain SHA-1, nothing reported.
        let cfg = DcConfig {
            detect: false,
            ..DcConfig::default()
        };
        let out = dc(b, cfg, &data);
        if out.is_collision() {
            return Err(format!("{name}: reported with detection off").into());
        }
        check_eq(
            &format!("{name} plain"),
            hex(&out.digest).as_bytes(),
            plain.as_bytes(),
        )?;
    }
    Ok(())
}

fn reduced_round_file(b: Backend) -> TestResult {
    let data = file("sha1_reducedsha_coll.bin");
    let plain = "a56374e1cf4c3746499bc7c0acb39498ad2ee185";
    let out = dc(b, DcConfig::default(), &data);
    if out.is_collision() {
        return Err("reduced-round file detected without reduced-round detection".into());
    }
    check_eq("default", hex(&out.digest).as_bytes(), plain.as_bytes())?;
    let out = dc(b, rr(), &data);
    let c = out
        .collision
        .ok_or("reduced-round collision not detected")?;
    if !c.reduced_round {
        return Err(format!("reported as a full collision: {c:?}").into());
    }
    check_eq(
        "reduced-round safe hash",
        hex(&out.digest).as_bytes(),
        b"dd39885a2a5d8f59030b451e00cb45da9f9d3828",
    )?;
    // The reference's reduced-round values for the SHAttered files.
    for (name, want) in [
        (
            "shattered-1.pdf",
            "d3a1d09969c3b57113fd17b23e01dd3de74a99bb",
        ),
        (
            "shattered-2.pdf",
            "92246b0b718f4c704d37bb025717cbc66babf102",
        ),
    ] {
        let out = dc(b, rr(), &file(name));
        check_eq(name, hex(&out.digest).as_bytes(), want.as_bytes())?;
    }
    Ok(())
}

fn ubc_off_agrees(b: Backend) -> TestResult {
    // The filter only skips recompressions that cannot match: without it
    // every answer is the same.
    let off = DcConfig {
        ubc: false,
        ..DcConfig::default()
    };
    for (name, ..) in ATTACKS.iter().skip(2) {
        let data = file(name);
        let a = dc(b, DcConfig::default(), &data);
        let z = dc(b, off, &data);
        if a != z {
            return Err(format!("{name}: {a:?} vs {z:?} without the filter").into());
        }
    }
    let data = file("sha1_reducedsha_coll.bin");
    let off_rr = DcConfig { ubc: false, ..rr() };
    if dc(b, rr(), &data) != dc(b, off_rr, &data) {
        return Err("reduced-round file: filter changes the answer".into());
    }
    let mut r = rng(0x5EED_DC01);
    let data: Vec<u8> = (0..64 * 200).map(|_| r.random()).collect();
    if dc(b, DcConfig::default(), &data) != dc(b, off, &data) {
        return Err("random data: filter changes the answer".into());
    }
    Ok(())
}

fn random_is_plain(b: Backend) -> TestResult {
    // No false positives: random data hashes to plain SHA-1 and reports
    // nothing. (`sha1dc_no_false_positives_1m` runs a million blocks.)
    let mut r = rng(0x5EED_DC02);
    let data: Vec<u8> = (0..64 * 20_000).map(|_| r.random()).collect();
    let out = dc(b, DcConfig::default(), &data);
    if let Some(c) = out.collision {
        return Err(format!("false positive: {c}").into());
    }
    check_eq("digest", &out.digest, &sha1::digest(&data))
}

fn streaming_splits(b: Backend) -> TestResult {
    let mut r = rng(0x5EED_DC03);
    for name in ["sha-mbles-1.bin", "sha1_reducedsha_coll.bin"] {
        let data = file(name);
        for cfg in [DcConfig::default(), rr()] {
            let want = dc(b, cfg, &data);
            for round in 0..40 {
                let mut h = Sha1Dc::with_backend(b)?.with_config(cfg);
                let mut rest = &data[..];
                while !rest.is_empty() {
                    let take = r.random_range(0..=rest.len().min(97));
                    h.update(&rest[..take]);
                    rest = &rest[take..];
                }
                let got = h.finalize();
                if got != want {
                    return Err(format!("{name} round {round}: {got:?} vs {want:?}").into());
                }
            }
        }
    }
    Ok(())
}

// ---- Helpers for the tests below ------------------------------------------

/// `data` fed to a new hasher on `b` with `cfg` in pieces cut at up to
/// seven random points.
fn dc_pieces(b: Backend, cfg: DcConfig, data: &[u8], r: &mut impl Rng) -> Result<DcDigest, Failed> {
    let mut cuts: Vec<usize> = (0..r.random_range(0..8))
        .map(|_| r.random_range(0..=data.len()))
        .collect();
    cuts.push(data.len());
    cuts.sort_unstable();
    let mut h = Sha1Dc::with_backend(b)?.with_config(cfg);
    let mut at = 0;
    for cut in cuts {
        h.update(&data[at..cut]);
        at = cut;
    }
    Ok(h.finalize())
}

fn random_bytes(r: &mut impl RngCore, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    r.fill_bytes(&mut v);
    v
}

fn config(safe_hash: bool, ubc: bool, detect: bool, reduced_round: bool) -> DcConfig {
    DcConfig {
        safe_hash,
        ubc,
        detect,
        reduced_round,
    }
}

/// A peer's answer: the digest and whether it detected an attack.
type PeerOut = ([u8; 20], bool);

fn sha1_checked_hasher(cfg: DcConfig) -> sha1_checked::Sha1 {
    sha1_checked::Sha1::builder()
        .safe_hash(cfg.safe_hash)
        .use_ubc(cfg.ubc)
        .detect_collision(cfg.detect)
        .reduced_round_collision(cfg.reduced_round)
        .build()
}

fn sha1_checked_update(h: &mut sha1_checked::Sha1, data: &[u8]) {
    sha1_checked::digest::Update::update(h, data);
}

fn sha1_checked_out(h: sha1_checked::Sha1) -> PeerOut {
    let r = h.try_finalize();
    let d = r.hash().as_slice().try_into().expect("20 bytes");
    (d, r.has_collision())
}

/// `sha1collisiondetection` with `cfg`; `None` when `cfg` asks for
/// reduced-round detection, which its API does not offer.
fn sha1cd_hasher(cfg: DcConfig) -> Option<sha1collisiondetection::Sha1CD> {
    if cfg.reduced_round {
        return None;
    }
    let h = sha1collisiondetection::Sha1CD::configure()
        .safe_hash(cfg.safe_hash)
        .use_ubc(cfg.ubc)
        .detect_collisions(cfg.detect)
        .build();
    Some(h)
}

fn sha1cd_out(mut h: sha1collisiondetection::Sha1CD) -> PeerOut {
    let mut out = sha1collisiondetection::Output::default();
    let detected = h.finalize_into_dirty_cd(&mut out).is_err();
    (out.as_slice().try_into().expect("20 bytes"), detected)
}

/// Ours (`got`, from `data` with `cfg`) against both peers.
fn agree_with_peers(what: &str, cfg: DcConfig, data: &[u8], got: &DcDigest) -> TestResult {
    let mut h = sha1_checked_hasher(cfg);
    sha1_checked_update(&mut h, data);
    let peer = sha1cd_hasher(cfg).map(|mut p| {
        p.update(data);
        p
    });
    agree_with(what, cfg, got, h, peer)
}

/// Ours against peers that have absorbed the same data.
fn agree_with(
    what: &str,
    cfg: DcConfig,
    got: &DcDigest,
    checked: sha1_checked::Sha1,
    cd: Option<sha1collisiondetection::Sha1CD>,
) -> TestResult {
    let ours = (got.digest, got.is_collision());
    let show = |(d, c): PeerOut| format!("{} (detected: {c})", hex(&d));
    let theirs = sha1_checked_out(checked);
    if theirs != ours {
        return Err(format!(
            "{what}, {cfg:?}: ours {}, sha1-checked {}",
            show(ours),
            show(theirs)
        )
        .into());
    }
    if let Some(theirs) = cd.map(sha1cd_out) {
        if theirs != ours {
            return Err(format!(
                "{what}, {cfg:?}: ours {}, sha1collisiondetection {}",
                show(ours),
                show(theirs)
            )
            .into());
        }
    }
    Ok(())
}

/// SHA-1's compression of an expanded block, written out here so the
/// callback's messages are checked against code outside the library.
fn rounds(ihv: [u32; 5], w: &[u32; 80]) -> [u32; 5] {
    let [mut a, mut b, mut c, mut d, mut e] = ihv;
    for (t, wt) in w.iter().enumerate() {
        let (f, k) = match t / 20 {
            0 => ((b & c) | (!b & d), 0x5A82_7999),
            1 => (b ^ c ^ d, 0x6ED9_EBA1),
            2 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
            _ => (b ^ c ^ d, 0xCA62_C1D6u32),
        };
        let n = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(*wt);
        (a, b, c, d, e) = (n, a, b.rotate_left(30), c, d);
    }
    let s = [a, b, c, d, e];
    std::array::from_fn(|i| ihv[i].wrapping_add(s[i]))
}

fn expand(block: &[u8]) -> [u32; 80] {
    let mut w = [0u32; 80];
    for (wi, c) in w.iter_mut().zip(block.chunks_exact(4)) {
        *wi = u32::from_be_bytes(c.try_into().expect("4 bytes"));
    }
    for t in 16..80 {
        w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
    }
    w
}

fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_be_bytes()).collect()
}

/// `data` with SHA-1's padding.
fn padded(data: &[u8]) -> Vec<u8> {
    let mut m = data.to_vec();
    m.push(0x80);
    while m.len() % 64 != 56 {
        m.push(0);
    }
    m.extend_from_slice(&(data.len() as u64 * 8).to_be_bytes());
    m
}

const IV: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

// ---- Differential against the peers --------------------------------------

fn peers_random(b: Backend) -> TestResult {
    // Random data of random lengths, ours in random pieces: digest and
    // detected flag as both peers say, for every switch both offer (and
    // reduced-round detection against sha1-checked, the only one with
    // it). No attack in random data: every answer is plain SHA-1.
    let mut r = rng(0x5EED_DC10);
    let configs = [
        DcConfig::default(),
        config(false, true, true, false),
        config(true, true, false, false),
        config(true, true, true, true),
        config(false, true, true, true),
    ];
    for round in 0..160 {
        let len = r.random_range(0..5000);
        let data = random_bytes(&mut r, len);
        // The filter off is ~30 times slower in all three: fewer rounds.
        let no_ubc = [
            config(true, false, true, false),
            config(true, false, true, true),
        ];
        let extra: &[DcConfig] = if round % 8 == 0 { &no_ubc } else { &[] };
        for &cfg in configs.iter().chain(extra) {
            let got = dc_pieces(b, cfg, &data, &mut r)?;
            let what = format!("round {round}, {len} bytes");
            if let Some(c) = got.collision {
                return Err(format!("{what}, {cfg:?}: false positive {c}").into());
            }
            check_eq(&what, &got.digest, &sha1::digest(&data))?;
            agree_with_peers(&what, cfg, &data, &got)?;
        }
    }
    Ok(())
}

fn peers_collision_files(b: Backend) -> TestResult {
    // The attack files under every configuration: the safe hashes and
    // the detected flags are the peers'.
    let mut r = rng(0x5EED_DC14);
    let names = ATTACKS
        .iter()
        .map(|a| a.0)
        .chain(["sha1_reducedsha_coll.bin"]);
    for name in names {
        let data = file(name);
        for safe_hash in [true, false] {
            for reduced_round in [false, true] {
                for ubc in [true, false] {
                    // Without the filter the PDFs take long in all three.
                    if !ubc && data.len() > 4096 {
                        continue;
                    }
                    let cfg = config(safe_hash, ubc, true, reduced_round);
                    let got = dc_pieces(b, cfg, &data, &mut r)?;
                    agree_with_peers(name, cfg, &data, &got)?;
                }
            }
        }
    }
    Ok(())
}

// ---- The attacks with suffixes -------------------------------------------

fn attack_suffixes(b: Backend) -> TestResult {
    // A suffix keeps the attack blocks' chaining values (a prefix would
    // not), so the attack is still there: detected at the same block,
    // the same safe hash as the peers', and the two files of a pair
    // still collide under plain SHA-1 but not under the safe hash.
    let mut r = rng(0x5EED_DC11);
    let unsafe_cfg = config(false, true, true, false);
    for pair in [
        ["shattered-1.pdf", "shattered-2.pdf"],
        ["sha-mbles-1.bin", "sha-mbles-2.bin"],
    ] {
        let files = pair.map(file);
        let alone = files.each_ref().map(|d| dc(b, DcConfig::default(), d));
        let peers = files.each_ref().map(|d| {
            let mut h = sha1_checked_hasher(DcConfig::default());
            sha1_checked_update(&mut h, d);
            let mut p = sha1cd_hasher(DcConfig::default()).expect("offered");
            p.update(d);
            (h, p)
        });
        for round in 0..5 {
            let n = if round == 0 {
                0
            } else {
                r.random_range(0..300)
            };
            let suffix = random_bytes(&mut r, n);
            let mut outs = Vec::new();
            for i in 0..2 {
                let what = format!("{} + {n}-byte suffix (round {round})", pair[i]);
                let msg = [&files[i][..], &suffix].concat();
                let got = dc_pieces(b, DcConfig::default(), &msg, &mut r)?;
                if got.collision != alone[i].collision || got.collisions != alone[i].collisions {
                    return Err(format!(
                        "{what}: reported {:?} ({} blocks), the file alone {:?} ({})",
                        got.collision, got.collisions, alone[i].collision, alone[i].collisions
                    )
                    .into());
                }
                let (mut h, mut p) = peers[i].clone();
                sha1_checked_update(&mut h, &suffix);
                p.update(&suffix);
                agree_with(&what, DcConfig::default(), &got, h, Some(p))?;
                let plain = dc(b, unsafe_cfg, &msg);
                if !plain.is_collision() {
                    return Err(format!("{what}: not detected with the safe hash off").into());
                }
                check_eq(&what, &plain.digest, &sha1::digest(&msg))?;
                outs.push((got.digest, plain.digest));
            }
            if outs[0].1 != outs[1].1 || outs[0].0 == outs[1].0 {
                return Err(format!(
                    "{pair:?} + {n}-byte suffix: plain {} / {}, safe {} / {}",
                    hex(&outs[0].1),
                    hex(&outs[1].1),
                    hex(&outs[0].0),
                    hex(&outs[1].0)
                )
                .into());
            }
        }
    }
    // The reduced-round file: found with suffixes when asked for (only
    // sha1-checked offers that), plain SHA-1 otherwise.
    let data = file("sha1_reducedsha_coll.bin");
    let alone = dc(b, rr(), &data);
    for round in 0..5 {
        let n = r.random_range(0..300);
        let suffix = random_bytes(&mut r, n);
        let msg = [&data[..], &suffix].concat();
        let what = format!("reduced-round file + {}-byte suffix", suffix.len());
        let got = dc_pieces(b, rr(), &msg, &mut r)?;
        if got.collision.is_none() || got.collision != alone.collision {
            return Err(format!("{what} (round {round}): {got:?}, alone {alone:?}").into());
        }
        agree_with_peers(&what, rr(), &msg, &got)?;
        let got = dc_pieces(b, DcConfig::default(), &msg, &mut r)?;
        check_eq(&what, &got.digest, &sha1::digest(&msg))?;
        agree_with_peers(&what, DcConfig::default(), &msg, &got)?;
    }
    Ok(())
}

// ---- Negatives -----------------------------------------------------------

fn no_false_positives_1m(b: Backend) -> TestResult {
    // 2^20 random blocks (64 MiB), streamed. With reduced-round
    // detection on: it adds a test to the full-collision one, so a false
    // positive of the default configuration would show here too.
    use rand::{rngs::SmallRng, SeedableRng};
    const CHUNK: usize = 1 << 20;
    let mut r = SmallRng::seed_from_u64(0x5EED_DC15);
    let mut h = Sha1Dc::with_backend(b)?.with_config(rr());
    let mut plain = sha1::Sha1::new();
    let mut buf = vec![0u8; CHUNK];
    for _ in 0..64 {
        r.fill_bytes(&mut buf);
        h.update(&buf);
        plain.update(&buf);
    }
    let out = h.finalize();
    if let Some(c) = out.collision {
        return Err(format!("{} false positives, the first: {c}", out.collisions).into());
    }
    check_eq("digest", &out.digest, &plain.finalize())
}

// ---- The digest traits ----------------------------------------------------

fn digest_traits(b: Backend) -> TestResult {
    use fastcrypt::digest::{
        common::AlgorithmName, const_oid::AssociatedOid, Digest, DynDigest, OutputSizeUser,
    };
    let mut r = rng(0x5EED_DC12);
    let mut inputs = vec![file("sha-mbles-1.bin"), file("sha1_reducedsha_coll.bin")];
    for len in [0, 1, 55, 56, 63, 64, 65, 200, 1000] {
        inputs.push(random_bytes(&mut r, len));
    }
    let new = |cfg| -> Result<Sha1Dc, Failed> { Ok(Sha1Dc::with_backend(b)?.with_config(cfg)) };
    for cfg in [DcConfig::default(), config(false, true, true, false), rr()] {
        for data in &inputs {
            let want = dc(b, cfg, data);
            let what = format!("{} bytes, {cfg:?}", data.len());
            let at = r.random_range(0..=data.len());
            let (x, y) = data.split_at(at);
            // chain_update, then Digest::finalize.
            let got = Digest::finalize(new(cfg)?.chain_update(x).chain_update(y));
            check_eq(&format!("{what}: chain"), &got, &want.digest)?;
            // update, finalize_reset, and again from the reset state.
            let mut h = new(cfg)?;
            Digest::update(&mut h, x);
            Digest::update(&mut h, y);
            check_eq(&what, &Digest::finalize_reset(&mut h), &want.digest)?;
            if h.backend() != b || h.config() != cfg {
                return Err(format!("{what}: reset lost the backend or the switches").into());
            }
            Digest::update(&mut h, data);
            check_eq(
                &format!("{what}: reused"),
                &Digest::finalize_reset(&mut h),
                &want.digest,
            )?;
            // reset drops what was absorbed, including a detection.
            Digest::update(&mut h, &inputs[0]);
            Digest::reset(&mut h);
            if h.collision().is_some() {
                return Err(format!("{what}: a collision survived reset").into());
            }
            Digest::update(&mut h, data);
            // The inherent report after the trait's updates.
            let report = h.clone().finalize();
            if report != want {
                return Err(format!("{what}: {report:?} vs {want:?}").into());
            }
            check_eq(
                &format!("{what}: reset"),
                &Digest::finalize(h),
                &want.digest,
            )?;
            // Boxed, as DynDigest.
            let mut d: Box<dyn DynDigest> = Box::new(new(cfg)?);
            d.update(x);
            let fork = d.box_clone();
            d.update(y);
            check_eq(&format!("{what}: dyn"), &d.finalize_reset(), &want.digest)?;
            d.update(data);
            check_eq(&format!("{what}: dyn again"), &d.finalize(), &want.digest)?;
            let mut fork = fork;
            fork.update(y);
            check_eq(
                &format!("{what}: dyn clone"),
                &fork.finalize(),
                &want.digest,
            )?;
        }
    }
    // One-shot `Digest::digest`: the fastest backend, default switches.
    for data in &inputs {
        check_eq(
            "digest()",
            &Sha1Dc::digest(data),
            &sha1::digest_dc(data).digest,
        )?;
    }
    // Every length up to 400 bytes: the one-shot copies messages under
    // three blocks to the stack whole (one kernel call), longer ones go
    // straight from the input, the rest padded on the stack.
    let long = random_bytes(&mut r, 400);
    for len in 0..=long.len() {
        let out = sha1::digest_dc(&long[..len]);
        if out.is_collision() || out.collisions != 0 {
            return Err(format!("digest_dc, {len} bytes: {out:?}").into());
        }
        check_eq(
            &format!("digest_dc, {len} bytes"),
            &out.digest,
            &sha1::digest(&long[..len]),
        )?;
    }
    if <Sha1Dc as OutputSizeUser>::output_size() != 20 {
        return Err("output size is not 20".into());
    }
    struct Name;
    impl std::fmt::Display for Name {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            <Sha1Dc as AlgorithmName>::write_alg_name(f)
        }
    }
    if Name.to_string() != "Sha1Dc" {
        return Err(format!("algorithm name {}", Name).into());
    }
    use sha1_checked::digest::const_oid::AssociatedOid as PeerOid;
    let (ours, peer) = (
        <Sha1Dc as AssociatedOid>::OID.to_string(),
        <sha1_checked::Sha1 as PeerOid>::OID.to_string(),
    );
    if ours != peer || ours != "1.3.14.3.2.26" {
        return Err(format!("OID {ours}, sha1-checked's {peer}").into());
    }
    Ok(())
}

// ---- The block-level API -------------------------------------------------

fn compress_dc_blocks(b: Backend) -> TestResult {
    // The padded files block by block, so the state before each block is
    // known: each report names its block's offset and input chaining
    // value; m1 is the block's expanded message, m2 another valid
    // expansion that differs from it; a full collision's m2 from ihv2
    // ends where m1 from ihv1 does, a reduced-round one starts from the
    // same ihv; the safe hash compresses the block twice more. One
    // vector's difference is the same wherever it is found. Then the
    // same data in random runs of blocks, the offset carried along: the
    // same state and reports, and all of it is `Sha1Dc`'s answer.
    let mut r = rng(0x5EED_DC16);
    let mut diffs: Vec<(DisturbanceVector, [u32; 80])> = Vec::new();
    let cases = [
        ("sha-mbles-1.bin", DcConfig::default()),
        ("sha-mbles-2.bin", DcConfig::default()),
        ("shattered-1.pdf", DcConfig::default()),
        ("shattered-2.pdf", config(false, true, true, false)),
        ("sha1_reducedsha_coll.bin", rr()),
        ("shattered-1.pdf", rr()),
    ];
    for (name, cfg) in cases {
        let data = file(name);
        let msg = padded(&data);
        let want = dc(b, cfg, &data);
        let mut state = IV;
        let mut reports: Vec<Collision> = Vec::new();
        for (n, block) in msg.chunks_exact(64).enumerate() {
            let before = state;
            let offset = (n * 64) as u64;
            let mut seen = Vec::new();
            let count = sha1::compress_dc(b, &cfg, &mut state, offset, block, &mut |c, m1, m2| {
                seen.push((*c, *m1, *m2))
            })?;
            let what = format!("{name} block {n}");
            if count != seen.len() as u64 || seen.len() > 1 {
                return Err(format!("{what}: {count} counted, {} reported", seen.len()).into());
            }
            let w = expand(block);
            let Some((c, m1, m2)) = seen.pop() else {
                if state != rounds(before, &w) {
                    return Err(format!("{what}: state is not SHA-1's").into());
                }
                continue;
            };
            if c.offset != offset || c.ihv1 != before {
                return Err(format!("{what}: report {c:?}, state before {before:08x?}").into());
            }
            if m1 != w || m2 == m1 || expand(&words_to_bytes(&m2[..16])) != m2 {
                return Err(format!("{what}: m1 / m2 are not the block and a valid other").into());
            }
            if !DisturbanceVector::all().any(|d| d == c.dv) {
                return Err(format!("{what}: unknown vector {}", c.dv).into());
            }
            let (out1, out2) = (rounds(c.ihv1, &m1), rounds(c.ihv2, &m2));
            let ok = if c.reduced_round {
                cfg.reduced_round && c.ihv2 == c.ihv1 && out1 != out2
            } else {
                c.ihv2 != c.ihv1 && out1 == out2
            };
            if !ok {
                return Err(format!("{what}: recompression does not hold for {c:?}").into());
            }
            let after = if cfg.safe_hash {
                rounds(rounds(out1, &w), &w)
            } else {
                out1
            };
            if state != after {
                return Err(format!(
                    "{what}: state after the block (safe hash {})",
                    cfg.safe_hash
                )
                .into());
            }
            let diff: [u32; 80] = std::array::from_fn(|t| m1[t] ^ m2[t]);
            match diffs.iter().find(|(dv, _)| *dv == c.dv) {
                Some((_, d)) if *d != diff => {
                    return Err(format!("{what}: {} with another difference", c.dv).into())
                }
                Some(_) => {}
                None => diffs.push((c.dv, diff)),
            }
            reports.push(c);
        }
        let digest = words_to_bytes(&state);
        check_eq(&format!("{name} digest"), &digest, &want.digest)?;
        if reports.len() as u64 != want.collisions || reports.first() != want.collision.as_ref() {
            return Err(format!("{name}: reports {reports:?}, Sha1Dc {want:?}").into());
        }
        if reports.is_empty() {
            return Err(format!("{name}: nothing reported").into());
        }
        // Runs of 0 to 40 blocks.
        let mut state2 = IV;
        let mut reports2 = Vec::new();
        let mut at = 0;
        while at < msg.len() {
            let take = (r.random_range(0..=40) * 64).min(msg.len() - at);
            let run = &msg[at..at + take];
            let count = sha1::compress_dc(b, &cfg, &mut state2, at as u64, run, &mut |c, _, _| {
                reports2.push(*c)
            })?;
            if count as usize > reports2.len() {
                return Err(format!("{name}: {count} counted, fewer reported").into());
            }
            at += take;
        }
        if state2 != state || reports2 != reports {
            return Err(format!("{name}: runs of blocks give another answer").into());
        }
    }
    Ok(())
}

// ---- Streaming -----------------------------------------------------------

fn every_split(b: Backend) -> TestResult {
    // Every split point of the SHAMBLES file (and of the reduced-round
    // file): two updates give the one-shot answer; a clone taken between
    // them gives it too, and has seen the collision exactly when its
    // block was whole; the clone fed another tail hashes the other
    // message.
    let mut r = rng(0x5EED_DC13);
    for (name, cfg) in [
        ("sha-mbles-1.bin", DcConfig::default()),
        ("sha-mbles-1.bin", config(false, true, true, false)),
        ("sha1_reducedsha_coll.bin", rr()),
    ] {
        let data = file(name);
        let want = dc(b, cfg, &data);
        let first = want
            .collision
            .ok_or_else(|| format!("{name}: no collision"))?;
        for k in 0..=data.len() {
            let what = format!("{name} split at {k}, {cfg:?}");
            let mut h = Sha1Dc::with_backend(b)?.with_config(cfg);
            h.update(&data[..k]);
            let fork = h.clone();
            h.update(&data[k..]);
            let got = h.finalize();
            if got != want {
                return Err(format!("{what}: {got:?} vs {want:?}").into());
            }
            let seen = (k as u64 >= first.offset + 64).then_some(&first);
            if fork.collision() != seen {
                return Err(format!("{what}: clone has seen {:?}", fork.collision()).into());
            }
            let mut same = fork.clone();
            same.update(&data[k..]);
            if same.finalize() != want {
                return Err(format!("{what}: the clone differs").into());
            }
            let n = r.random_range(0..100);
            let tail = random_bytes(&mut r, n);
            let mut other = fork;
            other.update(&tail);
            let other_want = dc(b, cfg, &[&data[..k], &tail].concat());
            if other.finalize() != other_want {
                return Err(format!("{what}: the clone with another tail differs").into());
            }
        }
    }
    Ok(())
}
