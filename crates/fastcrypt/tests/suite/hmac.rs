//! HMAC-SHA1 and PBKDF2-HMAC-SHA1: RFC 2202 and RFC 6070 (vendored
//! files), Wycheproof, the IEEE 802.11i WPA2 values, and differentials
//! against RustCrypto (`hmac` + `pbkdf2` over `sha1`) and OpenSSL on random
//! keys, messages, salts, iteration counts and output lengths. Every test
//! runs on every backend: `sha1::Backend` for the one-password forms,
//! `sha1::many::Backend` for the batch (`Sha1Many::pbkdf2_hmac_sha1`).

use super::common::{
    assignments, backend_api, check_eq, per_backend, read_testdata, rng, TestResult,
};
use fastcrypt::sha1::many::{self, Sha1Many};
use fastcrypt::sha1::{Backend, HmacSha1, MacError, Pbkdf2Error};
use libtest_mimic::Trial;
use rand::Rng;

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "hmac_sha1_rfc2202", rfc2202);
    per_backend(trials, "hmac_sha1_wycheproof", hmac_wycheproof);
    per_backend(trials, "hmac_sha1_vs_rustcrypto_openssl", hmac_differential);
    per_backend(trials, "hmac_sha1_reuse", hmac_reuse);
    per_backend(trials, "pbkdf2_sha1_rfc6070", |b| rfc6070(b, false));
    per_backend(trials, "pbkdf2_sha1_rfc6070_16m_iterations", |b| {
        rfc6070(b, true)
    });
    per_backend(trials, "pbkdf2_sha1_wycheproof", pbkdf2_wycheproof);
    per_backend(trials, "pbkdf2_sha1_wpa2", wpa2);
    per_backend(
        trials,
        "pbkdf2_sha1_vs_rustcrypto_openssl",
        pbkdf2_differential,
    );
    per_backend(trials, "pbkdf2_sha1_arguments", pbkdf2_arguments);
    per_backend(trials, "pbkdf2_sha1_many_rfc6070", many_rfc6070);
    per_backend(trials, "pbkdf2_sha1_many_wpa2", many_wpa2);
    per_backend(trials, "pbkdf2_sha1_many_batch_sizes", many_batch_sizes);
    per_backend(
        trials,
        "pbkdf2_sha1_many_vs_one_rustcrypto_openssl",
        many_differential,
    );
    per_backend(trials, "pbkdf2_sha1_many_arguments", many_arguments);
    trials.push(Trial::test(
        "hmac_sha1_rustcrypto_traits",
        rustcrypto_traits,
    ));
    trials.push(Trial::test("hmac_sha1_backend_api", || {
        backend_api(
            |b| HmacSha1::with_backend(b, b"key").map(|h| h.backend()),
            || HmacSha1::new(b"key").backend(),
        )
    }));
}

fn keyed(b: Backend, key: &[u8]) -> HmacSha1 {
    HmacSha1::with_backend(b, key).expect("registered only when available")
}

fn mac(b: Backend, key: &[u8], msg: &[u8]) -> [u8; 20] {
    let mut m = keyed(b, key);
    m.update(msg);
    m.finalize()
}

fn pbkdf2(b: Backend, password: &[u8], salt: &[u8], iterations: u32, len: usize) -> Vec<u8> {
    let mut out = vec![0xA5; len];
    keyed(b, password)
        .pbkdf2(salt, iterations, &mut out)
        .expect("valid arguments");
    out
}

fn openssl_hmac(key: &[u8], msg: &[u8]) -> Result<Vec<u8>, String> {
    let pkey = openssl::pkey::PKey::hmac(key).map_err(|e| e.to_string())?;
    let mut signer = openssl::sign::Signer::new(openssl::hash::MessageDigest::sha1(), &pkey)
        .map_err(|e| e.to_string())?;
    signer.update(msg).map_err(|e| e.to_string())?;
    signer.sign_to_vec().map_err(|e| e.to_string())
}

fn openssl_pbkdf2(password: &[u8], salt: &[u8], iterations: u32, len: usize) -> Vec<u8> {
    let mut out = vec![0; len];
    openssl::pkcs5::pbkdf2_hmac(
        password,
        salt,
        iterations as usize,
        openssl::hash::MessageDigest::sha1(),
        &mut out,
    )
    .expect("OpenSSL PBKDF2");
    out
}

fn rustcrypto_pbkdf2(password: &[u8], salt: &[u8], iterations: u32, len: usize) -> Vec<u8> {
    let mut out = vec![0; len];
    pbkdf2::pbkdf2::<hmac::Hmac<::sha1::Sha1>>(password, salt, iterations, &mut out)
        .expect("RustCrypto PBKDF2");
    out
}

/// RFC 2202's seven cases: one-shot, byte by byte, and `verify`.
fn rfc2202(b: Backend) -> TestResult {
    let text = read_testdata("hmac/rfc-2202-sha1.txt")?;
    let (mut key, mut msg) = (None, None);
    let mut n = 0;
    for a in assignments(&text) {
        match a.key {
            "Key" => key = Some(a.hex()?),
            "Msg" => msg = Some(a.hex()?),
            "MD" => {
                let k = key.take().ok_or_else(|| a.bad("MD without Key"))?;
                let m = msg.take().ok_or_else(|| a.bad("MD without Msg"))?;
                let want = a.hex()?;
                let what = format!("line {}", a.line);
                check_eq(&what, &mac(b, &k, &m), &want)?;
                let mut h = keyed(b, &k);
                for byte in &m {
                    h.update([*byte]);
                }
                check_eq(&format!("{what}, byte by byte"), &h.finalize(), &want)?;
                let mut h = keyed(b, &k);
                h.update(&m);
                h.clone()
                    .verify(&want)
                    .map_err(|e| format!("{what}: {e}"))?;
                let mut bad = want.clone();
                bad[19] ^= 1;
                if h.verify(&bad) != Err(MacError) {
                    return Err(format!("{what}: a wrong MAC verified").into());
                }
                n += 1;
            }
            _ => {}
        }
    }
    if n != 7 {
        return Err(format!("expected the 7 RFC 2202 cases, ran {n}").into());
    }
    Ok(())
}

/// Wycheproof HMAC-SHA1: full (160-bit) and truncated (80-bit) tags,
/// valid and invalid.
fn hmac_wycheproof(b: Backend) -> TestResult {
    use wycheproof::{mac::TestName, mac::TestSet, TestResult as W};
    let set = TestSet::load(TestName::HmacSha1).map_err(|e| format!("{e:?}"))?;
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let id = format!("tcId {} ({})", t.tc_id, t.comment);
            let mut h = keyed(b, &t.key);
            h.update(&t.msg[..]);
            let full = h.clone().finalize();
            let verdict = if group.tag_size == 160 {
                h.verify(&t.tag)
            } else {
                h.verify_truncated(&t.tag)
            };
            match t.result {
                W::Valid | W::Acceptable => {
                    valid += 1;
                    verdict.map_err(|e| format!("{id}: {e}"))?;
                    check_eq(&id, &full[..t.tag.len()], &t.tag)?;
                }
                W::Invalid => {
                    invalid += 1;
                    if verdict.is_ok() {
                        return Err(format!("{id}: invalid tag accepted").into());
                    }
                }
            }
        }
    }
    if valid < 50 || invalid < 50 {
        return Err(format!("too few cases: {valid} valid, {invalid} invalid").into());
    }
    Ok(())
}

/// Random keys (empty to several blocks) and messages, split at random
/// points, against RustCrypto's `Hmac<sha1::Sha1>` and OpenSSL.
fn hmac_differential(b: Backend) -> TestResult {
    use hmac::{KeyInit, Mac};
    let seed = 0x4841_4d43 ^ b as u64;
    let mut r = rng(seed);
    for i in 0..300 {
        let key_len = match i % 4 {
            0 => r.random_range(0..=64),
            1 => r.random_range(60..=70),
            _ => r.random_range(0..=200),
        };
        let key: Vec<u8> = (0..key_len).map(|_| r.random()).collect();
        let msg: Vec<u8> = (0..r.random_range(0..=300)).map(|_| r.random()).collect();
        let cut = r.random_range(0..=msg.len());
        let mut h = keyed(b, &key);
        h.update(&msg[..cut]);
        h.update(&msg[cut..]);
        let got = h.finalize();
        let what = format!(
            "seed {seed:#x} case {i}: {key_len}-byte key, {} bytes",
            msg.len()
        );
        let mut rc = hmac::Hmac::<::sha1::Sha1>::new_from_slice(&key).map_err(|e| e.to_string())?;
        rc.update(&msg);
        check_eq(
            &format!("{what}, vs RustCrypto"),
            &got,
            &rc.finalize().into_bytes(),
        )?;
        // OpenSSL refuses an empty HMAC key.
        if !key.is_empty() {
            check_eq(
                &format!("{what}, vs OpenSSL"),
                &got,
                &openssl_hmac(&key, &msg)?,
            )?;
        }
        check_eq(
            &format!("{what}, one-shot"),
            &fastcrypt::sha1::hmac_sha1(&key, &msg),
            &got,
        )?;
        check_eq(&format!("{what}, mac"), &keyed(b, &key).mac(&msg), &got)?;
    }
    // `mac` at every tail length around the padding's one/two-block
    // boundary (55/56 bytes) and the block size, from one key.
    let key = keyed(b, b"key");
    for len in 0..=200 {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        let mut rc =
            hmac::Hmac::<::sha1::Sha1>::new_from_slice(b"key").map_err(|e| e.to_string())?;
        rc.update(&msg);
        check_eq(
            &format!("mac, {len} bytes"),
            &key.mac(&msg),
            &rc.finalize().into_bytes(),
        )?;
    }
    Ok(())
}

/// One keyed value, many messages: `clone`, `reset`, `finalize_reset`.
fn hmac_reuse(b: Backend) -> TestResult {
    let key = b"a key longer than one SHA-1 block, so that it is hashed first........";
    let base = keyed(b, key);
    for msg in [&b""[..], b"abc", &[7u8; 64], &[9u8; 1000]] {
        let want = mac(b, key, msg);
        let mut m = base.clone();
        m.update(b"junk that reset must drop");
        m.reset();
        m.update(msg);
        check_eq("reset", &m.finalize_reset(), &want)?;
        m.update(msg);
        check_eq("finalize_reset", &m.finalize(), &want)?;
    }
    // Truncated tags: 10 to 20 bytes of the MAC verify, shorter or longer
    // tags never do, and a changed byte fails at every length.
    let want = mac(b, key, b"abc");
    let with = |tag: &[u8]| {
        let mut m = base.clone();
        m.update(b"abc");
        m.verify_truncated(tag)
    };
    for len in 0..=21 {
        let mut tag = want.to_vec();
        tag.resize(len, 0);
        let ok = (10..=20).contains(&len);
        if with(&tag).is_ok() != ok {
            return Err(format!("verify_truncated, {len}-byte tag: expected ok = {ok}").into());
        }
        if ok {
            tag[len - 1] ^= 0x80;
            if with(&tag).is_ok() {
                return Err(
                    format!("verify_truncated, {len}-byte tag: a wrong tag verified").into(),
                );
            }
        }
    }
    let mut m = base.clone();
    m.update(b"abc");
    if m.verify(&want[..19]).is_ok() {
        return Err("verify accepted a 19-byte tag".into());
    }
    Ok(())
}

/// One case of RFC 6070's file.
struct Rfc6070 {
    line: usize,
    password: Vec<u8>,
    salt: Vec<u8>,
    iterations: u32,
    len: usize,
    key: Vec<u8>,
}

/// Every case of RFC 6070's file, in file order.
fn rfc6070_cases() -> Result<Vec<Rfc6070>, libtest_mimic::Failed> {
    let text = read_testdata("pbkdf2/rfc-6070-PBKDF2-SHA1.txt")?;
    // `\0` in the file is a NUL byte.
    let unescape = |s: &str| s.replace("\\0", "\0").into_bytes();
    let (mut password, mut salt, mut iterations, mut len) = (None, None, None, None);
    let mut cases = Vec::new();
    for a in assignments(&text) {
        match a.key {
            "PASSWORD" => password = Some(unescape(a.value)),
            "SALT" => salt = Some(unescape(a.value)),
            "ITERATIONS" => iterations = Some(a.value.parse::<u32>().map_err(|e| a.bad(e))?),
            "LENGTH" => len = Some(a.value.parse::<usize>().map_err(|e| a.bad(e))?),
            "DERIVED_KEY" => {
                let missing = || a.bad("incomplete case");
                cases.push(Rfc6070 {
                    line: a.line,
                    password: password.take().ok_or_else(missing)?,
                    salt: salt.take().ok_or_else(missing)?,
                    iterations: iterations.take().ok_or_else(missing)?,
                    len: len.take().ok_or_else(missing)?,
                    key: a.hex()?,
                });
            }
            _ => {}
        }
    }
    Ok(cases)
}

/// The cases of RFC 6070's file: those below a million iterations, or
/// (`large`) only the 16,777,216-iteration one.
fn rfc6070(b: Backend, large: bool) -> TestResult {
    let mut n = 0;
    for c in rfc6070_cases()? {
        if (c.iterations > 1_000_000) != large {
            continue;
        }
        check_eq(
            &format!("line {}", c.line),
            &pbkdf2(b, &c.password, &c.salt, c.iterations, c.len),
            &c.key,
        )?;
        n += 1;
    }
    let want = if large { 1 } else { 5 };
    if n != want {
        return Err(format!("expected {want} RFC 6070 cases, ran {n}").into());
    }
    Ok(())
}

/// Wycheproof PBKDF2-HMAC-SHA1, outputs of 16 to 65 bytes. Its one case
/// with 16,777,216 iterations is RFC 6070's, run by its own test.
fn pbkdf2_wycheproof(b: Backend) -> TestResult {
    use wycheproof::{pbkdf2::TestName, pbkdf2::TestSet, TestResult as W};
    let set = TestSet::load(TestName::Pbkdf2HmacSha1).map_err(|e| format!("{e:?}"))?;
    let mut n = 0;
    for group in &set.test_groups {
        for t in &group.tests {
            if t.iteration_count > 1_000_000 {
                continue;
            }
            let id = format!("tcId {} ({})", t.tc_id, t.comment);
            if t.result != W::Valid {
                return Err(format!("{id}: unexpected non-valid case").into());
            }
            let it = u32::try_from(t.iteration_count).map_err(|e| format!("{id}: {e}"))?;
            check_eq(&id, &pbkdf2(b, &t.password, &t.salt, it, t.dk_len), &t.dk)?;
            n += 1;
        }
    }
    if n < 60 {
        return Err(format!("too few Wycheproof cases ran: {n}").into());
    }
    Ok(())
}

/// WPA2-PSK: the PMK is PBKDF2-HMAC-SHA1(passphrase, SSID, 4096, 32).
/// IEEE 802.11i-2004 Annex H.4.1 (802.11-2020 Annex J.4.2). OpenSSL is
/// checked against the same constants, so a mistyped constant fails
/// here rather than passing both.
fn wpa2(b: Backend) -> TestResult {
    let cases: [(&[u8], &[u8], &str); 2] = [
        (
            b"password",
            b"IEEE",
            "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e",
        ),
        (
            b"ThisIsAPassword",
            b"ThisIsASSID",
            "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af",
        ),
    ];
    for (pass, ssid, pmk) in cases {
        let want = hex::decode(pmk).map_err(|e| e.to_string())?;
        let what = String::from_utf8_lossy(ssid).into_owned();
        check_eq(&what, &pbkdf2(b, pass, ssid, 4096, 32), &want)?;
        check_eq(
            &format!("{what}, OpenSSL"),
            &openssl_pbkdf2(pass, ssid, 4096, 32),
            &want,
        )?;
    }
    Ok(())
}

/// Random passwords (empty to longer than a block), salts, iteration
/// counts and output lengths (one to several blocks, partial last
/// blocks, odd numbers of blocks) against RustCrypto and OpenSSL.
fn pbkdf2_differential(b: Backend) -> TestResult {
    let seed = 0x5042_4b44 ^ b as u64;
    let mut r = rng(seed);
    for i in 0..120 {
        let password: Vec<u8> = (0..r.random_range(0..=100)).map(|_| r.random()).collect();
        let salt: Vec<u8> = (0..r.random_range(0..=80)).map(|_| r.random()).collect();
        let iterations = if i % 10 == 0 {
            r.random_range(1000..=3000)
        } else {
            r.random_range(1..=40)
        };
        let len = match i % 3 {
            0 => r.random_range(1..=20),
            1 => r.random_range(21..=40),
            _ => r.random_range(41..=130),
        };
        let got = pbkdf2(b, &password, &salt, iterations, len);
        let what = format!(
            "seed {seed:#x} case {i}: {}-byte password, {}-byte salt, {iterations} iterations, {len} bytes",
            password.len(),
            salt.len()
        );
        check_eq(
            &format!("{what}, vs RustCrypto"),
            &got,
            &rustcrypto_pbkdf2(&password, &salt, iterations, len),
        )?;
        check_eq(
            &format!("{what}, vs OpenSSL"),
            &got,
            &openssl_pbkdf2(&password, &salt, iterations, len),
        )?;
    }
    // The one-shot helper (the fastest backend).
    let mut out = [0u8; 37];
    fastcrypt::sha1::pbkdf2_hmac_sha1(b"pw", b"salt", 77, &mut out).map_err(|e| e.to_string())?;
    check_eq(
        "pbkdf2_hmac_sha1",
        &out,
        &rustcrypto_pbkdf2(b"pw", b"salt", 77, 37),
    )
}

/// Refused and edge arguments: no iterations, an empty output, input
/// absorbed before (ignored).
fn pbkdf2_arguments(b: Backend) -> TestResult {
    let mut out = [0u8; 20];
    if keyed(b, b"pw").pbkdf2(b"salt", 0, &mut out) != Err(Pbkdf2Error::ZeroIterations) {
        return Err("0 iterations accepted".into());
    }
    if out != [0; 20] {
        return Err("a refused call wrote its output".into());
    }
    keyed(b, b"pw")
        .pbkdf2(b"salt", 1, &mut [])
        .map_err(|e| format!("empty output: {e}"))?;
    let mut dirty = keyed(b, b"pw");
    dirty.update(b"absorbed before");
    dirty
        .pbkdf2(b"salt", 3, &mut out)
        .map_err(|e| e.to_string())?;
    check_eq(
        "input absorbed before is ignored",
        &out,
        &pbkdf2(b, b"pw", b"salt", 3, 20),
    )
}

/// `HmacSha1` through RustCrypto's traits: `Mac` (constructors, update,
/// verify, reset) and as the PRF of the `pbkdf2` crate.
fn rustcrypto_traits() -> TestResult {
    use hmac::{KeyInit, Mac};
    for key_len in [0, 20, 64, 100] {
        let key: Vec<u8> = (0..key_len).map(|i| i as u8).collect();
        let want = fastcrypt::sha1::hmac_sha1(&key, b"message");
        let mut m = <HmacSha1 as KeyInit>::new_from_slice(&key).map_err(|e| e.to_string())?;
        Mac::update(&mut m, b"junk");
        Mac::reset(&mut m);
        Mac::update(&mut m, b"mess");
        let m = m.chain_update(b"age");
        check_eq(
            &format!("Mac, {key_len}-byte key"),
            &Mac::finalize(m.clone()).into_bytes(),
            &want,
        )?;
        m.clone()
            .verify_slice(&want)
            .map_err(|e| format!("verify_slice: {e}"))?;
        if m.verify_truncated_left(&[0; 10]).is_ok() {
            return Err("a wrong truncated tag verified".into());
        }
    }
    let full = <HmacSha1 as KeyInit>::new(&[7u8; 64].into());
    check_eq(
        "KeyInit::new",
        &Mac::finalize(full).into_bytes(),
        &fastcrypt::sha1::hmac_sha1(&[7u8; 64], b""),
    )?;
    let mut got = [0u8; 45];
    pbkdf2::pbkdf2::<HmacSha1>(b"password", b"salt", 9, &mut got).map_err(|e| e.to_string())?;
    check_eq(
        "pbkdf2::pbkdf2::<HmacSha1>",
        &got,
        &rustcrypto_pbkdf2(b"password", b"salt", 9, 45),
    )
}

fn batch(b: many::Backend) -> Sha1Many {
    Sha1Many::with_backend(b).expect("registered only when available")
}

/// The batch's keys, each checked to be what the one-password form on the
/// portable backend (the oracle) derives, and the flat `_into` form to
/// hold the same bytes.
fn batch_checked<P: AsRef<[u8]>>(
    b: many::Backend,
    passwords: &[P],
    salt: &[u8],
    iterations: u32,
    len: usize,
    what: &str,
) -> Result<Vec<Vec<u8>>, libtest_mimic::Failed> {
    let h = batch(b);
    let keys = h
        .pbkdf2_hmac_sha1(passwords, salt, iterations, len)
        .map_err(|e| format!("{what}: {e}"))?;
    if keys.len() != passwords.len() {
        return Err(format!(
            "{what}: {} keys for {} passwords",
            keys.len(),
            passwords.len()
        )
        .into());
    }
    // Garbage first: every byte must be written.
    let mut flat = vec![0xA5; passwords.len() * len];
    h.pbkdf2_hmac_sha1_into(passwords, salt, iterations, len, &mut flat)
        .map_err(|e| format!("{what}, into: {e}"))?;
    check_eq(&format!("{what}, into"), &flat, &keys.concat())?;
    for (i, (p, key)) in passwords.iter().zip(&keys).enumerate() {
        let one = pbkdf2(Backend::Portable, p.as_ref(), salt, iterations, len);
        check_eq(&format!("{what}, password {i}"), key, &one)?;
    }
    Ok(keys)
}

/// RFC 6070's cases below a million iterations, each password in a batch
/// of others (so that it shares lanes with other passwords' chains), at
/// the front and at the end of the batch.
fn many_rfc6070(b: many::Backend) -> TestResult {
    let mut n = 0;
    for c in rfc6070_cases()? {
        if c.iterations > 1_000_000 {
            continue;
        }
        let mut passwords: Vec<Vec<u8>> = (0..17u8).map(|i| vec![i; i.into()]).collect();
        passwords[0].clone_from(&c.password);
        passwords[16].clone_from(&c.password);
        let what = format!("line {}", c.line);
        let keys = batch_checked(b, &passwords, &c.salt, c.iterations, c.len, &what)?;
        check_eq(&format!("{what}, first"), &keys[0], &c.key)?;
        check_eq(&format!("{what}, last"), &keys[16], &c.key)?;
        n += 1;
    }
    if n != 5 {
        return Err(format!("expected 5 RFC 6070 cases, ran {n}").into());
    }
    Ok(())
}

/// WPA2-PSK PMKs (IEEE 802.11i-2004 Annex H.4.1) for several candidate
/// passphrases of one SSID: what an access point or an auditor checks.
fn many_wpa2(b: many::Backend) -> TestResult {
    let cases: [(&[u8], &[u8], &str); 2] = [
        (
            b"password",
            b"IEEE",
            "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e",
        ),
        (
            b"ThisIsAPassword",
            b"ThisIsASSID",
            "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af",
        ),
    ];
    for (pass, ssid, pmk) in cases {
        let want = hex::decode(pmk).map_err(|e| e.to_string())?;
        let what = String::from_utf8_lossy(ssid).into_owned();
        // The right passphrase among wrong ones, twice.
        let mut candidates: Vec<&[u8]> = vec![b"wrong", pass, b"12345678", b"ThisIsAPassword"];
        candidates.extend([&b"password"[..]; 9]);
        candidates.push(pass);
        let keys = batch_checked(b, &candidates, ssid, 4096, 32, &what)?;
        check_eq(&format!("{what}, 2nd"), &keys[1], &want)?;
        check_eq(&format!("{what}, last"), &keys[13], &want)?;
        let alone = batch(b)
            .pbkdf2_hmac_sha1(&[pass], ssid, 4096, 32)
            .map_err(|e| e.to_string())?;
        check_eq(&format!("{what}, alone"), &alone[0], &want)?;
    }
    Ok(())
}

/// Every batch size around the lane counts (SHA-NI chains, 8, 16) and
/// their multiples, for keys of one block, of a partial block, of two
/// (WPA2) and of three blocks: where full groups end, spare lanes fill
/// and the last chains move to another kernel.
fn many_batch_sizes(b: many::Backend) -> TestResult {
    let passwords: Vec<Vec<u8>> = (0..50u8)
        .map(|i| (0..usize::from(i) * 3).map(|j| (j as u8) ^ i).collect())
        .collect();
    for n in (0..=34).chain([47, 48, 49, 50]) {
        for len in [20, 7, 32, 41, 60] {
            let what = format!("{n} passwords, {len}-byte keys");
            batch_checked(b, &passwords[..n], b"salt", 3, len, &what)?;
        }
    }
    Ok(())
}

/// Random batches (1 to 70 passwords of 0 to 100 bytes, so some are
/// hashed first, with duplicates), salts, iteration counts and key
/// lengths (one to several blocks, partial last blocks) against the
/// one-password form (in `batch_checked`), RustCrypto and, for some
/// passwords, OpenSSL.
fn many_differential(b: many::Backend) -> TestResult {
    let seed = 0x4d41_4e59 ^ b as u64;
    let mut r = rng(seed);
    for i in 0..40 {
        let n = match i % 4 {
            0 => [1, 2, 3, 7, 8, 9, 15, 16, 17, 33][r.random_range(0..10)],
            _ => r.random_range(1..=70),
        };
        let mut passwords: Vec<Vec<u8>> = (0..n)
            .map(|_| (0..r.random_range(0..=100)).map(|_| r.random()).collect())
            .collect();
        if n > 2 {
            passwords[n - 1] = passwords[0].clone();
        }
        let salt: Vec<u8> = (0..r.random_range(0..=80)).map(|_| r.random()).collect();
        let iterations = r.random_range(1..=50);
        let len = r.random_range(1..=70);
        let what = format!(
            "seed {seed:#x} case {i}: {n} passwords, {}-byte salt, {iterations} iterations, {len} bytes",
            salt.len()
        );
        let keys = batch_checked(b, &passwords, &salt, iterations, len, &what)?;
        for (j, (p, key)) in passwords.iter().zip(&keys).enumerate() {
            check_eq(
                &format!("{what}, password {j} vs RustCrypto"),
                key,
                &rustcrypto_pbkdf2(p, &salt, iterations, len),
            )?;
            if j % 8 == 0 {
                check_eq(
                    &format!("{what}, password {j} vs OpenSSL"),
                    key,
                    &openssl_pbkdf2(p, &salt, iterations, len),
                )?;
            }
        }
    }
    // The one-shot helper (the fastest backend).
    let keys =
        many::pbkdf2_hmac_sha1_many(&[b"pw", b"wp"], b"salt", 77, 37).map_err(|e| e.to_string())?;
    check_eq(
        "pbkdf2_hmac_sha1_many",
        &keys[1],
        &rustcrypto_pbkdf2(b"wp", b"salt", 77, 37),
    )
}

/// Refused and edge arguments: no iterations (and the output left as it
/// was), a key too long for PBKDF2 (refused before anything is
/// allocated), empty keys and an empty batch.
fn many_arguments(b: many::Backend) -> TestResult {
    let h = batch(b);
    let mut out = [0u8; 40];
    if h.pbkdf2_hmac_sha1_into(&["a", "b"], b"salt", 0, 20, &mut out)
        != Err(Pbkdf2Error::ZeroIterations)
    {
        return Err("0 iterations accepted".into());
    }
    if out != [0; 40] {
        return Err("a refused call wrote its output".into());
    }
    if h.pbkdf2_hmac_sha1(&["a"], b"salt", 0, 20) != Err(Pbkdf2Error::ZeroIterations) {
        return Err("0 iterations accepted (allocating form)".into());
    }
    let too_long = usize::try_from(u64::from(u32::MAX) * 20 + 1).unwrap_or(usize::MAX);
    if usize::BITS == 64 {
        if h.pbkdf2_hmac_sha1(&["a"], b"salt", 1, too_long) != Err(Pbkdf2Error::OutputTooLong) {
            return Err("a key of more than 2^32 - 1 blocks accepted".into());
        }
        if h.pbkdf2_hmac_sha1_into(&["a"], b"salt", 1, too_long, &mut [])
            != Err(Pbkdf2Error::OutputTooLong)
        {
            return Err("a key of more than 2^32 - 1 blocks accepted (into)".into());
        }
    }
    let empty = h
        .pbkdf2_hmac_sha1(&["a", "b", "c"], b"salt", 5, 0)
        .map_err(|e| e.to_string())?;
    if empty != vec![Vec::<u8>::new(); 3] {
        return Err(format!("empty keys: {empty:?}").into());
    }
    let none: [&[u8]; 0] = [];
    if !h
        .pbkdf2_hmac_sha1(&none, b"salt", 5, 20)
        .map_err(|e| e.to_string())?
        .is_empty()
    {
        return Err("keys for an empty batch".into());
    }
    h.pbkdf2_hmac_sha1_into(&none, b"salt", 5, 20, &mut [])
        .map_err(|e| e.to_string())?;
    Ok(())
}
