//! GHASH: the GCM specification's values (with the running X_i), RFC 8452's
//! GHASH/POLYVAL example, a bit-by-bit field multiply as an independent
//! oracle, random keys/lengths/splits against the portable backend,
//! RustCrypto `ghash` as a differential peer and the `universal-hash`
//! traits. Every test runs on every backend. (The constant-time probes,
//! of every backend, are in `super::ct`.)

use super::common::{
    backend_api, before_guard_page, check_eq, lengths, painted, per_backend, rng, TestResult,
};
use fastcrypt::ghash::{Backend, GHash};
use libtest_mimic::Trial;
use rand::Rng;

fn ghash(b: Backend, h: &[u8; 16]) -> GHash {
    GHash::with_backend(b, h).expect("registered only when available")
}

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "ghash_gcm_spec", gcm_spec);
    per_backend(trials, "ghash_rfc8452_example", rfc8452_example);
    per_backend(trials, "ghash_vs_bitwise_multiply", vs_bitwise_multiply);
    per_backend(trials, "ghash_vs_bitwise_ghash", vs_bitwise_ghash);
    per_backend(trials, "ghash_lengths_vs_portable", lengths_vs_portable);
    per_backend(trials, "ghash_random_splits", random_splits);
    per_backend(trials, "ghash_clone_reset", clone_reset);
    per_backend(trials, "ghash_guard_page", guard_page);
    per_backend(trials, "ghash_vs_rustcrypto", vs_rustcrypto);
    #[cfg(feature = "rustcrypto")]
    per_backend(trials, "ghash_universal_hash_traits", universal_hash_traits);
    #[cfg(feature = "rustcrypto")]
    per_backend(trials, "ghash_block_types", block_types);
    trials.push(Trial::test("ghash_backend_api", || {
        backend_api(
            |b| GHash::with_backend(b, &[1; 16]).map(|g| g.backend()),
            || GHash::new(&[1; 16]).backend(),
        )
    }));
}

/// Keys and blocks in every type the methods take: `[u8; 16]`,
/// RustCrypto's `Array` (`Key`, `Block`) and references to blocks (staged
/// 16 at a time, so the block counts cross that boundary), all hashing
/// alike.
#[cfg(feature = "rustcrypto")]
fn block_types(b: Backend) -> TestResult {
    use fastcrypt::ghash::{Block, Key};
    let h: [u8; 16] = std::array::from_fn(|i| (i * 29 + 3) as u8);
    for n in [0usize, 1, 15, 16, 17, 33, 100] {
        let data = painted(16 * n);
        let arrays: Vec<[u8; 16]> = data
            .chunks_exact(16)
            .map(|c| c.try_into().unwrap())
            .collect();
        let blocks: Vec<Block> = arrays.iter().map(|&a| Block::from(a)).collect();
        let refs: Vec<&[u8; 16]> = arrays.iter().collect();
        let mut want = ghash(b, &h);
        want.update_padded(&data);
        let want = want.finalize();
        let key = Key::from(h);
        let mut g1 = GHash::with_backend(b, &key)?;
        g1.update(&blocks);
        let mut g2 = GHash::with_backend(b, &&key)?;
        g2.update(&refs);
        let mut g3 = ghash(b, &h);
        g3.update(arrays.as_slice());
        for (what, g) in [
            ("Array blocks", g1),
            ("&[u8; 16] blocks", g2),
            ("[u8; 16] blocks", g3),
        ] {
            check_eq(&format!("{n} {what}"), &g.finalize(), &want)?;
        }
    }
    Ok(())
}

/// The shared length table at GHASH's block and the widest kernel's
/// stride (VPCLMULQDQ: 16 blocks per reduction).
fn lens() -> Vec<usize> {
    lengths(16, 16 * 16)
}

fn hex16(s: &str) -> [u8; 16] {
    hex::decode(s).expect("hex").try_into().expect("16 bytes")
}

// ---------------------------------------------------------------------------
// The independent oracle: GCM's multiplication exactly as the specification
// writes it (NIST SP 800-38D, Algorithm 1; McGrew & Viega, section 2.5),
// one bit at a time, on big-endian 128-bit values whose most significant
// bit is the coefficient of x^0.

fn gf_mul(x: u128, y: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let mut z = 0;
    let mut v = y;
    for i in (0..128).rev() {
        if (x >> i) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
    }
    z
}

/// GHASH of zero-padded `data`, bit by bit.
fn ghash_bitwise(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let h = u128::from_be_bytes(*h);
    let mut y = 0u128;
    for chunk in data.chunks(16) {
        let mut b = [0u8; 16];
        b[..chunk.len()].copy_from_slice(chunk);
        y = gf_mul(y ^ u128::from_be_bytes(b), h);
    }
    y.to_be_bytes()
}

/// The `len(A) || len(C)` block (bit lengths, big-endian).
fn len_block(aad: usize, ct: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad as u64 * 8).to_be_bytes());
    b[8..].copy_from_slice(&(ct as u64 * 8).to_be_bytes());
    b
}

// ---------------------------------------------------------------------------
// Published values.

/// A GHASH(H, A, C) value from the GCM specification, with the running
/// state X_i after each padded block of A then C.
struct SpecCase {
    tc: u32,
    h: &'static str,
    aad: &'static str,
    ct: &'static str,
    x: &'static [&'static str],
    ghash: &'static str,
}

/// D. McGrew and J. Viega, "The Galois/Counter Mode of Operation (GCM)",
/// revised submission to NIST, 2005, Appendix B "AES Test Vectors": the
/// H, A, C, X_i and GHASH(H, A, C) values printed for the test cases named
/// below (Test Cases 2 and 4 use AES-128 keys, 14 and 16 AES-256 keys; the
/// appendix has no page numbers of its own, each case is a headed table).
/// Test Case 6's IV (60 bytes) is hashed as GHASH(H, {}, IV) to make Y0:
/// the spec prints those X_i and Y0 as well.
const SPEC: &[SpecCase] = &[
    SpecCase {
        tc: 2,
        h: "66e94bd4ef8a2c3b884cfa59ca342b2e",
        aad: "",
        ct: "0388dace60b6a392f328c2b971b2fe78",
        x: &["5e2ec746917062882c85b0685353deb7"],
        ghash: "f38cbb1ad69223dcc3457ae5b6b0f885",
    },
    SpecCase {
        tc: 4,
        h: "b83b533708bf535d0aa6e52980d53b78",
        aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        ct: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
             21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
        x: &[
            "ed56aaf8a72d67049fdb9228edba1322",
            "cd47221ccef0554ee4bb044c88150352",
            "54f5e1b2b5a8f9525c23924751a3ca51",
            "324f585c6ffc1359ab371565d6c45f93",
            "ca7dd446af4aa70cc3c0cd5abba6aa1c",
            "1590df9b2eb6768289e57d56274c8570",
        ],
        ghash: "698e57f70e6ecc7fd9463b7260a9ae5f",
    },
    SpecCase {
        tc: 6,
        h: "b83b533708bf535d0aa6e52980d53b78",
        aad: "",
        ct: "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728\
             c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
        x: &[
            "004d6599d7fb1634756e1e299d81630f",
            "88ffe8a3c8033df4b54d732f7f88408e",
            "24e694cfab657beabba8055aad495e23",
            "d8349a5eda24943c8fbb2ef5168b20cb",
        ],
        ghash: "3bab75780a31c059f83d2a44752f9864",
    },
    SpecCase {
        tc: 14,
        h: "dc95c078a2408989ad48a21492842087",
        aad: "",
        ct: "cea7403d4d606b6e074ec5d3baf39d18",
        x: &["fd6ab7586e556dba06d69cfe6223b262"],
        ghash: "83de425c5edc5d498f382c441041ca92",
    },
    SpecCase {
        tc: 16,
        h: "acbef20579b4b8ebce889bac8732dad7",
        aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        ct: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
             8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
        x: &[
            "5165d242c2592c0a6375e2622cf925d2",
            "8efa30ce83298b85fe71abefc0cdd01d",
            "abe07e0bb62354177480b550f9f6cdcc",
            "3978e4f141b95f3b4699756b1c3c2082",
            "8abf3c48901debe76837d8a05c7d6e87",
            "9249beaf520c48b912fa120bbf391dc8",
        ],
        ghash: "8bd0c4d8aacd391e67cca447e8c38f65",
    },
];

fn gcm_spec(b: Backend) -> TestResult {
    for c in SPEC {
        let h = hex16(c.h);
        let aad = hex::decode(c.aad).unwrap();
        let ct = hex::decode(c.ct).unwrap();
        let padded = |d: &[u8]| {
            let mut v = d.to_vec();
            v.resize(d.len().div_ceil(16) * 16, 0);
            v
        };
        let blocks: Vec<u8> = [padded(&aad), padded(&ct)].concat();
        if blocks.len() / 16 != c.x.len() {
            return Err(format!(
                "TC{}: {} blocks but {} X values",
                c.tc,
                blocks.len() / 16,
                c.x.len()
            )
            .into());
        }
        // Block by block, checking every running X_i.
        let mut g = ghash(b, &h);
        for (i, (blk, x)) in blocks.chunks(16).zip(c.x).enumerate() {
            g.update(&[<[u8; 16]>::try_from(blk).unwrap()]);
            check_eq(
                &format!("TC{} X{}", c.tc, i + 1),
                &g.clone().finalize(),
                &hex16(x),
            )?;
        }
        g.update(&[len_block(aad.len(), ct.len())]);
        check_eq(&format!("TC{} GHASH", c.tc), &g.finalize(), &hex16(c.ghash))?;
        // In one go, through update_padded.
        let mut g = ghash(b, &h);
        g.update_padded(&aad);
        g.update_padded(&ct);
        g.update(&[len_block(aad.len(), ct.len())]);
        check_eq(
            &format!("TC{} GHASH (padded)", c.tc),
            &g.finalize(),
            &hex16(c.ghash),
        )?;
        // And the oracle agrees (checks the oracle, too).
        let mut all = blocks.clone();
        all.extend_from_slice(&len_block(aad.len(), ct.len()));
        check_eq(
            &format!("TC{} bitwise", c.tc),
            &ghash_bitwise(&h, &all),
            &hex16(c.ghash),
        )?;
    }
    Ok(())
}

/// RFC 8452 (AES-GCM-SIV), Appendix A: POLYVAL(H, X_1, X_2) with
/// H = 25629347589242761d31f826ba4b757b, X_1 = 4f4f95668c83dfb6401762bb2d01a262,
/// X_2 = d1a24ddd2721d006bbe45f20d3c9f362 is f7a3b47b846119fae5b7866cf5e5b77e,
/// and the same value through GHASH: key mulX_GHASH(ByteReverse(H)) =
/// dcbaa5dd137c188ebb21492c23c9b112, blocks ByteReverse(X_1),
/// ByteReverse(X_2), result 7eb7e5f56c86b7e5fa1961847bb4a3f7 =
/// ByteReverse(POLYVAL result).
fn rfc8452_example(b: Backend) -> TestResult {
    let key = hex16("dcbaa5dd137c188ebb21492c23c9b112");
    let x1 = hex16("62a2012dbb621740b6df838c66954f4f");
    let x2 = hex16("62f3c9d3205fe4bb06d02127dd4da2d1");
    let want = hex16("7eb7e5f56c86b7e5fa1961847bb4a3f7");
    let mut g = ghash(b, &key);
    g.update(&[x1, x2]);
    let got = g.finalize();
    check_eq("RFC 8452 App. A GHASH", &got, &want)?;
    // The appendix's relations themselves: its blocks and key are the byte
    // reversals of POLYVAL's, and the result reverses to POLYVAL's value.
    let rev = |mut a: [u8; 16]| {
        a.reverse();
        a
    };
    check_eq(
        "ByteReverse(X_1)",
        &rev(x1),
        &hex16("4f4f95668c83dfb6401762bb2d01a262"),
    )?;
    check_eq(
        "ByteReverse(X_2)",
        &rev(x2),
        &hex16("d1a24ddd2721d006bbe45f20d3c9f362"),
    )?;
    check_eq(
        "POLYVAL result",
        &rev(got),
        &hex16("f7a3b47b846119fae5b7866cf5e5b77e"),
    )?;
    // mulX_GHASH(ByteReverse(H)) is H * x in GHASH's field: x is the
    // block 40 00 .. 00 (bit 1).
    let h_rev = rev(hex16("25629347589242761d31f826ba4b757b"));
    let x = 1u128 << 126;
    check_eq(
        "mulX_GHASH(ByteReverse(H))",
        &gf_mul(u128::from_be_bytes(h_rev), x).to_be_bytes(),
        &key,
    )
}

// ---------------------------------------------------------------------------
// The kernels against the bit-by-bit multiply.

/// Values that stress the multipliers: empty, single bits at the word and
/// nibble edges the kernels split on, dense words (the portable backend's
/// carry headroom is tightest when every bit is set).
fn edge_values() -> Vec<u128> {
    let mut v = vec![
        0,
        !0,
        1,
        1 << 127,
        1 << 63,
        1 << 64,
        u128::from(u64::MAX),
        !u128::from(u64::MAX),
    ];
    for nib in [0xf, 0x5, 0xa, 0x9] {
        let mut x = 0u128;
        for i in 0..32 {
            x |= nib << (4 * i);
        }
        v.push(x);
    }
    // Top nibbles of each 64-bit word set (the portable backend's split).
    v.push(0xf000_0000_0000_0000_f000_0000_0000_0000);
    v.push(0xf000_0000_0000_0000_0fff_ffff_ffff_ffff);
    v
}

/// GHASH(H, X) of one block is X * H: every single-bit pair, the edge
/// values, and random pairs, through the kernel's one-block path and its
/// long path (the block last of 16 or 33, after zero blocks).
fn vs_bitwise_multiply(b: Backend) -> TestResult {
    let one = |h: u128, x: u128| {
        let mut g = ghash(b, &h.to_be_bytes());
        g.update(&[x.to_be_bytes()]);
        u128::from_be_bytes(g.finalize())
    };
    let check = |h: u128, x: u128, got: u128| -> TestResult {
        let want = gf_mul(x, h);
        if got == want {
            Ok(())
        } else {
            Err(format!("H = {h:032x}, X = {x:032x}: got {got:032x}, want {want:032x}").into())
        }
    };
    for i in 0..128 {
        let g = GHash::with_backend(b, &(1u128 << i).to_be_bytes()).unwrap();
        for j in 0..128 {
            let mut g = g.clone();
            g.update(&[(1u128 << j).to_be_bytes()]);
            check(1 << i, 1 << j, u128::from_be_bytes(g.finalize()))?;
        }
    }
    let edges = edge_values();
    for &h in &edges {
        for &x in &edges {
            check(h, x, one(h, x))?;
        }
    }
    let seed = 0x6a09_e667;
    let mut r = rng(seed);
    for _ in 0..2000 {
        let (h, x): (u128, u128) = (r.random(), r.random());
        check(h, x, one(h, x))
            .map_err(|e| format!("seed {seed}: {}", e.message().unwrap_or("")))?;
        // Zero blocks before X leave the state zero: the block is then
        // multiplied as the last of a full group.
        for lead in [15usize, 32] {
            let mut blocks = vec![[0u8; 16]; lead];
            blocks.push(x.to_be_bytes());
            let mut g = ghash(b, &h.to_be_bytes());
            g.update(&blocks);
            check(h, x, u128::from_be_bytes(g.finalize())).map_err(|e| {
                format!(
                    "seed {seed}, after {lead} zero blocks: {}",
                    e.message().unwrap_or("")
                )
            })?;
        }
    }
    Ok(())
}

/// Whole messages: every length of the shared table (all group/tail
/// shapes of the 4-, 8- and 16-block kernels, and partial last blocks),
/// random keys and data, against the bit-by-bit GHASH.
fn vs_bitwise_ghash(b: Backend) -> TestResult {
    let seed = 0xbb67_ae85;
    let mut r = rng(seed);
    for len in lens() {
        for _ in 0..4 {
            let h: [u8; 16] = r.random();
            let mut data = vec![0u8; len];
            r.fill(&mut data[..]);
            let mut g = ghash(b, &h);
            g.update_padded(&data);
            check_eq(
                &format!("seed {seed}, len {len}"),
                &g.finalize(),
                &ghash_bitwise(&h, &data),
            )?;
        }
    }
    // Edge keys with dense data.
    for h in edge_values() {
        let data = vec![0xffu8; 33 * 16];
        let mut g = ghash(b, &h.to_be_bytes());
        g.update_padded(&data);
        check_eq(
            &format!("H = {h:032x}"),
            &g.finalize(),
            &ghash_bitwise(&h.to_be_bytes(), &data),
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Against the portable oracle.

fn oracle(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut g = ghash(Backend::Portable, h);
    g.update_padded(data);
    g.finalize()
}

/// Every length 0..=4096 and the table's longer ones (zero-padded),
/// random key per length.
fn lengths_vs_portable(b: Backend) -> TestResult {
    let seed = 0x3c6e_f372;
    let mut r = rng(seed);
    let lens: Vec<usize> = (0..=4096)
        .chain(lens().into_iter().filter(|&n| n > 4096))
        .collect();
    let data = painted(lens[lens.len() - 1]);
    for len in lens {
        let h: [u8; 16] = r.random();
        let mut g = ghash(b, &h);
        g.update_padded(&data[..len]);
        check_eq(
            &format!("seed {seed}, len {len}"),
            &g.finalize(),
            &oracle(&h, &data[..len]),
        )?;
    }
    Ok(())
}

/// Random block-aligned split points give the one-shot value; random
/// keys, lengths up to 4096 bytes.
fn random_splits(b: Backend) -> TestResult {
    let seed = 0xa54f_f53a;
    let mut r = rng(seed);
    for round in 0..300 {
        let h: [u8; 16] = r.random();
        let nblocks = r.random_range(0..=256usize);
        let mut blocks = vec![[0u8; 16]; nblocks];
        for blk in blocks.iter_mut() {
            r.fill(&mut blk[..]);
        }
        let want = oracle(&h, blocks.as_flattened());
        let mut g = ghash(b, &h);
        let mut rest = &blocks[..];
        while !rest.is_empty() {
            let take = r.random_range(0..=rest.len().min(40));
            g.update(&rest[..take]);
            rest = &rest[take..];
        }
        check_eq(
            &format!("seed {seed}, round {round}, {nblocks} blocks"),
            &g.finalize(),
            &want,
        )?;
        // update_padded pads each call: splitting at multiples of 16 is
        // the same as one call, and a last partial chunk is padded once.
        let tail = r.random_range(0..16usize);
        let mut bytes = blocks.as_flattened().to_vec();
        bytes.truncate(bytes.len().saturating_sub(tail));
        let mut g = ghash(b, &h);
        let mut rest = &bytes[..];
        while rest.len() > 16 {
            let take = 16 * r.random_range(0..=rest.len() / 16);
            g.update_padded(&rest[..take]);
            rest = &rest[take..];
        }
        g.update_padded(rest);
        check_eq(
            &format!("seed {seed}, round {round}, padded"),
            &g.finalize(),
            &oracle(&h, &bytes),
        )?;
    }
    Ok(())
}

fn clone_reset(b: Backend) -> TestResult {
    let h = hex16("b83b533708bf535d0aa6e52980d53b78");
    let data = painted(1000);
    let mut g = ghash(b, &h);
    g.update_padded(&data[..320]);
    let mut c = g.clone();
    g.update_padded(&data[320..]);
    c.update_padded(&data[320..]);
    let want = oracle(&h, &data);
    check_eq("original", &g.clone().finalize(), &want)?;
    check_eq("clone", &c.finalize(), &want)?;
    check_eq("finalize_reset", &g.finalize_reset(), &want)?;
    g.update_padded(&data);
    check_eq("after finalize_reset", &g.clone().finalize(), &want)?;
    g.reset();
    check_eq("reset, nothing absorbed", &g.clone().finalize(), &[0; 16])?;
    g.update_padded(&data);
    check_eq("after reset", &g.finalize(), &want)?;
    if ghash(b, &h).backend() != b {
        return Err("backend() does not report the backend asked for".into());
    }
    Ok(())
}

/// Inputs ending right before an unmapped page: a kernel reading past the
/// end of the data faults.
fn guard_page(b: Backend) -> TestResult {
    let h = hex16("66e94bd4ef8a2c3b884cfa59ca342b2e");
    before_guard_page(&lens(), |len, data| {
        let mut g = ghash(b, &h);
        g.update_padded(data);
        check_eq("GHASH", &g.finalize(), &oracle(&h, &painted(len)))
    })
}

// ---------------------------------------------------------------------------
// Peers and traits.

/// RustCrypto `ghash` 0.6 on random keys and lengths up to 64 KiB.
fn vs_rustcrypto(b: Backend) -> TestResult {
    use ghash::universal_hash::UniversalHash;
    let seed = 0x510e_527f;
    let mut r = rng(seed);
    for _ in 0..200 {
        let h: [u8; 16] = r.random();
        let len = if r.random_bool(0.2) {
            r.random_range(0..65536)
        } else {
            r.random_range(0..600)
        };
        let mut data = vec![0u8; len];
        r.fill(&mut data[..]);
        let mut theirs = ghash::GHash::new(&h.into());
        theirs.update_padded(&data);
        let theirs: [u8; 16] = theirs.finalize().into();
        let mut g = ghash(b, &h);
        g.update_padded(&data);
        check_eq(&format!("seed {seed}, len {len}"), &g.finalize(), &theirs)?;
    }
    Ok(())
}

#[cfg(feature = "rustcrypto")]
/// `<GHash as UniversalHash>` agrees with the inherent API, on every path
/// (`update`, `update_padded`, the rank-2 closure, `verify`, reset).
fn universal_hash_traits(b: Backend) -> TestResult {
    // ghash re-exports the one universal-hash 0.6 of the workspace.
    use ghash::universal_hash::{array::Array, KeyInit, Reset, UniversalHash};
    let h = hex16("acbef20579b4b8ebce889bac8732dad7");
    let data = painted(777);
    let want = oracle(&h, &data);

    // KeyInit picks the fastest backend; the value must not depend on it.
    let mut g = <GHash as KeyInit>::new(&h.into());
    UniversalHash::update_padded(&mut g, &data);
    check_eq(
        "KeyInit + update_padded",
        &UniversalHash::finalize(g).0,
        &want,
    )?;

    let mut g = ghash(b, &h);
    let (blocks, tail) = Array::slice_as_chunks(&data[..]);
    UniversalHash::update(&mut g, blocks);
    UniversalHash::update_padded(&mut g, tail);
    let mut g2 = g.clone();
    check_eq("update", &UniversalHash::finalize_reset(&mut g).0, &want)?;
    if UniversalHash::verify(g2.clone(), &want.into()).is_err() {
        return Err("verify rejected the right tag".into());
    }
    let mut wrong = want;
    wrong[15] ^= 1;
    if UniversalHash::verify(g2.clone(), &wrong.into()).is_ok() {
        return Err("verify accepted a wrong tag".into());
    }
    Reset::reset(&mut g2);
    check_eq("Reset", &UniversalHash::finalize(g2).0, &[0; 16])?;
    // `finalize_reset` left g empty.
    UniversalHash::update_padded(&mut g, &data);
    check_eq("after finalize_reset", &UniversalHash::finalize(g).0, &want)?;
    Ok(())
}
