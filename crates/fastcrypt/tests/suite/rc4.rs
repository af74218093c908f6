//! RC4: RFC 6229 vectors, pieces against whole, boundary lengths at every
//! phase of `i`, a textbook reference, OpenSSL (legacy provider) and
//! RustCrypto `rc4` differentials, RC4-drop, multi-stream, key lengths,
//! guard pages and the `cipher` traits. Every test runs on every backend.

use super::common::{
    assignments, backend_api, before_guard_page, check_eq, lengths, paint, painted, per_backend,
    read_testdata, rng, TestResult,
};
use fastcrypt::rc4::{self, Backend, Rc4};
use libtest_mimic::Trial;
use rand::Rng;

fn cipher(b: Backend, key: &[u8]) -> Rc4 {
    Rc4::with_backend(b, key).expect("registered only when available, keys valid")
}

/// RC4 exactly as written in the literature, one byte at a time: the
/// oracle that shares no code with the library.
struct Reference {
    s: [u8; 256],
    i: u8,
    j: u8,
}

impl Reference {
    fn new(key: &[u8]) -> Reference {
        let mut s = [0u8; 256];
        for (n, v) in s.iter_mut().enumerate() {
            *v = n as u8;
        }
        let mut j = 0u8;
        for n in 0..256 {
            j = j.wrapping_add(s[n]).wrapping_add(key[n % key.len()]);
            s.swap(n, j as usize);
        }
        Reference { s, i: 0, j: 0 }
    }

    fn apply(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.i = self.i.wrapping_add(1);
            self.j = self.j.wrapping_add(self.s[self.i as usize]);
            self.s.swap(self.i as usize, self.j as usize);
            let t = self.s[self.i as usize].wrapping_add(self.s[self.j as usize]);
            *b ^= self.s[t as usize];
        }
    }

    fn keystream(key: &[u8], skip: usize, len: usize) -> Vec<u8> {
        let mut r = Reference::new(key);
        let mut v = vec![0u8; skip + len];
        r.apply(&mut v);
        v.split_off(skip)
    }
}

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "rc4_rfc6229", rfc6229);
    per_backend(trials, "rc4_boundary_lengths", boundary_lengths);
    per_backend(trials, "rc4_every_entry_and_exit", every_entry_and_exit);
    per_backend(trials, "rc4_pieces_vs_whole", pieces_vs_whole);
    per_backend(trials, "rc4_vs_portable", vs_portable);
    per_backend(trials, "rc4_vs_reference_4mib", vs_reference_4mib);
    per_backend(trials, "rc4_vs_openssl", vs_openssl);
    per_backend(trials, "rc4_vs_rustcrypto", vs_rustcrypto);
    per_backend(trials, "rc4_drop_vs_skip", drop_vs_skip);
    per_backend(trials, "rc4_multi_stream", multi_stream);
    per_backend(trials, "rc4_clone", clone);
    per_backend(trials, "rc4_b2b", b2b);
    per_backend(trials, "rc4_guard_page", guard_page);
    per_backend(trials, "rc4_key_lengths", key_lengths);
    #[cfg(feature = "rustcrypto")]
    per_backend(trials, "rc4_cipher_traits", cipher_traits);
    trials.push(Trial::test("rc4_backend_api", || {
        backend_api(
            |b| Rc4::with_backend(b, b"api").map(|c| c.backend()),
            || Rc4::new(b"api").expect("valid key").backend(),
        )
    }));
    trials.push(Trial::test(
        "rc4_error_order_and_debug",
        error_order_and_debug,
    ));
    trials.push(Trial::test("rc4_new_drop", new_drop));
}

/// One RFC 6229 record: key, keystream offset, 16 keystream bytes.
struct Vector {
    key: Vec<u8>,
    offset: usize,
    keystream: Vec<u8>,
}

/// Parses pyca's NIST-loader layout of RFC 6229 (see testdata/rc4/SOURCES.md).
fn parse_rfc6229(text: &str) -> Result<Vec<Vector>, String> {
    let mut out = Vec::new();
    let (mut key, mut offset, mut plain) = (None, None, None);
    for line in assignments(text) {
        match line.key {
            "KEY" => key = Some(line.hex()?),
            "OFFSET" => offset = Some(line.value.parse::<usize>().map_err(|e| line.bad(e))?),
            "PLAINTEXT" => plain = Some(line.hex()?),
            "CIPHERTEXT" => {
                let c = line.hex()?;
                let p: Vec<u8> = plain
                    .take()
                    .ok_or_else(|| line.bad("CIPHERTEXT without PLAINTEXT"))?;
                if p.len() != c.len() {
                    return Err(line.bad("PLAINTEXT and CIPHERTEXT lengths differ"));
                }
                out.push(Vector {
                    key: key.clone().ok_or_else(|| line.bad("no KEY"))?,
                    offset: offset.take().ok_or_else(|| line.bad("no OFFSET"))?,
                    keystream: p.iter().zip(&c).map(|(x, y)| x ^ y).collect(),
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

const RFC6229_OFFSETS: [usize; 18] = [
    0, 16, 240, 256, 496, 512, 752, 768, 1008, 1024, 1520, 1536, 2032, 2048, 3056, 3072, 4080, 4096,
];

fn rfc6229(b: Backend) -> TestResult {
    for bits in [40, 56, 64, 80, 128, 192, 256] {
        let file = format!("rc4/rfc-6229-{bits}.txt");
        let vectors = parse_rfc6229(&read_testdata(&file)?).map_err(|e| format!("{file}: {e}"))?;
        // Two keys of this size, each at every listed offset.
        let mut keys: Vec<&[u8]> = vectors.iter().map(|v| &v.key[..]).collect();
        keys.dedup();
        if vectors.len() != 36 || keys.len() != 2 || keys.iter().any(|k| k.len() * 8 != bits) {
            return Err(format!("{file}: expected 2 keys of {bits} bits x 18 offsets").into());
        }
        for key in keys {
            let offsets: Vec<usize> = vectors
                .iter()
                .filter(|v| v.key == key)
                .map(|v| v.offset)
                .collect();
            if offsets != RFC6229_OFFSETS {
                return Err(format!("{file}: unexpected offsets {offsets:?}").into());
            }
        }
        // The whole keystream at once, then each record by skipping to it.
        let mut whole = [cipher(b, &vectors[0].key), cipher(b, &vectors[18].key)].map(|mut c| {
            let mut ks = vec![0u8; 4112];
            c.write_keystream(&mut ks);
            ks
        });
        for v in &vectors {
            let ks = if v.key == vectors[0].key {
                &mut whole[0]
            } else {
                &mut whole[1]
            };
            let what = format!("{file} key {} offset {}", hex::encode(&v.key), v.offset);
            check_eq(&what, &ks[v.offset..v.offset + 16], &v.keystream)?;
            let mut c = cipher(b, &v.key);
            c.skip(v.offset as u64);
            let mut got = [0u8; 16];
            c.apply_keystream(&mut got);
            check_eq(&format!("{what} (skip)"), &got, &v.keystream)?;
        }
    }
    Ok(())
}

/// The shared length table at the kernels' 16-byte block, with the state
/// table's 256 bytes as the stride: `i` wraps there.
fn lens() -> Vec<usize> {
    lengths(16, 256)
}

fn boundary_lengths(b: Backend) -> TestResult {
    let key = b"boundary key";
    // Every phase of i mod 16 before the call, every interesting length.
    let lens = lens();
    for phase in 0..32usize {
        for &len in &lens {
            let mut c = cipher(b, key);
            c.skip(phase as u64);
            let mut got = painted(len);
            let mut want = got.clone();
            c.apply_keystream(&mut got);
            let mut r = Reference::new(key);
            r.apply(&mut vec![0u8; phase]);
            r.apply(&mut want);
            check_eq(&format!("skip {phase} len {len}"), &got, &want)?;
            // The state after the call must be right too.
            let mut next = [0u8; 40];
            let mut next_want = [0u8; 40];
            c.apply_keystream(&mut next);
            r.apply(&mut next_want);
            check_eq(
                &format!("skip {phase} len {len}, next 40"),
                &next,
                &next_want,
            )?;
        }
    }
    Ok(())
}

/// Every phase of `i` over the whole table, with lengths that end the
/// blocked part at every 16-byte block: the 32-bit kernel, unrolled over
/// all 256 slots, enters and leaves at each of its 16 blocks (and wraps
/// from slot 255 to slot 0) only when `i` and the length say so, which
/// `boundary_lengths` (phases 0..32) does not reach for every block.
fn every_entry_and_exit(b: Backend) -> TestResult {
    let key = b"entry and exit";
    let lens: Vec<usize> = (0..=17usize)
        .flat_map(|k| [16 * k, 16 * k + 1, 16 * k + 15])
        .collect();
    for phase in 0..256usize {
        let mut base = cipher(b, key);
        base.skip(phase as u64);
        let mut r = Reference::new(key);
        r.apply(&mut vec![0u8; phase]);
        for &len in &lens {
            let mut c = base.clone();
            let mut rr = Reference {
                s: r.s,
                i: r.i,
                j: r.j,
            };
            let mut got = painted(len + 40);
            let mut want = got.clone();
            // The call under test, then 40 bytes more to check the state.
            let (head, next) = got.split_at_mut(len);
            c.apply_keystream(head);
            c.apply_keystream(next);
            rr.apply(&mut want);
            check_eq(&format!("phase {phase} len {len}"), &got, &want)?;
        }
    }
    Ok(())
}

fn random_key(r: &mut impl Rng) -> Vec<u8> {
    let len = r.random_range(1..=256);
    (0..len).map(|_| r.random()).collect()
}

fn pieces_vs_whole(b: Backend) -> TestResult {
    let mut r = rng(0x04c4_9ec3);
    for case in 0..60 {
        let key = random_key(&mut r);
        let len = if case % 10 == 0 {
            r.random_range(0..100_000)
        } else {
            r.random_range(0..3000)
        };
        let data: Vec<u8> = (0..len).map(|_| r.random()).collect();
        let mut whole = data.clone();
        cipher(b, &key).apply_keystream(&mut whole);
        let mut pieces = data.clone();
        let mut c = cipher(b, &key);
        let mut at = 0;
        while at < len {
            let step = match r.random_range(0..4) {
                0 => r.random_range(0..4),
                1 => r.random_range(0..40),
                2 => r.random_range(0..300),
                _ => r.random_range(0..5000),
            };
            let end = (at + step).min(len);
            c.apply_keystream(&mut pieces[at..end]);
            at = end;
        }
        check_eq(&format!("case {case} len {len}"), &pieces, &whole)?;
    }
    Ok(())
}

fn vs_portable(b: Backend) -> TestResult {
    vs_peer(b, 0x9047, 200, |key, data| {
        let mut out = data.to_vec();
        cipher(Backend::Portable, key).apply_keystream(&mut out);
        Ok(out)
    })
}

fn vs_reference_4mib(b: Backend) -> TestResult {
    let mut r = rng(0x040b_e5e5);
    let key = random_key(&mut r);
    let mut c = cipher(b, &key);
    let mut reference = Reference::new(&key);
    let mut left = 4 << 20;
    while left > 0 {
        let n = r.random_range(1..=70_000).min(left);
        let data: Vec<u8> = (0..n).map(|_| r.random()).collect();
        let mut got = data.clone();
        let mut want = data;
        c.apply_keystream(&mut got);
        reference.apply(&mut want);
        check_eq(&format!("{} bytes before the end", left), &got, &want)?;
        left -= n;
    }
    Ok(())
}

/// RC4 through OpenSSL 3, which keeps it in the legacy provider.
fn openssl_rc4(key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let e = |e: openssl::error::ErrorStack| format!("OpenSSL RC4: {e}");
    let mut ctx = CipherCtx::new().map_err(e)?;
    ctx.encrypt_init(Some(Cipher::rc4()), None, None)
        .map_err(e)?;
    ctx.set_key_length(key.len()).map_err(e)?;
    ctx.encrypt_init(None, Some(key), None).map_err(e)?;
    let mut out = vec![0u8; data.len()];
    let n = ctx.cipher_update(data, Some(&mut out)).map_err(e)?;
    out.truncate(n);
    Ok(out)
}

/// `cases` seeded random keys and messages (every 20th up to 1 MiB, the
/// others up to 5000 bytes) against `peer(key, message)`.
fn vs_peer(
    b: Backend,
    seed: u64,
    cases: usize,
    peer: impl Fn(&[u8], &[u8]) -> Result<Vec<u8>, String>,
) -> TestResult {
    let mut r = rng(seed);
    for case in 0..cases {
        let key = random_key(&mut r);
        let len = if case % 20 == 0 {
            r.random_range(0..1 << 20)
        } else {
            r.random_range(0..5000)
        };
        let data: Vec<u8> = (0..len).map(|_| r.random()).collect();
        let want = peer(&key, &data)?;
        let mut got = data;
        cipher(b, &key).apply_keystream(&mut got);
        check_eq(
            &format!("case {case} key len {} len {len}", key.len()),
            &got,
            &want,
        )?;
    }
    Ok(())
}

fn vs_openssl(b: Backend) -> TestResult {
    let _legacy = openssl::provider::Provider::try_load(None, "legacy", true).map_err(|e| {
        format!(
            "cannot load OpenSSL's legacy provider, which OpenSSL 3 needs for RC4 \
             (is the full libssl3 / ossl-modules package installed?): {e}"
        )
    })?;
    vs_peer(b, 0x0551_04c4, 100, openssl_rc4)
}

fn vs_rustcrypto(b: Backend) -> TestResult {
    use ::rc4::{KeyInit, StreamCipher};
    vs_peer(b, 0x005c_04c4, 100, |key, data| {
        let mut out = data.to_vec();
        ::rc4::Rc4::new_from_slice(key)
            .map_err(|e| format!("rc4 crate refused the key: {e}"))?
            .apply_keystream(&mut out);
        Ok(out)
    })
}

fn drop_vs_skip(b: Backend) -> TestResult {
    let mut r = rng(0xd409);
    let key = b"Kerberos? MPPE? MSE.";
    let mut ns = vec![
        0usize, 1, 15, 16, 17, 255, 256, 257, 511, 512, 513, 768, 1024, 3072, 100_000,
    ];
    ns.extend((0..5).map(|_| r.random_range(0..20_000)));
    for n in ns {
        let want = Reference::keystream(key, n, 300);
        // skip(n) in one call.
        let mut c = cipher(b, key);
        c.skip(n as u64);
        let mut got = vec![0u8; 300];
        c.apply_keystream(&mut got);
        check_eq(&format!("skip({n})"), &got, &want)?;
        // skip in odd pieces.
        let mut c = cipher(b, key);
        let mut left = n;
        while left > 0 {
            let k = r.random_range(0..=left.min(700));
            c.skip(k as u64);
            left -= k;
        }
        let mut got = vec![0u8; 300];
        c.apply_keystream(&mut got);
        check_eq(&format!("skip({n}) in pieces"), &got, &want)?;
    }
    Ok(())
}

fn new_drop() -> TestResult {
    for n in [0u64, 1, 768, 1024, 3072] {
        let key = b"BitTorrent MSE";
        let mut c = Rc4::new_drop(key, n).map_err(|e| e.to_string())?;
        let mut got = vec![0u8; 100];
        c.apply_keystream(&mut got);
        check_eq(
            &format!("drop{n}"),
            &got,
            &Reference::keystream(key, n as usize, 100),
        )?;
    }
    if Rc4::new_drop(&[], 1024).is_ok() || Rc4::new_drop(&[0; 257], 1024).is_ok() {
        return Err("new_drop accepted a bad key length".into());
    }
    Ok(())
}

fn multi_stream(b: Backend) -> TestResult {
    let mut r = rng(0x0315);
    for streams in 0..=19usize {
        for round in 0..3 {
            let keys: Vec<Vec<u8>> = (0..streams).map(|_| random_key(&mut r)).collect();
            let lens: Vec<usize> = (0..streams)
                .map(|k| match (round + k) % 4 {
                    0 => r.random_range(0..20),
                    1 => r.random_range(0..300),
                    2 => r.random_range(0..9000),
                    _ => 8192,
                })
                .collect();
            let data: Vec<Vec<u8>> = lens
                .iter()
                .map(|&l| (0..l).map(|_| r.random()).collect())
                .collect();
            // Start each stream at a different phase of i.
            let skips: Vec<u64> = (0..streams).map(|_| r.random_range(0..40)).collect();
            let mut cs: Vec<Rc4> = keys
                .iter()
                .zip(&skips)
                .map(|(k, &s)| {
                    let mut c = cipher(b, k);
                    c.skip(s);
                    c
                })
                .collect();
            let mut got = data.clone();
            {
                let mut refs: Vec<&mut [u8]> = got.iter_mut().map(|v| &mut v[..]).collect();
                rc4::apply_keystreams(&mut cs, &mut refs).map_err(|e| e.to_string())?;
            }
            for k in 0..streams {
                let mut want = data[k].clone();
                let mut single = cipher(b, &keys[k]);
                single.skip(skips[k]);
                single.apply_keystream(&mut want);
                let what = format!(
                    "{streams} streams, round {round}, stream {k}, len {}",
                    lens[k]
                );
                check_eq(&what, &got[k], &want)?;
                // The streams' states advanced exactly as the single one's.
                let mut a = [0u8; 24];
                let mut z = [0u8; 24];
                cs[k].apply_keystream(&mut a);
                single.apply_keystream(&mut z);
                check_eq(&format!("{what}, afterwards"), &a, &z)?;
            }
        }
    }
    // Different counts: an error, and nothing touched.
    let mut cs = vec![cipher(b, b"a"), cipher(b, b"b")];
    let mut x = [0u8; 16];
    match rc4::apply_keystreams(&mut cs, &mut [&mut x[..]]) {
        Err(e) if e.streams == 2 && e.bufs == 1 => {}
        other => return Err(format!("2 streams, 1 buffer: {other:?}").into()),
    }
    if x != [0u8; 16] {
        return Err("a refused call changed the buffer".into());
    }
    let mut first = [0u8; 8];
    cs[0].apply_keystream(&mut first);
    check_eq(
        "a refused call left the stream alone",
        &first,
        &Reference::keystream(b"a", 0, 8),
    )
}

fn clone(b: Backend) -> TestResult {
    let key = b"clone me";
    let mut c = cipher(b, key);
    c.skip(1234);
    let mut d = c.clone();
    let (mut x, mut y) = (vec![0u8; 3000], vec![0u8; 3000]);
    c.apply_keystream(&mut x);
    d.apply_keystream(&mut y);
    check_eq("clone continues the keystream", &y, &x)?;
    check_eq(
        "clone keystream",
        &x,
        &Reference::keystream(key, 1234, 3000),
    )?;
    if d.backend() != b {
        return Err("clone changed backend".into());
    }
    Ok(())
}

fn b2b(b: Backend) -> TestResult {
    let key = b"buffer to buffer";
    let input: Vec<u8> = (0..1000).map(|i| (i * 7) as u8).collect();
    let mut out = vec![0xeeu8; 1000];
    cipher(b, key)
        .try_apply_keystream_b2b(&input, &mut out)
        .map_err(|e| e.to_string())?;
    let mut want = input.clone();
    cipher(b, key).apply_keystream(&mut want);
    check_eq("b2b", &out, &want)?;
    let mut out2 = vec![0xeeu8; 1000];
    cipher(b, key).apply_keystream_b2b(&input, &mut out2);
    check_eq("b2b (panicking form)", &out2, &want)?;
    let mut short = vec![0u8; 999];
    match cipher(b, key).try_apply_keystream_b2b(&input, &mut short) {
        Err(e) if e.input == 1000 && e.output == 999 => {}
        other => return Err(format!("1000 in, 999 out: {other:?}").into()),
    }
    if short.iter().any(|&x| x != 0) {
        return Err("a refused b2b wrote its output".into());
    }
    // The panicking form panics, as cipher's StreamCipher method does.
    let panicked = std::panic::catch_unwind(move || {
        cipher(b, key).apply_keystream_b2b(&input, &mut short);
    })
    .is_err();
    if !panicked {
        return Err("apply_keystream_b2b with 1000 in, 999 out did not panic".into());
    }
    Ok(())
}

fn guard_page(b: Backend) -> TestResult {
    let key = b"guard";
    before_guard_page(&lens(), |len, tail| {
        for phase in [0u64, 5, 15] {
            paint(tail);
            let mut want = painted(len);
            let mut c = cipher(b, key);
            c.skip(phase);
            c.apply_keystream(tail);
            let mut r = Reference::new(key);
            r.apply(&mut vec![0u8; phase as usize]);
            r.apply(&mut want);
            check_eq(&format!("phase {phase}"), tail, &want)?;
        }
        Ok(())
    })
}

fn key_lengths(b: Backend) -> TestResult {
    for len in [0usize, 257, 1000] {
        match Rc4::with_backend(b, &vec![7u8; len]) {
            Err(rc4::Error::InvalidKeyLength(e)) if e.len == len => {
                if !e.to_string().contains(&len.to_string()) {
                    return Err(format!("message does not name the length: {e}").into());
                }
            }
            other => return Err(format!("key of {len} bytes: {other:?}").into()),
        }
        match Rc4::new(&vec![7u8; len]) {
            Err(e) if e.len == len => {}
            other => return Err(format!("Rc4::new, key of {len} bytes: {other:?}").into()),
        }
    }
    for len in [1usize, 2, 5, 16, 255, 256] {
        let key: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
        let mut got = vec![0u8; 600];
        cipher(b, &key).apply_keystream(&mut got);
        check_eq(
            &format!("key of {len} bytes"),
            &got,
            &Reference::keystream(&key, 0, 600),
        )?;
    }
    Ok(())
}

#[cfg(feature = "rustcrypto")]
fn cipher_traits(b: Backend) -> TestResult {
    use cipher::consts::{U1, U16, U256, U5};
    use cipher::{KeyInit, StreamCipher};
    use fastcrypt::rc4::Rc4;

    fn via_traits<C: StreamCipher>(mut c: C, len: usize) -> Vec<u8> {
        // In place, buffer to buffer and write_keystream, in pieces.
        let mut v = vec![0u8; len];
        let third = len / 3;
        c.apply_keystream(&mut v[..third]);
        let input = vec![0u8; third];
        let mut out = vec![1u8; third];
        c.apply_keystream_b2b(&input, &mut out);
        v[third..2 * third].copy_from_slice(&out);
        c.write_keystream(&mut v[2 * third..]);
        v
    }
    fn fixed<N: cipher::array::ArraySize>(key: &[u8], len: usize) -> Result<Vec<u8>, String> {
        let c = Rc4::<N>::new_from_slice(key).map_err(|e| format!("{e}"))?;
        Ok(via_traits(c, len))
    }

    type Fixed = fn(&[u8], usize) -> Result<Vec<u8>, String>;
    let len = 1000;
    let cases: [(&[u8], Fixed); 4] = [
        (&[9], fixed::<U1>),
        (&[1, 2, 3, 4, 5], fixed::<U5>),
        (&[0x42; 16], fixed::<U16>),
        (&[0xa5; 256], fixed::<U256>),
    ];
    for (key, f) in cases {
        let want = Reference::keystream(key, 0, len);
        check_eq(
            &format!("Rc4<N>, {}-byte key", key.len()),
            &f(key, len)?,
            &want,
        )?;
        check_eq(
            &format!("Rc4 as StreamCipher, {}-byte key", key.len()),
            &via_traits(cipher(b, key), len),
            &want,
        )?;
    }
    if Rc4::<U16>::new_from_slice(&[0; 15]).is_ok() {
        return Err("Rc4<U16> accepted a 15-byte key".into());
    }
    let mut c = Rc4::<U16>::new(&[0x42; 16].into());
    c.try_apply_keystream(&mut [0u8; 10])
        .map_err(|e| format!("RC4 never runs out of keystream: {e}"))?;
    Ok(())
}

/// What the generic backend test cannot see: RC4's key-length error and
/// the state that `Debug` must not show.
fn error_order_and_debug() -> TestResult {
    // An unavailable backend is reported before a bad key.
    for &b in Backend::ALL {
        if !b.is_available()
            && !matches!(Rc4::with_backend(b, &[]), Err(rc4::Error::Unsupported(_)))
        {
            return Err(format!("{b}: Unsupported must come before InvalidKeyLength").into());
        }
    }
    let dbg = format!("{:?}", Rc4::new(b"api").map_err(|e| e.to_string())?);
    if dbg.contains('[') || !dbg.contains("backend") {
        return Err(format!("Debug shows too much or too little: {dbg}").into());
    }
    Ok(())
}
