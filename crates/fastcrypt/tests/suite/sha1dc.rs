//! Collision-detecting SHA-1: the SHAttered and SHAMBLES files and the
//! reduced-round collision, with the reference's safe hashes; negatives;
//! streaming; the filter against no filter. Every test on every backend.

use super::common::{check_eq, per_backend, rng, testdata, TestResult};
use fastcrypt::sha1::{self, Backend, DcConfig, DcDigest, Sha1Dc};
use libtest_mimic::Trial;
use rand::Rng;

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "sha1dc_collision_files", collision_files);
    per_backend(trials, "sha1dc_reduced_round_file", reduced_round_file);
    per_backend(trials, "sha1dc_ubc_off_agrees", ubc_off_agrees);
    per_backend(trials, "sha1dc_random_is_plain_sha1", random_is_plain);
    per_backend(trials, "sha1dc_streaming_splits", streaming_splits);
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
    // nothing. (The ignored `sha1dc_no_false_positives_1m` runs a million
    // blocks.)
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
