//! Multi-buffer SHA-1 (`sha1::many`): every backend against the
//! one-stream portable oracle on random sets, equal lengths at every
//! block boundary, lane-refill and hand-off edge cases, BitTorrent-style
//! pieces with every remainder, guard pages and the CAVP messages.

use super::common::{
    assignments, backend_api, before_guard_page, check_eq, lengths, painted, per_backend,
    read_testdata, rng, TestResult,
};
use fastcrypt::sha1::many::{self, Backend, Sha1Many};
use fastcrypt::sha1::{self, DcConfig, DcDigest, Sha1, Sha1Dc};
use libtest_mimic::Trial;
use rand::Rng;

fn many(b: Backend) -> Sha1Many {
    Sha1Many::with_backend(b).expect("registered only when available")
}

fn oracle(data: &[u8]) -> [u8; 20] {
    let mut h = Sha1::with_backend(sha1::Backend::Portable).expect("portable always runs");
    h.update(data);
    h.finalize()
}

/// Lane counts of the kernels (the SHA-NI chains, AVX2, AVX-512) and one
/// more and less: where refills, idle lanes and hand-offs change.
const WIDTHS: &[usize] = &[1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33];

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "sha1_many_random_sets", random_sets);
    per_backend(trials, "sha1_many_equal_lengths", equal_lengths);
    per_backend(trials, "sha1_many_refill_edges", refill_edges);
    per_backend(trials, "sha1_many_pieces", pieces);
    per_backend(trials, "sha1_many_guard_page", guard_page);
    per_backend(trials, "sha1_many_cavp", cavp);
    per_backend(trials, "sha1_many_into_forms", into_forms);
    per_backend(trials, "sha1_many_dc_attack_files", dc_attack_files);
    per_backend(trials, "sha1_many_dc_random_sets", dc_random_sets);
    per_backend(
        trials,
        "sha1_many_dc_no_false_positives",
        dc_no_false_positives,
    );
    trials.push(Trial::test("sha1_many_backend_api", || {
        backend_api(
            |b| Sha1Many::with_backend(b).map(|h| h.backend()),
            || Sha1Many::new().backend(),
        )
    }));
    trials.push(Trial::test("sha1_many_one_shot", one_shot));
}

/// `b`'s digests of `msgs` against the oracle's, naming the first
/// message that differs.
fn check_set<M: AsRef<[u8]>>(b: Backend, what: &str, msgs: &[M]) -> TestResult {
    let got = many(b).digest_many(msgs);
    if got.len() != msgs.len() {
        return Err(format!("{what}: {} digests for {} messages", got.len(), msgs.len()).into());
    }
    for (i, (m, d)) in msgs.iter().zip(&got).enumerate() {
        let m = m.as_ref();
        check_eq(
            &format!("{what}: message {i} of {} (len {})", msgs.len(), m.len()),
            d,
            &oracle(m),
        )?;
    }
    Ok(())
}

/// Seeded sets of 1 to 100 messages, lengths 0..=20000 mixed (most short,
/// some long, so lanes end at every moment), starting at odd offsets of
/// one buffer.
fn random_sets(b: Backend) -> TestResult {
    let seed = 0x5EED_3A11;
    let mut r = rng(seed);
    let pool: Vec<u8> = (0..40_000).map(|_| r.random()).collect();
    for round in 0..60 {
        let count = r.random_range(1..=100);
        let msgs: Vec<&[u8]> = (0..count)
            .map(|_| {
                let len = match r.random_range(0..10) {
                    0..=4 => r.random_range(0..=200),
                    5..=7 => r.random_range(0..=5000),
                    _ => r.random_range(0..=20_000),
                };
                let at = r.random_range(0..=pool.len() - len);
                &pool[at..at + len]
            })
            .collect();
        check_set(b, &format!("seed {seed:#x} round {round}"), &msgs)?;
    }
    Ok(())
}

/// Every count of [`WIDTHS`] with all messages of one length, for every
/// length of the shared table at SHA-1's block: the lanes start, pad and
/// end together, at every block boundary and padding shape.
fn equal_lengths(b: Backend) -> TestResult {
    let lens = lengths(64, 64);
    let data = painted(lens[lens.len() - 1] + 64);
    for &count in WIDTHS {
        for &len in &lens {
            // Different content per message (a lane mix-up must show).
            let msgs: Vec<&[u8]> = (0..count).map(|i| &data[i..i + len]).collect();
            check_set(b, &format!("{count} messages of {len} bytes"), &msgs)?;
        }
    }
    Ok(())
}

/// The scheduler's edge cases: one long message among many short ones
/// (first, middle, last), lanes ending one at a time, descending and
/// ascending lengths (the batch drains and hands its last lanes to a
/// narrower kernel), one- and two-block paddings mixed, many empty
/// messages, and one slice given many times.
fn refill_edges(b: Backend) -> TestResult {
    let data = painted(300_000);
    let short = |i: usize| &data[i..i + i % 100];
    for at in [0usize, 100, 199] {
        let mut msgs: Vec<&[u8]> = (0..200).map(short).collect();
        msgs[at] = &data[7..7 + 250_000];
        check_set(b, &format!("one long message at {at}"), &msgs)?;
    }
    for &count in WIDTHS {
        let staggered: Vec<&[u8]> = (0..count)
            .map(|k| &data[k..k + k * 64 + (k % 3) * 20])
            .collect();
        check_set(b, &format!("{count} staggered"), &staggered)?;
        let descending: Vec<&[u8]> = (0..count).map(|k| &data[..(count - k) * 300]).collect();
        check_set(b, &format!("{count} descending"), &descending)?;
        let ascending: Vec<&[u8]> = (0..count).map(|k| &data[k..k + k * 1000 + 5]).collect();
        check_set(b, &format!("{count} ascending"), &ascending)?;
    }
    // Lengths 0..=127: tails of one block (0..=55 mod 64) and of two
    // (56..=63) side by side in the lanes.
    let paddings: Vec<&[u8]> = (0..128).map(|n| &data[n..2 * n]).collect();
    check_set(b, "paddings of one and two blocks", &paddings)?;
    check_set(b, "1000 empty messages", &vec![&[][..]; 1000])?;
    check_set(b, "one slice 40 times", &vec![&data[..5000]; 40])?;
    check_set(b, "no messages", &Vec::<&[u8]>::new())?;
    Ok(())
}

/// `digest_pieces` against the oracle over `data.chunks(piece)`, for
/// piece sizes from 1 byte to 256 KiB and data lengths `k * piece + r`
/// with every remainder `r` for the small sizes and the block-boundary
/// remainders for the large ones, and for empty data.
fn pieces(b: Backend) -> TestResult {
    let h = many(b);
    let data = painted(18 * (256 << 10));
    for piece in [1usize, 7, 55, 63, 64, 65, 1000, 4096, 16 << 10, 256 << 10] {
        let rems: Vec<usize> = if piece <= 65 {
            (0..piece).collect()
        } else {
            [0, 1, 55, 56, 63, 64, 65, piece - 1].to_vec()
        };
        for k in [0usize, 1, 2, 17] {
            for &r in &rems {
                let len = k * piece + r;
                let buf = &data[..len];
                let got = h.digest_pieces(buf, piece);
                let want: Vec<[u8; 20]> = buf.chunks(piece).map(oracle).collect();
                if got != want {
                    let i = got.iter().zip(&want).position(|(g, w)| g != w);
                    return Err(format!(
                        "piece {piece}, {len} bytes: {} digests (want {}), first wrong: {i:?}",
                        got.len(),
                        want.len()
                    )
                    .into());
                }
            }
        }
    }
    Ok(())
}

/// Messages that end right before an unmapped page: each lane's last
/// load must stay inside its message (the kernels read whole blocks, the
/// padding from the lane's own copy).
fn guard_page(b: Backend) -> TestResult {
    let lens = lengths(64, 64);
    before_guard_page(&lens, |len, tail| {
        // Every suffix of the mapping's tail that is a block boundary
        // away, in one set: all end at the guard page.
        let msgs: Vec<&[u8]> = (0..=len.min(16 * 64))
            .step_by(61)
            .map(|skip| &tail[skip..])
            .collect();
        let want: Vec<[u8; 20]> = (0..=len.min(16 * 64))
            .step_by(61)
            .map(|skip| oracle(&painted(len)[skip..]))
            .collect();
        let got = many(b).digest_many(&msgs);
        if got == want {
            Ok(())
        } else {
            Err(format!("{} messages ending at the guard page", msgs.len()).into())
        }
    })
}

/// Every message of the CAVP short and long files as one set.
fn cavp(b: Backend) -> TestResult {
    let mut msgs = Vec::new();
    let mut mds = Vec::new();
    for file in ["sha1/SHA1ShortMsg.rsp", "sha1/SHA1LongMsg.rsp"] {
        let text = read_testdata(file)?;
        let mut len_bits = 0usize;
        let mut msg = Vec::new();
        for a in assignments(&text) {
            match a.key {
                "Len" => len_bits = a.value.parse().map_err(|e| a.bad(e))?,
                "Msg" => msg = a.hex()?,
                "MD" => {
                    msg.truncate(len_bits / 8);
                    msgs.push(std::mem::take(&mut msg));
                    mds.push(a.hex()?);
                }
                _ => {}
            }
        }
    }
    if msgs.len() != 129 {
        return Err(format!("parsed {} CAVP messages, expected 129", msgs.len()).into());
    }
    let got = many(b).digest_many(&msgs);
    for (i, (g, want)) in got.iter().zip(&mds).enumerate() {
        check_eq(
            &format!("CAVP message {i} (len {})", msgs[i].len()),
            g,
            want,
        )?;
    }
    Ok(())
}

/// The `_into` forms write exactly what the allocating ones return, over
/// output slots pre-filled with garbage.
fn into_forms(b: Backend) -> TestResult {
    let h = many(b);
    let data = painted(70_000);
    let msgs: Vec<&[u8]> = (0..50).map(|i| &data[i * 3..i * 3 + i * 997]).collect();
    let mut out = vec![[0xA5u8; 20]; msgs.len()];
    h.digest_many_into(&msgs, &mut out);
    if out != h.digest_many(&msgs) {
        return Err("digest_many_into differs from digest_many".into());
    }
    let mut out = vec![[0x5Au8; 20]; data.len().div_ceil(4096)];
    h.digest_pieces_into(&data, 4096, &mut out);
    if out != h.digest_pieces(&data, 4096) {
        return Err("digest_pieces_into differs from digest_pieces".into());
    }
    Ok(())
}

fn one_shot() -> TestResult {
    let data = painted(100_000);
    let msgs: Vec<&[u8]> = (0..40).map(|i| &data[..i * 2500]).collect();
    let want: Vec<[u8; 20]> = msgs.iter().map(|m| oracle(m)).collect();
    if many::digest_many(&msgs) != want || sha1::digest_many(&msgs) != want {
        return Err("digest_many differs from the oracle".into());
    }
    let want: Vec<[u8; 20]> = data.chunks(30_000).map(oracle).collect();
    if many::digest_pieces(&data, 30_000) != want || sha1::digest_pieces(&data, 30_000) != want {
        return Err("digest_pieces differs from the oracle".into());
    }
    Ok(())
}

/// The one-stream detector on the portable backend: the oracle of the
/// detecting lanes (it is checked against the reference's values and
/// the peers in sha1dc.rs).
fn dc_oracle(cfg: DcConfig, data: &[u8]) -> DcDigest {
    let mut h = Sha1Dc::with_backend(sha1::Backend::Portable)
        .expect("portable always runs")
        .with_config(cfg);
    h.update(data);
    h.finalize()
}

/// `b`'s detecting digests of `msgs` against the oracle's: digest, first
/// collision and count.
fn check_dc_set(b: Backend, what: &str, cfg: DcConfig, msgs: &[Vec<u8>]) -> TestResult {
    let got = many(b).digest_many_dc(msgs, cfg);
    let mut into = vec![dc_oracle(cfg, b"garbage"); msgs.len()];
    many(b).digest_many_dc_into(msgs, cfg, &mut into);
    if into != got {
        return Err(format!("{what}: digest_many_dc_into differs from digest_many_dc").into());
    }
    for (i, (m, d)) in msgs.iter().zip(&got).enumerate() {
        let want = dc_oracle(cfg, m);
        if *d != want {
            return Err(format!(
                "{what}, {cfg:?}: message {i} of {} (len {}): got {d:?}, want {want:?}",
                msgs.len(),
                m.len()
            )
            .into());
        }
    }
    Ok(())
}

fn attack_file(name: &str) -> Vec<u8> {
    let p = super::common::testdata(&format!("sha1dc/{name}"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The SHAttered and SHAMBLES files and the reduced-round file, alone,
/// with random suffixes (the attack stays at its block), among random
/// messages so that attack blocks meet clean ones in the lanes, at
/// several positions of the set (each lane, idle lanes, the hand-off to
/// the one-stream detector), and cut short after the attack blocks among
/// short messages (a hit found after the message is done), under every
/// configuration.
fn dc_attack_files(b: Backend) -> TestResult {
    let mut r = rng(0x5EED_DC33);
    let files: Vec<Vec<u8>> = [
        "shattered-1.pdf",
        "shattered-2.pdf",
        "sha-mbles-1.bin",
        "sha-mbles-2.bin",
        "sha1_reducedsha_coll.bin",
    ]
    .iter()
    .map(|f| attack_file(f))
    .collect();
    let cfgs = [
        DcConfig::default(),
        DcConfig {
            safe_hash: false,
            ..DcConfig::default()
        },
        DcConfig {
            reduced_round: true,
            ..DcConfig::default()
        },
        DcConfig {
            detect: false,
            ..DcConfig::default()
        },
        DcConfig {
            ubc: false,
            ..DcConfig::default()
        },
    ];
    for (n, cfg) in cfgs.iter().enumerate() {
        // The files alone, then with suffixes, among random messages.
        check_dc_set(b, "the files alone", *cfg, &files)?;
        // The filter-off configuration recompresses every block: keep it
        // to one set.
        let rounds = if cfg.ubc { 6 } else { 1 };
        for round in 0..rounds {
            let count = [3usize, 8, 16, 17, 40, 7][round];
            let mut msgs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let len = r.random_range(0..3000);
                    (0..len).map(|_| r.random()).collect()
                })
                .collect();
            for f in &files {
                let suffix: Vec<u8> = (0..r.random_range(0..300)).map(|_| r.random()).collect();
                let at = r.random_range(0..=msgs.len());
                msgs.insert(at, [&f[..], &suffix].concat());
            }
            check_dc_set(b, &format!("config {n}, round {round}"), *cfg, &msgs)?;
        }
        // SHAttered's near-collision blocks end at byte 320: messages that
        // end soon after them finish before their candidates' batch is
        // tested, among short messages that keep refilling the lanes.
        for round in 0..4 {
            let mut msgs: Vec<Vec<u8>> = (0..60)
                .map(|_| (0..r.random_range(0..400)).map(|_| r.random()).collect())
                .collect();
            for f in &files[..2] {
                let at = r.random_range(0..=msgs.len());
                msgs.insert(at, f[..320 + r.random_range(0..130)].to_vec());
            }
            check_dc_set(b, &format!("config {n}, short round {round}"), *cfg, &msgs)?;
        }
    }
    Ok(())
}

/// Random sets of random lengths: no collision, digests plain SHA-1.
fn dc_random_sets(b: Backend) -> TestResult {
    let mut r = rng(0x5EED_DC44);
    for round in 0..20 {
        let count = r.random_range(1..=60);
        let msgs: Vec<Vec<u8>> = (0..count)
            .map(|_| {
                let len = r.random_range(0..=20_000);
                (0..len).map(|_| r.random()).collect()
            })
            .collect();
        check_dc_set(b, &format!("round {round}"), DcConfig::default(), &msgs)?;
    }
    Ok(())
}

/// 2^20 random blocks (64 MiB) as 256 messages of 256 KiB, with
/// reduced-round detection on (it adds a test, so a false positive of
/// the default configuration would show too): nothing detected, every
/// digest plain SHA-1.
fn dc_no_false_positives(b: Backend) -> TestResult {
    use rand::{rngs::SmallRng, RngCore, SeedableRng};
    let mut r = SmallRng::seed_from_u64(0x5EED_DC55);
    let mut data = vec![0u8; 64 << 20];
    r.fill_bytes(&mut data);
    let msgs: Vec<&[u8]> = data.chunks(256 << 10).collect();
    let cfg = DcConfig {
        reduced_round: true,
        ..DcConfig::default()
    };
    let got = many(b).digest_many_dc(&msgs, cfg);
    for (i, (m, d)) in msgs.iter().zip(&got).enumerate() {
        if let Some(c) = d.collision {
            return Err(format!("message {i}: false positive {c}").into());
        }
        check_eq(&format!("message {i}"), &d.digest, &sha1::digest(m))?;
    }
    Ok(())
}
