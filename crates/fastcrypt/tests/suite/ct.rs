//! Constant-time probes, run under valgrind by `scripts/ct-check.sh` (the
//! ctgrind technique; the client requests are in `super::valgrind`).
//!
//! Each probe marks its secrets undefined (keys, H, plaintexts, messages,
//! tags), runs library code on one backend, checks that the secret reached
//! every output byte ([`still_secret`]), declassifies only the outputs and
//! then compares them with a reference computed before the secrets were
//! marked. Under valgrind, any branch or address derived from a secret on
//! the way is reported; outside valgrind a probe is an ordinary test.
//!
//! [`PROBES`] is the one list: the trials, their names and what the script
//! expects of each are generated from it. A trial is
//! `<family>_ct_probe/<backend>` for library code (one per backend of the
//! primitive; a backend this CPU, or valgrind's virtual CPU, cannot run
//! reports itself ignored with the features it lacks) or
//! `<family>_ct_probe/<name>` for code that is not per backend. Every
//! family has deliberately leaky twins, `<family>_ct_probe/leaky_<what>`,
//! which the script must see flagged: a probe that cannot fail proves
//! nothing.
//!
//! One thing is declassified inside the library, by the script rather
//! than here: AES-GCM open branches on its verdict (the tag matched or
//! not) to decrypt or wipe, and that branch is the only thing
//! `scripts/ct-check.sh` allows (it matches the source line of the branch).

use super::common::{check_eq, painted, TestResult};
use super::valgrind::{
    already_public, check_environment, public, public_copy, run_script, secret, secret_copy,
    still_secret,
};
use fastcrypt::aes_gcm::{self, Aes128Gcm, Aes192Gcm, Aes256Gcm, Error, Tag};
use fastcrypt::cpu::Features;
use fastcrypt::{ghash, sha1, PrimitiveBackend, Unsupported};
use libtest_mimic::{Completion, Trial};
use std::hint::black_box;

/// What a row of [`PROBES`] runs.
#[derive(Clone, Copy)]
enum Probe {
    /// Library code on every AES-GCM backend, one trial each.
    AesGcm(fn(aes_gcm::Backend) -> TestResult),
    /// Library code on every GHASH backend, one trial each.
    Ghash(fn(ghash::Backend) -> TestResult),
    /// Library code on every SHA-1 backend, one trial each.
    Sha1(fn(sha1::Backend) -> TestResult),
    /// Library code that is not chosen per backend, under this name.
    Once(&'static str, fn() -> TestResult),
    /// A deliberate leak, named `leaky_<name>`: it must be flagged.
    Leaky(&'static str, fn() -> TestResult),
}

/// Every probe, by family.
const PROBES: &[(&str, Probe)] = &[
    ("aes_key", Probe::AesGcm(aes_key)),
    (
        "aes_key",
        Probe::Leaky("sbox_table", leaky_aes_key_sbox_table),
    ),
    ("aes_gcm", Probe::AesGcm(aes_gcm_seal_open)),
    (
        "aes_gcm",
        Probe::Leaky("padding_branch", leaky_aes_gcm_padding_branch),
    ),
    ("tag_eq", Probe::Once("tag", tag_eq)),
    (
        "tag_eq",
        Probe::Leaky("early_exit", leaky_tag_eq_early_exit),
    ),
    ("ghash", Probe::Ghash(ghash_h)),
    ("ghash", Probe::Leaky("table", leaky_ghash_table)),
    ("ghash", Probe::Leaky("branch", leaky_ghash_branch)),
    (
        "ghash",
        Probe::Leaky("class_table", leaky_ghash_class_table),
    ),
    (
        "ghash",
        Probe::Leaky("nibble_table", leaky_ghash_nibble_table),
    ),
    ("sha1", Probe::Sha1(sha1_message)),
    (
        "sha1",
        Probe::Leaky("digest_branch", leaky_sha1_digest_branch),
    ),
    ("hmac_sha1", Probe::Once("default", hmac_sha1)),
    ("hmac_sha1_native", Probe::Sha1(hmac_sha1_native)),
    ("pbkdf2_sha1", Probe::Sha1(pbkdf2_sha1)),
    (
        "hmac_sha1",
        Probe::Leaky("hex_encode", leaky_hmac_sha1_hex_encode),
    ),
];

pub fn register(trials: &mut Vec<Trial>) {
    for &(family, probe) in PROBES {
        let name = |variant: &str| format!("{family}_ct_probe/{variant}");
        match probe {
            Probe::AesGcm(f) => per_backend(trials, family, f),
            Probe::Ghash(f) => per_backend(trials, family, f),
            Probe::Sha1(f) => per_backend(trials, family, f),
            Probe::Once(n, f) => trials.push(probe_trial(name(n), f)),
            Probe::Leaky(n, f) => trials.push(probe_trial(name(&format!("leaky_{n}")), f)),
        }
    }
    // Ignored by default: every probe under valgrind takes a minute, and
    // CI runs the script itself, on the release build (`--ignored` runs it
    // on this binary).
    trials.push(
        Trial::ignorable_test("ct_valgrind", || {
            run_script("scripts/ct-check.sh", "the constant-time check")
        })
        .with_ignored_flag(true),
    );
}

fn probe_trial(name: String, f: fn() -> TestResult) -> Trial {
    Trial::test(name, move || {
        check_environment()?;
        f()
    })
}

/// One trial per backend of `B`. A backend that cannot run here is not
/// probed: the trial reports itself ignored, naming the features this CPU
/// (under valgrind: valgrind's virtual CPU) lacks. It is not a failure even
/// when `FASTCRYPT_REQUIRE_BACKENDS` names it: valgrind hides features the
/// real CPU has, and the functional tests already require them.
fn per_backend<B: PrimitiveBackend>(trials: &mut Vec<Trial>, family: &str, f: fn(B) -> TestResult) {
    for &b in B::ALL {
        trials.push(Trial::ignorable_test(
            format!("{family}_ct_probe/{b}"),
            move || {
                check_environment()?;
                match b.check() {
                    Ok(()) => f(b).map(|()| Completion::Completed),
                    Err(e) => Ok(Completion::ignored_with(lacking(b, e))),
                }
            },
        ));
    }
}

/// "lacks sha_ni": the features of `b` that this CPU lacks.
fn lacking<B: PrimitiveBackend>(b: B, e: Unsupported) -> String {
    let have = Features::get().list();
    let missing: Vec<&str> = b
        .needs()
        .split(", ")
        .filter(|n| !have.iter().any(|(f, present)| f == n && *present))
        .collect();
    if missing.is_empty() {
        e.to_string()
    } else {
        format!("lacks {}", missing.join(", "))
    }
}

/// Runs `f` and declassifies its result, which may depend on secrets
/// (a verdict): the one value a probe may branch on.
fn verdict<T: Copy>(x: T) -> T {
    public_copy(x)
}

// ---------------------------------------------------------------------------
// AES: key schedule, seal and open.

/// The three key sizes, through one interface, so a probe is written once.
trait Cipher: Sized {
    const KEY_LEN: usize;
    fn build(b: aes_gcm::Backend, key: &[u8]) -> Result<Self, Unsupported>;
    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag, Error>;
    fn open_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error>;
}

macro_rules! cipher {
    ($($ty:ident $len:literal),+) => {$(
        impl Cipher for $ty {
            const KEY_LEN: usize = $len;
            fn build(b: aes_gcm::Backend, key: &[u8]) -> Result<Self, Unsupported> {
                let key: &[u8; $len] = key.try_into().expect("key length");
                $ty::with_backend(b, key)
            }
            fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag, Error> {
                self.seal_in_place_detached(nonce, aad, buf)
            }
            fn open_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
                self.open_in_place_detached(nonce, aad, buf, tag)
            }
        }
    )+};
}

cipher!(Aes128Gcm 16, Aes192Gcm 24, Aes256Gcm 32);

const NONCE: [u8; 12] = *b"public nonce";
const AAD: &[u8] = b"public header";

/// A key that is not all one byte: `7i + 1`.
fn key_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|i| (7 * i + 1) as u8).collect()
}

/// Ciphertext and tag from RustCrypto's `aes-gcm`: the reference, computed
/// before anything is marked secret.
fn reference(key: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    use ::aes_gcm::aead::{Aead, KeyInit, Payload};
    let p = Payload { msg: pt, aad };
    let n = (&NONCE).into();
    match key.len() {
        16 => ::aes_gcm::Aes128Gcm::new_from_slice(key)
            .unwrap()
            .encrypt(n, p),
        24 => ::aes_gcm::AesGcm::<aes::Aes192, ::aes_gcm::aead::consts::U12>::new_from_slice(key)
            .unwrap()
            .encrypt(n, p),
        _ => ::aes_gcm::Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt(n, p),
    }
    .expect("RustCrypto seals")
}

/// `scripts/ct-check.sh --aes-soft` runs the portable probes again from a
/// build whose `aes` crate has only its software AES (valgrind's CPU has
/// AES-NI, which the crate would take); this fails if that did not happen.
fn aes_crate_path(b: aes_gcm::Backend) -> TestResult {
    if b == aes_gcm::Backend::Portable
        && std::env::var_os("FASTCRYPT_CT_AES_SOFT").is_some()
        && aes::hardware_accelerated()
    {
        return Err(
            "FASTCRYPT_CT_AES_SOFT is set, but the aes crate uses AES-NI: \
                    build with --cfg aes_backend=\"soft\""
                .into(),
        );
    }
    Ok(())
}

/// Key setup with a secret key: the AES key schedule (AESKEYGENASSIST for
/// the x86 backends, the `aes` crate's for the portable one), H = E(K, 0)
/// and the GHASH key (the powers of H), then the tag of an empty message,
/// the only output.
fn aes_key(b: aes_gcm::Backend) -> TestResult {
    fn one<C: Cipher>(b: aes_gcm::Backend) -> TestResult {
        let key = key_bytes(C::KEY_LEN);
        let want = reference(&key, b"", b"");
        secret(&key[..]);
        let gcm = C::build(b, &key)?;
        let tag = gcm.seal_in_place(&NONCE, b"", &mut [])?;
        still_secret("tag", tag.as_ref())?;
        public(tag.as_ref());
        check_eq(&format!("AES-{} tag", 8 * C::KEY_LEN), tag.as_ref(), &want)
    }
    aes_crate_path(b)?;
    one::<Aes128Gcm>(b)?;
    one::<Aes192Gcm>(b)?;
    one::<Aes256Gcm>(b)
}

/// Seal with a secret key and plaintext; open the result (ciphertext
/// public, as on the wire; the tag handed in secret, since it is compared
/// with a secret) and open it again with a wrong tag. Only outputs are
/// declassified: ciphertext and tag, the verdicts, the opened plaintext;
/// the wiped buffer of the failed open must be public without help. One
/// length under `SHORT_MAX` (open's one-batch path) and one over (tag,
/// then CTR; 8-block iterations of the fused kernels with a tail).
fn aes_gcm_seal_open(b: aes_gcm::Backend) -> TestResult {
    fn one<C: Cipher>(b: aes_gcm::Backend, len: usize) -> TestResult {
        let what = format!("AES-{}, {len} bytes", 8 * C::KEY_LEN);
        let key = key_bytes(C::KEY_LEN);
        let pt = painted(len);
        let want = reference(&key, AAD, &pt);
        secret(&key[..]);
        let gcm = C::build(b, &key)?;

        let mut buf = pt.clone();
        secret(&buf[..]);
        let tag = gcm.seal_in_place(&NONCE, AAD, &mut buf)?;
        still_secret(&format!("{what}: ciphertext"), &buf[..])?;
        still_secret(&format!("{what}: tag"), tag.as_ref())?;
        public(&buf[..]);
        public(tag.as_ref());
        check_eq(
            &format!("{what}: seal"),
            &[&buf[..], tag.as_ref()].concat(),
            &want,
        )?;

        let mut opened = buf.clone();
        let t = tag.as_ref().to_vec();
        secret(&t[..]);
        verdict(gcm.open_in_place(&NONCE, AAD, &mut opened, &t))
            .map_err(|e| format!("{what}: open refused its own seal: {e}"))?;
        still_secret(&format!("{what}: plaintext"), &opened[..])?;
        public(&opened[..]);
        check_eq(&format!("{what}: open"), &opened, &pt)?;

        let mut wiped = buf.clone();
        let mut bad = tag.as_ref().to_vec();
        bad[len % 16] ^= 0x10;
        secret(&bad[..]);
        match verdict(gcm.open_in_place(&NONCE, AAD, &mut wiped, &bad)) {
            Err(Error::Authentication) => {}
            other => return Err(format!("{what}: wrong tag gave {other:?}").into()),
        }
        already_public(&format!("{what}: wiped buffer"), &wiped[..])?;
        check_eq(&format!("{what}: wiped buffer"), &wiped, &vec![0; len])
    }
    aes_crate_path(b)?;
    for len in [45, 300] {
        one::<Aes128Gcm>(b, len)?;
        one::<Aes256Gcm>(b, len)?;
    }
    Ok(())
}

/// `Tag == Tag` with both tags secret: equal, and different in one byte
/// (the first or the last): only the verdict is declassified.
fn tag_eq() -> TestResult {
    let b = aes_gcm::Backend::fastest();
    let key = key_bytes(16);
    secret(&key[..]);
    let gcm = Aes128Gcm::build(b, &key)?;
    let tag = |msg: &[u8]| gcm.seal_in_place(&NONCE, AAD, &mut msg.to_vec());
    let (t, same) = (tag(b"a")?, tag(b"a")?);
    let eq = black_box(t == same);
    still_secret("verdict", &eq)?;
    if !verdict(eq) {
        return Err("a tag differs from itself".into());
    }
    for other in [b"b", b"c"] {
        if verdict(t == tag(other)?) {
            return Err("different messages gave equal tags".into());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// GHASH.

const H: [u8; 16] = [
    0xb8, 0x3b, 0x53, 0x37, 0x08, 0xbf, 0x53, 0x5d, 0x0a, 0xa6, 0xe5, 0x29, 0x80, 0xd5, 0x3b, 0x78,
];

fn ghash_oracle(data: &[u8]) -> [u8; 16] {
    let mut g = ghash::GHash::with_backend(ghash::Backend::Portable, &H).unwrap();
    g.update_padded(data);
    g.finalize()
}

/// Key setup (powers of H, masks), every group and tail shape, clone,
/// reset and finalize, with H and the data secret.
fn ghash_h(b: ghash::Backend) -> TestResult {
    let data = painted(1000);
    let want_clone = ghash_oracle(&data);
    let want = ghash_oracle(&[&data[..333], &[0; 3][..], &data[333..]].concat());
    let h = secret_copy(H);
    secret(&data[..]);
    let mut g = ghash::GHash::with_backend(b, &h)?;
    g.update_padded(&data[..333]);
    let mut c = g.clone();
    c.reset();
    c.update_padded(&data);
    g.update_padded(&data[333..]);
    let (out1, out2) = (c.finalize(), g.finalize());
    still_secret("GHASH (clone)", &out1)?;
    still_secret("GHASH", &out2)?;
    public(&out1);
    public(&out2);
    check_eq("GHASH (clone)", &out1, &want_clone)?;
    check_eq("GHASH", &out2, &want)
}

// ---------------------------------------------------------------------------
// SHA-1 and HMAC-SHA1.

/// A secret message of five blocks and a tail, in three updates (one
/// block, then the two-block passes of the AVX2 schedule), a clone, and
/// `finalize_reset`.
fn sha1_message(b: sha1::Backend) -> TestResult {
    use ::sha1::Digest as _;
    let msg = painted(5 * 64 + 17);
    let want = ::sha1::Sha1::digest(&msg);
    secret(&msg[..]);
    let mut h = sha1::Sha1::with_backend(b)?;
    h.update(&msg[..64]);
    h.update(&msg[64..300]);
    let c = h.clone();
    h.update(&msg[300..]);
    let mut c2 = c.clone();
    c2.update(&msg[300..]);
    let (d1, d2) = (h.finalize(), c2.finalize_reset());
    still_secret("digest", &d1)?;
    still_secret("digest (clone)", &d2)?;
    public(&d1);
    public(&d2);
    check_eq("digest", &d1, &want)?;
    check_eq("digest (clone)", &d2, &want)
}

/// The HMAC-SHA1 of a secret message under a secret key, through
/// `hmac::SimpleHmac<fastcrypt::sha1::Sha1>` (which uses the default
/// backend), for a key shorter than a block and one longer (hashed first).
fn hmac_sha1() -> TestResult {
    for key_len in [20, 100] {
        let (key, msg) = (key_bytes(key_len), painted(50));
        let want = hmac_tag::<::sha1::Sha1>(&key, &msg);
        secret(&key[..]);
        secret(&msg[..]);
        // The simple form hashes the padded key each time; the eager
        // `Hmac` keys fastcrypt's `Sha1Core`s once and starts from them.
        let simple = hmac_tag::<sha1::Sha1>(&key, &msg);
        let eager = {
            use hmac::{Hmac, KeyInit, Mac};
            let mut mac =
                <Hmac<sha1::Sha1> as KeyInit>::new_from_slice(&key).expect("any key length");
            mac.update(&msg);
            mac.finalize().into_bytes().to_vec()
        };
        for (what, tag) in [("SimpleHmac", simple), ("Hmac", eager)] {
            still_secret(what, &tag[..])?;
            public(&tag[..]);
            check_eq(&format!("{what}-SHA1, {key_len}-byte key"), &tag, &want)?;
        }
    }
    Ok(())
}

/// fastcrypt's own `HmacSha1` on backend `b`: a secret key (shorter and
/// longer than a block) and message; `verify` against a secret right tag
/// and a secret wrong one, whose verdicts are declassified only after it
/// returns (a comparison that exits early, or a branch on the tag, is
/// flagged).
fn hmac_sha1_native(b: sha1::Backend) -> TestResult {
    for key_len in [20, 100] {
        let (key, msg) = (key_bytes(key_len), painted(50));
        let want = hmac_tag::<::sha1::Sha1>(&key, &msg);
        let mut wrong = want.clone();
        wrong[7] ^= 1;
        secret(&key[..]);
        secret(&msg[..]);
        secret(&want[..]);
        secret(&wrong[..]);
        let mut mac = sha1::HmacSha1::with_backend(b, &key)?;
        mac.update(&msg);
        let right_ok = black_box(mac.clone().verify(&want).is_ok());
        let wrong_ok = black_box(mac.clone().verify(&wrong).is_ok());
        still_secret("verdict", &right_ok)?;
        still_secret("verdict (wrong tag)", &wrong_ok)?;
        let tag = mac.finalize();
        still_secret("tag", &tag[..])?;
        public(&tag[..]);
        public(&want[..]);
        check_eq(&format!("HmacSha1, {key_len}-byte key"), &tag, &want)?;
        if !verdict(right_ok) || verdict(wrong_ok) {
            return Err(format!("verify: right {right_ok}, wrong {wrong_ok}").into());
        }
    }
    Ok(())
}

/// PBKDF2-HMAC-SHA1 on backend `b` with a secret password: 45 bytes (two
/// chains and a partial third block), a few iterations.
fn pbkdf2_sha1(b: sha1::Backend) -> TestResult {
    let (password, salt) = (key_bytes(30), painted(16));
    let mut want = [0u8; 45];
    pbkdf2::pbkdf2::<hmac::Hmac<::sha1::Sha1>>(&password, &salt, 5, &mut want)
        .map_err(|e| e.to_string())?;
    secret(&password[..]);
    let mut out = [0u8; 45];
    sha1::HmacSha1::with_backend(b, &password)?
        .pbkdf2(&salt, 5, &mut out)
        .map_err(|e| e.to_string())?;
    still_secret("key", &out[..])?;
    public(&out[..]);
    check_eq("pbkdf2", &out, &want)
}

fn hmac_tag<D>(key: &[u8], msg: &[u8]) -> Vec<u8>
where
    D: hmac::digest::Digest + hmac::digest::block_api::BlockSizeUser,
{
    use hmac::{KeyInit, Mac, SimpleHmac};
    let mut mac = <SimpleHmac<D> as KeyInit>::new_from_slice(key).expect("any key length");
    mac.update(msg);
    mac.finalize().into_bytes().to_vec()
}

// ---------------------------------------------------------------------------
// The leaky twins: each must be flagged. They do their work correctly, so a
// twin that is not flagged is the detection failing, not the code.

static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
        i += 1;
    }
    t
};

/// AES's S-box from its definition (FIPS 197, section 5.1.1): the inverse
/// in GF(2^8) (as x^254), then the affine map.
const SBOX: [u8; 256] = {
    const fn mul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        p
    }
    let mut s = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        // x^254 = x^-1 (and 0 for 0): square-and-multiply over 254's bits.
        let (mut inv, mut sq, mut e) = (1u8, x as u8, 254u32);
        while e != 0 {
            if e & 1 != 0 {
                inv = mul(inv, sq);
            }
            sq = mul(sq, sq);
            e >>= 1;
        }
        s[x] = inv
            ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63;
        x += 1;
    }
    s
};

/// The textbook key schedule (FIPS 197, section 5.2) with SubWord as four
/// S-box lookups indexed by key bytes: the cache-timing leak of table AES.
/// Checked against the last round keys printed in FIPS 197, Appendix A.1
/// (AES-128) and A.3 (AES-256).
fn leaky_aes_key_sbox_table() -> TestResult {
    let cases: [(&str, &str); 2] = [
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "d014f9a8c9ee2589e13f0cc8b6630ca6",
        ),
        (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "fe4890d1e6188d0b046df344706c631e",
        ),
    ];
    for (key, last) in cases {
        let key = hex::decode(key).unwrap();
        secret(&key[..]);
        let nk = key.len() / 4;
        let total = 4 * (nk + 7);
        let mut w: Vec<u32> = key
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        let sub_word = |x: u32| u32::from_be_bytes(x.to_be_bytes().map(|b| SBOX[usize::from(b)]));
        let mut rcon = 1u8;
        for i in nk..total {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_left(8)) ^ u32::from(rcon) << 24;
                rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w.push(w[i - nk] ^ t);
        }
        let got: Vec<u8> = w[total - 4..]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        public(&got[..]);
        check_eq("last round key", &got, &hex::decode(last).unwrap())?;
    }
    Ok(())
}

/// A caller's leak after a correct open: the plaintext's padding checked
/// the usual way (read the length from the last byte, then loop over that
/// many bytes) before being declassified, the padding-oracle shape; on
/// the default backend.
fn leaky_aes_gcm_padding_branch() -> TestResult {
    let b = aes_gcm::Backend::fastest();
    let key = key_bytes(16);
    let mut buf = painted(40);
    buf[37..].fill(3);
    secret(&key[..]);
    secret(&buf[..]);
    let gcm = Aes128Gcm::build(b, &key)?;
    let tag = gcm.seal_in_place(&NONCE, AAD, &mut buf)?;
    public(&buf[..]);
    verdict(gcm.open_in_place(&NONCE, AAD, &mut buf, tag.as_ref())).map_err(|e| e.to_string())?;
    let pad = usize::from(buf[buf.len() - 1]);
    let valid = buf[buf.len() - pad..]
        .iter()
        .all(|&p| usize::from(p) == pad);
    if verdict(valid) && verdict(pad) == 3 {
        Ok(())
    } else {
        Err("the padding of the opened message is wrong".into())
    }
}

/// The classic tag check: compare byte by byte and return at the first
/// difference, so the time says how many leading bytes were right.
fn leaky_tag_eq_early_exit() -> TestResult {
    let key = key_bytes(16);
    secret(&key[..]);
    let gcm = Aes128Gcm::build(aes_gcm::Backend::fastest(), &key)?;
    let a = gcm.seal_in_place(&NONCE, AAD, &mut [])?;
    let b = gcm.seal_in_place(&NONCE, AAD, &mut [])?;
    let eq = a
        .as_ref()
        .iter()
        .zip(b.as_ref())
        .all(|(x, y)| black_box(*x) == black_box(*y));
    if verdict(eq) {
        Ok(())
    } else {
        Err("a tag differs from itself".into())
    }
}

/// A table indexed by a byte of H.
fn leaky_ghash_table() -> TestResult {
    let h = secret_copy(H);
    let table = black_box(&TABLE);
    let x = table[usize::from(h[0])];
    check_eq("table", &[verdict(x)], &[TABLE[usize::from(H[0])]])
}

/// A branch on a bit of H (the bit-by-bit multiply of the GCM
/// specification branches like this on every bit of its operands).
fn leaky_ghash_branch() -> TestResult {
    let want = H.iter().filter(|b| *b & 1 == 1).count() as u32;
    let h = secret_copy(H);
    let mut n = 0u32;
    for byte in h {
        // black_box keeps the compiler from turning the branch into a
        // constant-time select.
        if byte & 1 == 1 {
            n = black_box(n + 1);
        }
    }
    check_eq("branch", &verdict(n).to_le_bytes(), &want.to_le_bytes())
}

/// The `sse2`/`avx2` backends' method (32x32-bit integer products of
/// operands with holes, see `ghash/x86_sse2.rs`) with one step done the
/// tempting way: the operand's four residue classes looked up nibble by
/// nibble in a 16-entry table instead of ANDed with masks. The products
/// of H's words by a public word are right; the table index is secret.
fn leaky_ghash_class_table() -> TestResult {
    const M: [u32; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
    /// `CLASS[v][i]`: the bits of nibble `v` in class `i`.
    const CLASS: [[u32; 4]; 16] = {
        let mut t = [[0; 4]; 16];
        let mut v = 0;
        while v < 16 {
            let mut i = 0;
            while i < 4 {
                t[v][i] = v as u32 & (1 << i);
                i += 1;
            }
            v += 1;
        }
        t
    };
    /// 32x32 -> 64-bit carry-less product with holes; `leaky` splits `x`
    /// by table.
    fn clmul32(x: u32, y: u32, leaky: bool) -> u64 {
        let xs: [u32; 4] = if leaky {
            let table = black_box(&CLASS);
            let mut c = [0u32; 4];
            for n in 0..8 {
                let v = (x >> (4 * n)) as usize & 15;
                for (ci, t) in c.iter_mut().zip(table[v]) {
                    *ci |= t << (4 * n);
                }
            }
            c
        } else {
            M.map(|m| x & m)
        };
        let ys = M.map(|m| y & m);
        let mut z = 0u64;
        for r in 0..4 {
            let mut s = 0u64;
            for (i, xi) in xs.iter().enumerate() {
                s ^= u64::from(*xi) * u64::from(ys[(r + 4 - i) & 3]);
            }
            z |= s & (u64::from(M[r]) * 0x1_0000_0001);
        }
        z
    }
    let words = |h: [u8; 16]| -> [u32; 4] {
        core::array::from_fn(|i| u32::from_be_bytes(h[4 * i..4 * i + 4].try_into().unwrap()))
    };
    let y = 0x9e37_79b9;
    let want = words(H).map(|w| clmul32(w, y, false));
    let h = secret_copy(H);
    let got = words(h).map(|w| clmul32(w, y, true));
    let got: Vec<u8> = got.iter().flat_map(|g| verdict(*g).to_le_bytes()).collect();
    let want: Vec<u8> = want.iter().flat_map(|g| g.to_le_bytes()).collect();
    check_eq("products", &got, &want)
}

/// The `ssse3`/`avx2` backends' method (`X * H` as the sum over X's
/// bytes of 16-entry tables of nibble multiples of H, see
/// `ghash/x86_ssse3.rs`) with the lookup done the tempting way: the
/// nibbles of the secret operand index a table in memory instead of
/// selecting bytes inside a register with `pshufb`. The unreduced product
/// of H by a public value is right; the table index is secret.
fn leaky_ghash_nibble_table() -> TestResult {
    /// `n(x) * y` and `n(x) * x^4 * y` for every nibble `n`: carry-less,
    /// unreduced (at most 135 bits, held as two u128 halves).
    fn tables(y: u128) -> [[(u128, u128); 16]; 2] {
        let mut t = [[(0u128, 0u128); 16]; 2];
        for (half, table) in t.iter_mut().enumerate() {
            for (n, e) in table.iter_mut().enumerate() {
                for i in 0..4 {
                    if n >> i & 1 == 1 {
                        let s = 4 * half + i;
                        e.0 ^= y << s;
                        if s > 0 {
                            e.1 ^= y >> (128 - s);
                        }
                    }
                }
            }
        }
        t
    }
    /// `x * y` (256-bit carry-less product) as the sum over x's bytes of
    /// table entries shifted by 8l bits; `leaky` looks entries up by
    /// the nibble, else selects every entry with a mask.
    fn clmul(x: [u8; 16], t: &[[(u128, u128); 16]; 2], leaky: bool) -> (u128, u128) {
        let (mut lo, mut hi) = (0u128, 0u128);
        let t = black_box(t);
        // Byte l of the little-endian value is x[15 - l] (GCM order).
        for l in 0..16 {
            let byte = x[15 - l];
            let mut e = (0u128, 0u128);
            for (half, table) in t.iter().enumerate() {
                let v = usize::from(byte >> (4 * half) & 15);
                if leaky {
                    e.0 ^= table[v].0;
                    e.1 ^= table[v].1;
                } else {
                    for (n, entry) in table.iter().enumerate() {
                        let m = 0u128.wrapping_sub(u128::from(n == v));
                        e.0 ^= entry.0 & m;
                        e.1 ^= entry.1 & m;
                    }
                }
            }
            lo ^= e.0 << (8 * l);
            if l > 0 {
                hi ^= e.0 >> (128 - 8 * l);
            }
            hi ^= e.1 << (8 * l);
        }
        (lo, hi)
    }
    let t = tables(0x0123_4567_89ab_cdef_f0e1_d2c3_b4a5_9687);
    let want = clmul(H, &t, false);
    let h = secret_copy(H);
    let got = clmul(h, &t, true);
    let got = [verdict(got.0), verdict(got.1)];
    let got: Vec<u8> = got.iter().flat_map(|g| g.to_le_bytes()).collect();
    let want: Vec<u8> = [want.0, want.1]
        .iter()
        .flat_map(|g| g.to_le_bytes())
        .collect();
    check_eq("product", &got, &want)
}

/// A proof-of-work style check on a secret message's digest, on the
/// default backend: count its leading zero bits, stopping at the first
/// one, before the digest is declassified.
fn leaky_sha1_digest_branch() -> TestResult {
    use ::sha1::Digest as _;
    let msg = painted(100);
    let want = ::sha1::Sha1::digest(&msg);
    secret(&msg[..]);
    let d = sha1::digest(&msg);
    let zeros = d
        .iter()
        .position(|&x| black_box(x) != 0)
        .map_or(160, |i| 8 * i + d[i].leading_zeros() as usize);
    let want_zeros = want
        .iter()
        .position(|&x| x != 0)
        .map_or(160, |i| 8 * i + want[i].leading_zeros() as usize);
    check_eq(
        "leading zero bits",
        &verdict(zeros).to_le_bytes(),
        &want_zeros.to_le_bytes(),
    )
}

/// Logging a MAC in hex before it is public: `hex::encode` looks each
/// nibble up in a table.
fn leaky_hmac_sha1_hex_encode() -> TestResult {
    let (key, msg) = (key_bytes(20), painted(50));
    let want = hex::encode(hmac_tag::<::sha1::Sha1>(&key, &msg));
    secret(&key[..]);
    let tag = hmac_tag::<sha1::Sha1>(&key, &msg);
    let shown = hex::encode(&tag);
    public(shown.as_bytes());
    if shown == want {
        Ok(())
    } else {
        Err("hex of the HMAC differs".into())
    }
}
