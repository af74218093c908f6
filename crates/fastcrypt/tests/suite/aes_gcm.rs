//! AES-GCM: NIST CAVP (encrypt and decrypt, all key sizes, IV and tag
//! lengths, FAIL cases), Wycheproof, the GCM specification's test cases,
//! OpenSSL and RustCrypto differentials, error paths, the 32-bit counter
//! wrap, guard pages after every input, and the `aead` traits. Every test
//! runs on every backend.

use super::common::{
    backend_api, before_guard_page, check_eq, lengths, painted, per_backend, read_testdata, rng,
    GuardPage, TestResult,
};
use fastcrypt::aes_gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm, Backend, Error, NonceLen};
use libtest_mimic::Trial;
use rand::Rng;
use std::collections::HashMap;

/// One cipher of any key size, so tests can loop over key sizes.
enum Gcm {
    A128(Aes128Gcm),
    A192(Aes192Gcm),
    A256(Aes256Gcm),
}

macro_rules! each {
    ($g:expr, $c:ident => $e:expr) => {
        match $g {
            Gcm::A128($c) => $e,
            Gcm::A192($c) => $e,
            Gcm::A256($c) => $e,
        }
    };
}

impl Gcm {
    fn new(b: Backend, key: &[u8]) -> Gcm {
        Gcm::with_backend(b, key).expect("registered only when available")
    }
    fn with_backend(b: Backend, key: &[u8]) -> Result<Gcm, fastcrypt::Unsupported> {
        Ok(match key.len() {
            16 => Gcm::A128(Aes128Gcm::with_backend(
                b,
                <&[u8; 16]>::try_from(key).unwrap(),
            )?),
            24 => Gcm::A192(Aes192Gcm::with_backend(
                b,
                <&[u8; 24]>::try_from(key).unwrap(),
            )?),
            32 => Gcm::A256(Aes256Gcm::with_backend(
                b,
                <&[u8; 32]>::try_from(key).unwrap(),
            )?),
            n => panic!("bad AES key length {n}"),
        })
    }
    /// What `new` builds: the fastest backend.
    fn fastest(key: &[u8]) -> Gcm {
        match key.len() {
            16 => Gcm::A128(Aes128Gcm::new_from_slice(key).unwrap()),
            24 => Gcm::A192(Aes192Gcm::new_from_slice(key).unwrap()),
            32 => Gcm::A256(Aes256Gcm::new_from_slice(key).unwrap()),
            n => panic!("bad AES key length {n}"),
        }
    }
    fn backend(&self) -> Backend {
        each!(self, c => c.backend())
    }
    fn params(self, nonce: NonceLen, tag: usize) -> Result<Gcm, Error> {
        Ok(match self {
            Gcm::A128(c) => Gcm::A128(c.with_params(nonce, tag)?),
            Gcm::A192(c) => Gcm::A192(c.with_params(nonce, tag)?),
            Gcm::A256(c) => Gcm::A256(c.with_params(nonce, tag)?),
        })
    }
    fn seal(&self, n: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error> {
        each!(self, c => c.seal_in_place_detached(n, aad, buf).map(|t| t.as_ref().to_vec()))
    }
    fn open(&self, n: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        each!(self, c => c.open_in_place_detached(n, aad, buf, tag))
    }
    fn seal_vec(&self, n: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
        each!(self, c => c.seal(n, aad, pt))
    }
    fn open_vec(&self, n: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        each!(self, c => c.open(n, aad, sealed))
    }
}

pub fn register(trials: &mut Vec<Trial>) {
    per_backend(trials, "aes_gcm_nist_encrypt_128", |b| {
        nist_encrypt(b, "aes_gcm/gcmEncryptExtIV128.rsp")
    });
    per_backend(trials, "aes_gcm_nist_encrypt_192", |b| {
        nist_encrypt(b, "aes_gcm/gcmEncryptExtIV192.rsp")
    });
    per_backend(trials, "aes_gcm_nist_encrypt_256", |b| {
        nist_encrypt(b, "aes_gcm/gcmEncryptExtIV256.rsp")
    });
    per_backend(trials, "aes_gcm_nist_decrypt_128", |b| {
        nist_decrypt(b, "aes_gcm/gcmDecrypt128.rsp")
    });
    per_backend(trials, "aes_gcm_nist_decrypt_192", |b| {
        nist_decrypt(b, "aes_gcm/gcmDecrypt192.rsp")
    });
    per_backend(trials, "aes_gcm_nist_decrypt_256", |b| {
        nist_decrypt(b, "aes_gcm/gcmDecrypt256.rsp")
    });
    per_backend(trials, "aes_gcm_wycheproof", wycheproof);
    per_backend(trials, "aes_gcm_spec_cases", spec_cases);
    per_backend(trials, "aes_gcm_vs_openssl", vs_openssl);
    per_backend(trials, "aes_gcm_vs_rustcrypto", vs_rustcrypto);
    per_backend(trials, "aes_gcm_vs_portable_lengths", vs_portable_lengths);
    per_backend(trials, "aes_gcm_aad_lengths", aad_lengths);
    per_backend(trials, "aes_gcm_failed_open_wipes", failed_open_wipes);
    per_backend(trials, "aes_gcm_guard_page", guard_page);
    per_backend(trials, "aes_gcm_errors_leave_no_plaintext", errors);
    per_backend(trials, "aes_gcm_counter_wrap", counter_wrap);
    per_backend(trials, "aes_gcm_aead_traits", aead_traits);
    trials.push(Trial::test("aes_gcm_backend_api", || {
        // Each key size is its own type, with its own constructors.
        [16, 24, 32].into_iter().try_for_each(|n| {
            let key = vec![0; n];
            backend_api(
                |b| Gcm::with_backend(b, &key).map(|g| g.backend()),
                || Gcm::fastest(&key).backend(),
            )
        })
    }));
}

/// Records of a CAVP GCM `.rsp` file: key/value maps, plus `FAIL`.
fn parse_rsp(text: &str) -> Vec<HashMap<String, String>> {
    let mut out = Vec::new();
    let mut cur: Option<HashMap<String, String>> = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with("Count = ") {
            out.extend(cur.take());
            cur = Some(HashMap::new());
        } else if let Some(c) = cur.as_mut() {
            if line == "FAIL" {
                c.insert("FAIL".into(), String::new());
            } else if let Some((k, v)) = line.split_once(" =") {
                c.insert(k.trim().into(), v.trim().into());
            }
        }
    }
    out.extend(cur);
    out
}

fn field(rec: &HashMap<String, String>, k: &str) -> Result<Vec<u8>, String> {
    hex::decode(rec.get(k).ok_or(format!("record without {k}"))?).map_err(|e| format!("{k}: {e}"))
}

/// What encryption and decryption records share: the cipher they ask for
/// (key, tag length) and its inputs.
struct Record {
    g: Gcm,
    iv: Vec<u8>,
    aad: Vec<u8>,
    tag: Vec<u8>,
}

fn record(b: Backend, r: &HashMap<String, String>, i: usize) -> Result<Record, String> {
    let tag = field(r, "Tag")?;
    let g = Gcm::new(b, &field(r, "Key")?)
        .params(NonceLen::Any, tag.len())
        .map_err(|e| format!("record {i}: {e}"))?;
    Ok(Record {
        g,
        iv: field(r, "IV")?,
        aad: field(r, "AAD")?,
        tag,
    })
}

fn nist_encrypt(b: Backend, file: &str) -> TestResult {
    let recs = parse_rsp(&read_testdata(file)?);
    if recs.len() != 7875 {
        return Err(format!("{file}: {} records, expected 7875", recs.len()).into());
    }
    for (i, r) in recs.iter().enumerate() {
        let Record { g, iv, aad, tag } = record(b, r, i)?;
        let (pt, ct) = (field(r, "PT")?, field(r, "CT")?);
        let mut buf = pt.clone();
        let got = g
            .seal(&iv, &aad, &mut buf)
            .map_err(|e| format!("record {i}: {e}"))?;
        check_eq(&format!("{file} record {i} ct"), &buf, &ct)?;
        check_eq(&format!("{file} record {i} tag"), &got, &tag)?;
        g.open(&iv, &aad, &mut buf, &tag)
            .map_err(|e| format!("{file} record {i} reopen: {e}"))?;
        check_eq(&format!("{file} record {i} reopen"), &buf, &pt)?;
    }
    Ok(())
}

fn nist_decrypt(b: Backend, file: &str) -> TestResult {
    let recs = parse_rsp(&read_testdata(file)?);
    let fails = recs.iter().filter(|r| r.contains_key("FAIL")).count();
    if recs.len() != 7875 || fails == 0 {
        return Err(format!(
            "{file}: {} records ({fails} FAIL), expected 7875 with FAIL cases",
            recs.len()
        )
        .into());
    }
    for (i, r) in recs.iter().enumerate() {
        let Record { g, iv, aad, tag } = record(b, r, i)?;
        let ct = field(r, "CT")?;
        let mut buf = ct.clone();
        let res = g.open(&iv, &aad, &mut buf, &tag);
        if r.contains_key("FAIL") {
            if res != Err(Error::Authentication) {
                return Err(format!("{file} record {i}: FAIL case gave {res:?}").into());
            }
            if buf.iter().any(|&x| x != 0) {
                return Err(format!("{file} record {i}: buffer not wiped after failure").into());
            }
        } else {
            res.map_err(|e| format!("{file} record {i}: {e}"))?;
            check_eq(&format!("{file} record {i} pt"), &buf, &field(r, "PT")?)?;
        }
    }
    Ok(())
}

fn wycheproof(b: Backend) -> TestResult {
    use wycheproof::{aead::TestName, aead::TestSet, TestResult as W};
    let set = TestSet::load(TestName::AesGcm).map_err(|e| format!("{e:?}"))?;
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let id = format!("tcId {} ({})", t.tc_id, t.comment);
            let g = match Gcm::new(b, &t.key).params(NonceLen::Any, t.tag.len()) {
                Ok(g) => g,
                Err(_) if t.result == W::Invalid => {
                    invalid += 1;
                    continue;
                }
                Err(e) => return Err(format!("{id}: {e}").into()),
            };
            let mut buf = t.pt.to_vec();
            let sealed = g.seal(&t.nonce, &t.aad, &mut buf);
            let mut ct = t.ct.to_vec();
            let opened = g.open(&t.nonce, &t.aad, &mut ct, &t.tag);
            match t.result {
                W::Valid | W::Acceptable if opened.is_ok() => {
                    valid += 1;
                    check_eq(&format!("{id} open"), &ct, &t.pt)?;
                    check_eq(&format!("{id} seal ct"), &buf, &t.ct)?;
                    check_eq(
                        &format!("{id} seal tag"),
                        &sealed.map_err(|e| format!("{id}: {e}"))?,
                        &t.tag,
                    )?;
                }
                W::Valid => return Err(format!("{id}: valid case refused: {opened:?}").into()),
                _ => {
                    invalid += 1;
                    if opened.is_ok() {
                        return Err(format!("{id}: invalid case accepted").into());
                    }
                    if opened == Err(Error::Authentication) && ct.iter().any(|&x| x != 0) {
                        return Err(format!("{id}: buffer not wiped").into());
                    }
                }
            }
        }
    }
    if valid < 100 || invalid < 50 {
        return Err(
            format!("too few Wycheproof cases ran: {valid} valid, {invalid} invalid").into(),
        );
    }
    Ok(())
}

struct Spec {
    case: u32,
    key: &'static str,
    iv: &'static str,
    aad: &'static str,
    pt: &'static str,
    ct: &'static str,
    tag: &'static str,
}

/// D. McGrew and J. Viega, "The Galois/Counter Mode of Operation (GCM)",
/// revised submission to NIST (2005), Appendix B, Test Cases 1-18
/// (1-6 AES-128, 7-12 AES-192, 13-18 AES-256; cases 5/11/17 use a 64-bit
/// IV and 6/12/18 a 480-bit IV).
#[rustfmt::skip]
const SPEC: &[Spec] = &[
    Spec { case: 1, key: "00000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "", ct: "", tag: "58e2fccefa7e3061367f1d57a4e7455a" },
    Spec { case: 2, key: "00000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "00000000000000000000000000000000", ct: "0388dace60b6a392f328c2b971b2fe78", tag: "ab6e47d42cec13bdf53a67b21257bddf" },
    Spec { case: 3, key: "feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbaddecaf888", aad: "", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255", ct: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985", tag: "4d5c2af327cd64a62cf35abd2ba6fab4" },
    Spec { case: 4, key: "feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbaddecaf888", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091", tag: "5bc94fbc3221a5db94fae95ae7121a47" },
    Spec { case: 5, key: "feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbad", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c742373806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598", tag: "3612d2e79e3b0785561be14aaca2fccb" },
    Spec { case: 6, key: "feffe9928665731c6d6a8f9467308308", iv: "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5", tag: "619cc5aefffe0bfa462af43c1699d050" },
    Spec { case: 7, key: "000000000000000000000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "", ct: "", tag: "cd33b28ac773f74ba00ed1f312572435" },
    Spec { case: 8, key: "000000000000000000000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "00000000000000000000000000000000", ct: "98e7247c07f0fe411c267e4384b0f600", tag: "2ff58d80033927ab8ef4d4587514f0fb" },
    Spec { case: 9, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c", iv: "cafebabefacedbaddecaf888", aad: "", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255", ct: "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256", tag: "9924a7c8587336bfb118024db8674a14" },
    Spec { case: 10, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c", iv: "cafebabefacedbaddecaf888", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710", tag: "2519498e80f1478f37ba55bd6d27618c" },
    Spec { case: 11, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c", iv: "cafebabefacedbad", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "0f10f599ae14a154ed24b36e25324db8c566632ef2bbb34f8347280fc4507057fddc29df9a471f75c66541d4d4dad1c9e93a19a58e8b473fa0f062f7", tag: "65dcc57fcf623a24094fcca40d3533f8" },
    Spec { case: 12, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c", iv: "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "d27e88681ce3243c4830165a8fdcf9ff1de9a1d8e6b447ef6ef7b79828666e4581e79012af34ddd9e2f037589b292db3e67c036745fa22e7e9b7373b", tag: "dcf566ff291c25bbb8568fc3d376a6d9" },
    Spec { case: 13, key: "0000000000000000000000000000000000000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "", ct: "", tag: "530f8afbc74536b9a963b4f1c4cb738b" },
    Spec { case: 14, key: "0000000000000000000000000000000000000000000000000000000000000000", iv: "000000000000000000000000", aad: "", pt: "00000000000000000000000000000000", ct: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919" },
    Spec { case: 15, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbaddecaf888", aad: "", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255", ct: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad", tag: "b094dac5d93471bdec1a502270e3cc6c" },
    Spec { case: 16, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbaddecaf888", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662", tag: "76fc6ece0f4e1768cddf8853bb2d551b" },
    Spec { case: 17, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", iv: "cafebabefacedbad", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "c3762df1ca787d32ae47c13bf19844cbaf1ae14d0b976afac52ff7d79bba9de0feb582d33934a4f0954cc2363bc73f7862ac430e64abe499f47c9b1f", tag: "3a337dbf46a792c45e454913fe2ea8f2" },
    Spec { case: 18, key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", iv: "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b", aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", pt: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", ct: "5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf40fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f", tag: "a44a8266ee1c8eb0c8b5d4cf5ae9f19a" },
];

fn spec_cases(b: Backend) -> TestResult {
    for s in SPEC {
        let h = |x: &str| hex::decode(x).unwrap();
        let g = Gcm::new(b, &h(s.key)).params(NonceLen::Any, 16)?;
        let mut buf = h(s.pt);
        let tag = g.seal(&h(s.iv), &h(s.aad), &mut buf)?;
        check_eq(&format!("test case {} ct", s.case), &buf, &h(s.ct))?;
        check_eq(&format!("test case {} tag", s.case), &tag, &h(s.tag))?;
    }
    Ok(())
}

/// Random key sizes, nonces, AAD and message lengths (0..=2048, plus a few
/// MiB-sized messages).
/// Key, nonce, AAD, plaintext.
type Case = (Vec<u8>, [u8; 12], Vec<u8>, Vec<u8>);

fn random_cases(seed: u64) -> Vec<Case> {
    let mut r = rng(seed);
    (0..150)
        .map(|i| {
            let key: Vec<u8> = (0..[16, 24, 32][i % 3]).map(|_| r.random()).collect();
            let nonce: [u8; 12] = r.random();
            let aad: Vec<u8> = (0..r.random_range(0..=100)).map(|_| r.random()).collect();
            let len = if i % 50 == 49 {
                r.random_range(1 << 20..=3 << 20)
            } else {
                r.random_range(0..=2048)
            };
            let pt: Vec<u8> = (0..len).map(|_| r.random()).collect();
            (key, nonce, aad, pt)
        })
        .collect()
}

fn vs_openssl(b: Backend) -> TestResult {
    use openssl::symm::{encrypt_aead, Cipher};
    for (i, (key, nonce, aad, pt)) in random_cases(0xAE5_0001).iter().enumerate() {
        let cipher = match key.len() {
            16 => Cipher::aes_128_gcm(),
            24 => Cipher::aes_192_gcm(),
            _ => Cipher::aes_256_gcm(),
        };
        let mut tag = [0u8; 16];
        let want =
            encrypt_aead(cipher, key, Some(nonce), aad, pt, &mut tag).map_err(|e| e.to_string())?;
        let g = Gcm::new(b, key);
        let mut buf = pt.clone();
        let got_tag = g.seal(nonce, aad, &mut buf)?;
        check_eq(
            &format!("case {i} (key {}, len {}) ct", key.len(), pt.len()),
            &buf,
            &want,
        )?;
        check_eq(&format!("case {i} tag"), &got_tag, &tag)?;
    }
    Ok(())
}

fn vs_rustcrypto(b: Backend) -> TestResult {
    use aes_gcm::aead::{Aead, KeyInit, Payload};
    for (i, (key, nonce, aad, pt)) in random_cases(0xAE5_0002).iter().enumerate() {
        let payload = Payload { msg: pt, aad };
        let want = match key.len() {
            16 => aes_gcm::Aes128Gcm::new_from_slice(key)
                .unwrap()
                .encrypt(nonce.into(), payload),
            24 => aes_gcm::AesGcm::<aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
                .unwrap()
                .encrypt(nonce.into(), payload),
            _ => aes_gcm::Aes256Gcm::new_from_slice(key)
                .unwrap()
                .encrypt(nonce.into(), payload),
        }
        .map_err(|e| format!("{e:?}"))?;
        let g = Gcm::new(b, key);
        let sealed = g.seal_vec(nonce, aad, pt)?;
        check_eq(
            &format!("case {i} (key {}, len {})", key.len(), pt.len()),
            &sealed,
            &want,
        )?;
        let opened = g.open_vec(nonce, aad, &sealed)?;
        check_eq(&format!("case {i} open"), &opened, pt)?;
    }
    Ok(())
}

/// The shared length table at AES's block and the ymm kernel's stride (16
/// blocks per iteration; every length to 1024 covers the zmm kernel's
/// 32-block loop and 16-block step, and the multiples of 256 its
/// boundaries beyond).
fn lens() -> Vec<usize> {
    lengths(16, 16 * 16)
}

/// Every length of the table, with AAD lengths 0..=40, against the
/// portable pair; in-place and allocating forms agree.
fn vs_portable_lengths(b: Backend) -> TestResult {
    let mut r = rng(0xAE5_0003);
    let lens = lens();
    for key_len in [16usize, 24, 32] {
        let key: Vec<u8> = (0..key_len).map(|_| r.random()).collect();
        let g = Gcm::new(b, &key);
        let oracle = Gcm::new(Backend::Portable, &key);
        for &len in &lens {
            let pt = painted(len);
            let aad: Vec<u8> = (0..len % 41).map(|i| i as u8).collect();
            let nonce: [u8; 12] = r.random();
            let want = oracle.seal_vec(&nonce, &aad, &pt)?;
            let mut buf = pt.clone();
            let tag = g.seal(&nonce, &aad, &mut buf)?;
            buf.extend_from_slice(&tag);
            check_eq(&format!("key {key_len} len {len}"), &buf, &want)?;
            check_eq(
                &format!("key {key_len} len {len} seal_vec"),
                &g.seal_vec(&nonce, &aad, &pt)?,
                &want,
            )?;
            check_eq(
                &format!("key {key_len} len {len} open"),
                &g.open_vec(&nonce, &aad, &want)?,
                &pt,
            )?;
        }
    }
    Ok(())
}

/// Every AAD length from 0 to 100 bytes (short AAD is hashed in the same
/// batch as a short message, longer AAD on its own, with its last partial
/// block read in place) with message lengths around the short path's
/// block and pair boundaries and past it, against the portable pair: seal
/// in place, open, and a wrong tag that must wipe.
fn aad_lengths(b: Backend) -> TestResult {
    let mut r = rng(0xAE5_0006);
    for key_len in [16usize, 32] {
        let key: Vec<u8> = (0..key_len).map(|_| r.random()).collect();
        let g = Gcm::new(b, &key);
        let oracle = Gcm::new(Backend::Portable, &key);
        for aad_len in 0..=100 {
            let aad: Vec<u8> = (0..aad_len).map(|_| r.random()).collect();
            for len in [
                0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 300,
            ] {
                let what = format!("key {key_len} AAD {aad_len} len {len}");
                let pt = painted(len);
                let nonce: [u8; 12] = r.random();
                let want = oracle.seal_vec(&nonce, &aad, &pt)?;
                let mut buf = pt.clone();
                let tag = g.seal(&nonce, &aad, &mut buf)?;
                buf.extend_from_slice(&tag);
                check_eq(&what, &buf, &want)?;
                let mut ct = want[..len].to_vec();
                g.open(&nonce, &aad, &mut ct, &want[len..])?;
                check_eq(&format!("{what} open"), &ct, &pt)?;
                let mut ct = want[..len].to_vec();
                let mut bad = want[len..].to_vec();
                bad[0] ^= 1;
                if g.open(&nonce, &aad, &mut ct, &bad).is_ok() || ct.iter().any(|&x| x != 0) {
                    return Err(format!("{what}: a wrong tag was accepted or left bytes").into());
                }
            }
        }
    }
    Ok(())
}

/// Open is one fused pass that decrypts while it hashes, so a forgery is
/// detected only after the buffer holds plaintext: at every length of the
/// table (the short path, one loop iteration, many, every tail) and each
/// key size, a wrong tag, a flipped ciphertext bit or wrong AAD must leave
/// the buffer all zeros (not the ciphertext, not the plaintext), in place
/// and through the allocating form.
fn failed_open_wipes(b: Backend) -> TestResult {
    let mut r = rng(0xAE5_0009);
    for key_len in [16usize, 24, 32] {
        let key: Vec<u8> = (0..key_len).map(|_| r.random()).collect();
        let g = Gcm::new(b, &key);
        for len in lens() {
            let pt: Vec<u8> = (0..len).map(|_| r.random::<u8>() | 1).collect();
            let aad: Vec<u8> = (0..len % 23).map(|i| i as u8).collect();
            let nonce: [u8; 12] = r.random();
            let mut ct = pt.clone();
            let tag = g.seal(&nonce, &aad, &mut ct)?;
            let flip = r.random_range(0..8 * (len + 16));
            let mut tampered = ct.clone();
            let mut bad_tag = tag.clone();
            if flip < 8 * len {
                tampered[flip / 8] ^= 1 << (flip % 8);
            } else {
                bad_tag[flip / 8 - len] ^= 1 << (flip % 8);
            }
            let mut bad_aad = aad.clone();
            bad_aad.push(0);
            for (what, c, a, t) in [
                ("bit flip", &tampered, &aad, &bad_tag),
                ("wrong aad", &ct, &bad_aad, &tag),
            ] {
                let mut buf = c.clone();
                let got = g.open(&nonce, a, &mut buf, t);
                if got != Err(Error::Authentication) {
                    return Err(format!("key {key_len} len {len} {what}: {got:?}").into());
                }
                if buf.iter().any(|&x| x != 0) {
                    return Err(format!("key {key_len} len {len} {what}: not wiped").into());
                }
                let mut sealed = c.clone();
                sealed.extend_from_slice(t);
                let got = g.open_vec(&nonce, a, &sealed);
                if got != Err(Error::Authentication) {
                    return Err(format!("key {key_len} len {len} {what} (vec): {got:?}").into());
                }
            }
        }
    }
    Ok(())
}

/// Every input ends right before an unmapped page: the message (sealed,
/// opened and refused in place), the AAD (as long as the message), the
/// nonce, and the tag given to open. The x86 kernels load 32 bytes at a
/// time, so a tail read with a full-width load faults here instead of
/// passing. Key size, tag length and nonce length cycle with the length
/// (periods 3, 5 and 7: every combination within 105 consecutive lengths).
fn guard_page(b: Backend) -> TestResult {
    const TAG_LENS: [usize; 5] = [16, 12, 13, 8, 4];
    const NONCE_LENS: [usize; 7] = [12, 1, 8, 15, 16, 17, 60];
    let lens = lens();
    let mut aad_page = GuardPage::for_len(lens[lens.len() - 1]);
    let mut nonce_page = GuardPage::for_len(60);
    let mut tag_page = GuardPage::for_len(16);
    before_guard_page(&lens, |len, buf| {
        let key = painted([16, 24, 32][len % 3]);
        let tag_len = TAG_LENS[len % 5];
        let nonce = nonce_page.painted_tail(NONCE_LENS[len % 7]);
        let aad = aad_page.painted_tail(len);
        let want = Gcm::new(Backend::Portable, &key)
            .params(NonceLen::Any, tag_len)?
            .seal_vec(&painted(nonce.len()), &painted(len), &painted(len))?;
        let g = Gcm::new(b, &key).params(NonceLen::Any, tag_len)?;
        let tag = g.seal(nonce, aad, buf)?;
        check_eq("seal", &[&buf[..], &tag].concat(), &want)?;
        let tag = tag_page.tail_mut(tag_len);
        tag.copy_from_slice(&want[len..]);
        g.open(nonce, aad, buf, tag)?;
        check_eq("open", buf, &painted(len))?;
        buf.copy_from_slice(&want[..len]);
        tag[0] ^= 1;
        let refused = g.open(nonce, aad, buf, tag);
        let wiped = buf.iter().all(|&x| x == 0);
        if refused != Err(Error::Authentication) || !wiped {
            return Err(format!("wrong tag: {refused:?}, buffer wiped: {wiped}").into());
        }
        Ok(())
    })
}

fn errors(b: Backend) -> TestResult {
    let g = Gcm::new(b, &[7; 16]);
    let nonce = [1u8; 12];
    let pt = vec![0x5a; 300];
    let mut ct = pt.clone();
    let tag = g.seal(&nonce, b"aad", &mut ct)?;
    // Every refused open must zero the buffer it was given.
    let refused =
        |what: &str, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8], want: Error| {
            let res = g.open(nonce, aad, buf, tag);
            if res != Err(want) {
                return Err(format!("{what}: got {res:?}, want {want:?}"));
            }
            if buf.iter().any(|&x| x != 0) {
                return Err(format!("{what}: buffer not zeroed"));
            }
            Ok(())
        };
    // Wrong tag, AAD, nonce, ciphertext: authentication error.
    let auth = Error::Authentication;
    let mut bad_tag = tag.clone();
    bad_tag[15] ^= 1;
    let mut bad_ct = ct.clone();
    bad_ct[299] ^= 0x80;
    refused(
        "flipped tag bit",
        &nonce,
        b"aad",
        &mut ct.clone(),
        &bad_tag,
        auth,
    )?;
    refused("other aad", &nonce, b"aaD", &mut ct.clone(), &tag, auth)?;
    refused("other nonce", &[2; 12], b"aad", &mut ct.clone(), &tag, auth)?;
    refused(
        "flipped ciphertext bit",
        &nonce,
        b"aad",
        &mut bad_ct,
        &tag,
        auth,
    )?;
    // Truncated tag on a 16-byte-tag cipher.
    let short = Error::TagLength { got: 12 };
    refused(
        "truncated tag",
        &nonce,
        b"aad",
        &mut ct.clone(),
        &tag[..12],
        short,
    )?;
    // Wrong nonce lengths on a 96-bit-nonce cipher.
    for n in [0usize, 8, 11, 13, 16] {
        let what = format!("nonce length {n}");
        let want = Error::NonceLength { got: n };
        refused(&what, &vec![1; n], b"aad", &mut ct.clone(), &tag, want)?;
        let mut buf = pt.clone();
        if g.seal(&vec![1; n], b"", &mut buf) != Err(Error::NonceLength { got: n }) || buf != pt {
            return Err(
                format!("seal with nonce length {n} must fail and leave the buffer").into(),
            );
        }
    }
    // The allocating open returns nothing on failure.
    let mut sealed = g.seal_vec(&nonce, b"aad", &pt)?;
    sealed[0] ^= 1;
    if g.open_vec(&nonce, b"aad", &sealed) != Err(Error::Authentication) {
        return Err("open_vec accepted a modified ciphertext".into());
    }
    // Shorter than a tag: the error names the input's length as such, not
    // as a tag length (it used to say "wrong tag length 10").
    let short = g.open_vec(&nonce, b"aad", &sealed[..10]);
    if short
        != Err(Error::SealedTooShort {
            got: 10,
            tag_len: 16,
        })
    {
        return Err(format!("open_vec of a too-short input: {short:?}").into());
    }
    // Tag lengths GCM does not allow.
    for t in [0usize, 1, 7, 9, 11, 17] {
        if Gcm::new(b, &[0; 16]).params(NonceLen::Standard, t).is_ok() {
            return Err(format!("tag length {t} accepted").into());
        }
    }
    over_long(b)
}

/// Over-long input is refused before the buffer is touched: a 2^36-byte
/// buffer is reserved, not committed (MAP_NORESERVE), and never read.
#[cfg(all(unix, target_pointer_width = "64"))]
fn over_long(b: Backend) -> TestResult {
    let len = fastcrypt::aes_gcm::P_MAX as usize + 16;
    // SAFETY: anonymous private mapping, no address hint.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err("mmap of 64 GiB (MAP_NORESERVE) failed".into());
    }
    // SAFETY: the mapping is `len` bytes, readable and writable, owned here.
    let huge = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
    let g = Gcm::new(b, &[7; 16]);
    let r1 = g.seal(&[0; 12], b"", huge);
    let r2 = g.open(&[0; 12], b"", huge, &[0; 16]);
    // SAFETY: unmaps exactly the mapping made above.
    unsafe { libc::munmap(p, len) };
    if r1 != Err(Error::MessageTooLong) || r2 != Err(Error::MessageTooLong) {
        return Err(format!("over-long input: seal {r1:?}, open {r2:?}").into());
    }
    Ok(())
}

#[cfg(not(all(unix, target_pointer_width = "64")))]
fn over_long(_: Backend) -> TestResult {
    Ok(())
}

/// GCM's counter is the last 32 bits only (inc32). With a non-96-bit
/// nonce, J0 can sit just below 2^32; the kernels must wrap those 32 bits
/// and leave the other 96 alone. The nonce below was found by search so
/// that J0 ends in ffff ff?? for this key (the test recomputes J0 with the
/// public GHASH to prove it), and 4 KiB then crosses the wrap.
fn counter_wrap(b: Backend) -> TestResult {
    use aes::cipher::{BlockCipherEncrypt, KeyInit};
    let key = [0x2b; 16];
    let nonce = hex::decode(WRAP_NONCE).unwrap();
    // J0 = GHASH_H(nonce || pad || 0^64 || [len(nonce)]64), H = E(K, 0).
    let mut h = aes::cipher::Array::from([0u8; 16]);
    aes::Aes128::new(&key.into()).encrypt_block(&mut h);
    let mut gh =
        fastcrypt::ghash::GHash::with_backend(fastcrypt::ghash::Backend::Portable, &h).unwrap();
    gh.update_padded(&nonce);
    let mut lens = [0u8; 16];
    lens[8..].copy_from_slice(&(nonce.len() as u64 * 8).to_be_bytes());
    gh.update(&[lens]);
    let j0 = gh.finalize();
    let low = u32::from_be_bytes(j0[12..].try_into().unwrap());
    if low < 0xffff_ff00 {
        return Err(format!("nonce does not put J0 near the wrap: low word {low:#x}").into());
    }
    let pt = vec![0u8; 4096 + 5];
    let g = Gcm::new(b, &key).params(NonceLen::Any, 16)?;
    let want = openssl::symm::encrypt_aead(
        openssl::symm::Cipher::aes_128_gcm(),
        &key,
        Some(&nonce),
        b"",
        &pt,
        &mut [0u8; 16],
    )
    .map_err(|e| e.to_string())?;
    let mut buf = pt.clone();
    g.seal(&nonce, b"", &mut buf)?;
    check_eq("across the 32-bit counter wrap", &buf, &want)
}

/// Found by search (see `counter_wrap`): with key 2b..2b, J0 ends in ffffffc8.
const WRAP_NONCE: &str = "0000000001009c870000000000000000";

/// The `aead` traits, used generically as code written for RustCrypto's
/// `aes-gcm` would: `KeyInit`, `Aead` (allocating), `AeadInOut` with a
/// separate output buffer pre-filled with garbage.
fn aead_traits(b: Backend) -> TestResult {
    use aead::{inout::InOutBuf, Aead, AeadInOut, KeyInit, Payload};
    fn roundtrip<A: Aead + AeadInOut + aead::AeadCore<NonceSize = aead::consts::U12>>(
        a: &A,
        key_desc: &str,
    ) -> TestResult {
        let nonce = aead::Nonce::<A>::from([3u8; 12]);
        for len in [0usize, 1, 16, 17, 255, 256, 1000] {
            let pt: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let sealed = a
                .encrypt(
                    &nonce,
                    Payload {
                        msg: &pt,
                        aad: b"ad",
                    },
                )
                .map_err(|e| format!("{e:?}"))?;
            let opened = a
                .decrypt(
                    &nonce,
                    Payload {
                        msg: &sealed,
                        aad: b"ad",
                    },
                )
                .map_err(|e| format!("{e:?}"))?;
            check_eq(
                &format!("{key_desc} len {len} Aead round trip"),
                &opened,
                &pt,
            )?;
            // In -> out with garbage in the output buffer first.
            let mut out = vec![0xEE; len];
            let buf = InOutBuf::new(&pt, &mut out).unwrap();
            let tag = a
                .encrypt_inout_detached(&nonce, b"ad", buf)
                .map_err(|e| format!("{e:?}"))?;
            check_eq(
                &format!("{key_desc} len {len} inout ct"),
                &out,
                &sealed[..len],
            )?;
            check_eq(
                &format!("{key_desc} len {len} inout tag"),
                &tag,
                &sealed[len..],
            )?;
            let mut back = vec![0x11; len];
            let buf = InOutBuf::new(&out, &mut back).unwrap();
            a.decrypt_inout_detached(&nonce, b"ad", buf, &tag)
                .map_err(|e| format!("{e:?}"))?;
            check_eq(&format!("{key_desc} len {len} inout pt"), &back, &pt)?;
            let mut bad = sealed.clone();
            if let Some(x) = bad.last_mut() {
                *x ^= 1;
            }
            if a.decrypt(
                &nonce,
                Payload {
                    msg: &bad,
                    aad: b"ad",
                },
            )
            .is_ok()
            {
                return Err(format!("{key_desc} len {len}: forged tag accepted").into());
            }
        }
        Ok(())
    }
    roundtrip(&Aes128Gcm::with_backend(b, &[1; 16]).unwrap(), "128")?;
    roundtrip(&Aes192Gcm::with_backend(b, &[1; 24]).unwrap(), "192")?;
    roundtrip(&Aes256Gcm::with_backend(b, &[1; 32]).unwrap(), "256")?;
    // KeyInit builds the default backend; the result matches RustCrypto.
    let ours = <Aes128Gcm as KeyInit>::new(&[9u8; 16].into());
    let theirs = <aes_gcm::Aes128Gcm as aes_gcm::aead::KeyInit>::new(&[9u8; 16].into());
    let n = [5u8; 12];
    let a = Aead::encrypt(&ours, &n.into(), &b"payload"[..]).map_err(|e| format!("{e:?}"))?;
    let t = aes_gcm::aead::Aead::encrypt(&theirs, &n.into(), &b"payload"[..])
        .map_err(|e| format!("{e:?}"))?;
    check_eq("KeyInit vs RustCrypto", &a, &t)?;
    // A clone is the same cipher and outlives the original (each holds its
    // own keys), as RustCrypto's `AesGcm` is `Clone`.
    let orig = Aes128Gcm::with_backend(b, &[7; 16])?;
    let copy = orig.clone();
    let mut x = *b"cloned cipher";
    let t1 = orig.seal_in_place_detached(&n, b"ad", &mut x)?;
    drop(orig);
    let mut y = *b"cloned cipher";
    let t2 = copy.seal_in_place_detached(&n, b"ad", &mut y)?;
    check_eq("clone ciphertext", &y, &x)?;
    check_eq("clone tag", t2.as_ref(), t1.as_ref())?;
    roundtrip(&copy, "128 clone")?;
    // Through the traits, a cipher set to shorter tags is refused before
    // its buffer is touched.
    let short = Aes128Gcm::with_backend(b, &[7; 16])?
        .with_params(fastcrypt::aes_gcm::NonceLen::Standard, 12)?;
    let mut buf = *b"plaintext";
    let r = short.encrypt_inout_detached(&n.into(), b"", (&mut buf[..]).into());
    if r.is_ok() || &buf != b"plaintext" {
        return Err(format!("12-byte-tag cipher through AeadInOut: {r:?}, buffer {buf:?}").into());
    }
    // Keys in every type the constructors take seal alike on this backend.
    let raw = [0x5au8; 32];
    let key = fastcrypt::aes_gcm::Key::<Aes256Gcm>::from(raw);
    let mut want = *b"sixteen byte msg and more";
    let tag = Aes256Gcm::with_backend(b, &raw)?.seal_in_place_detached(&n, b"", &mut want)?;
    for (what, g) in [
        ("Key", Aes256Gcm::with_backend(b, &key)?),
        ("&Key", Aes256Gcm::with_backend(b, &&key)?),
    ] {
        let mut buf = *b"sixteen byte msg and more";
        let t = g.seal_in_place_detached(&n, b"", &mut buf)?;
        check_eq(&format!("{what} ciphertext"), &buf, &want)?;
        check_eq(&format!("{what} tag"), t.as_ref(), tag.as_ref())?;
    }
    match Aes256Gcm::new_from_slice(&raw[..31]) {
        Err(e) if e.got == 31 && e.want == 32 => Ok(()),
        other => Err(format!("31-byte AES-256 key: {:?}", other.map(|g| g.backend())).into()),
    }
}
