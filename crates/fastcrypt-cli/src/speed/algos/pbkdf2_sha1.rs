//! PBKDF2-HMAC-SHA1 with 4096 iterations (WPA2-PSK's count, and the
//! Kerberos AES enctypes' default): every fastcrypt backend, RustCrypto
//! (`pbkdf2::pbkdf2::<Hmac<sha1::Sha1>>`), ring (`ring::pbkdf2`) and
//! OpenSSL (`PKCS5_PBKDF2_HMAC`). The size is the derived key's length:
//! 20 bytes is one output block (one chain of 2 x 4096 compressions),
//! 32 bytes (a WPA2 PMK) two. The time per derivation (ns/op) is the
//! figure; MB/s counts derived bytes and says little here.
//!
//! `pbkdf2-sha1-many` is the batch form (`Sha1Many::pbkdf2_hmac_sha1_into`):
//! one operation derives a key for each of [`BATCH`] passwords with one
//! salt (`PBKDF2_4096_20_x64`, `PBKDF2_4096_32_x64`), so ns/op is the
//! whole batch and MB/s the aggregate (every derived byte of the batch).
//! Its rows: `auto`, every `sha1::many::Backend`, as the reference
//! `pbkdf2-sha1` (the one-password `auto` on each password in turn), and
//! the peers, each password in turn (they have no batch form). So
//! `--compare pbkdf2-sha1,auto` is the batch's aggregate rate over the
//! one-password rate.

use super::{
    backend_rows, op, Algorithm, BufferUse, CustomRows, Implementation, Op, Params, RowNames,
};
use crate::backends::backend_table;
use fastcrypt::sha1::many::{self, Sha1Many};
use fastcrypt::sha1::{Backend, HmacSha1};
use std::hint::black_box;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "pbkdf2-sha1",
    go_family: "PBKDF2SHA1",
    default_sizes: SIZES,
    rows: RowNames::Prefixed("PBKDF2_4096_"),
    // Output lengths up to 16 KiB at 4096 iterations would take minutes.
    sweeps: false,
    min_size: 1,
    // PBKDF2 runs on SHA-1's backends.
    takes_aad: false,
    buffer: BufferUse::Written,
    backends: backend_table::<Backend>,
    implementations,
};

/// One output block, and a WPA2 PMK (two).
const SIZES: &[usize] = &[20, 32];

const ITERATIONS: u32 = 4096;
const PASSWORD: &[u8] = b"correct horse battery staple";
const SALT: &[u8] = b"ThisIsASSID";

fn implementations(_: &Params) -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(op(|buf| {
        fastcrypt::sha1::pbkdf2_hmac_sha1(PASSWORD, SALT, ITERATIONS, buf).expect("valid");
        black_box(buf);
    }))];
    v.extend(backend_rows(|b: Backend| {
        HmacSha1::with_backend(b, PASSWORD).ok()?;
        Some(op(move |buf| {
            if let Ok(key) = HmacSha1::with_backend(b, PASSWORD) {
                key.pbkdf2(SALT, ITERATIONS, buf).expect("valid");
            }
            black_box(buf);
        }))
    }));
    v.push(
        Implementation::peer(
            "rustcrypto",
            "rustcrypto",
            Ok(op(|buf| {
                pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>>(PASSWORD, SALT, ITERATIONS, buf)
                    .expect("valid");
                black_box(buf);
            })),
        )
        .about("pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>>"),
    );
    v.push(
        Implementation::peer(
            "ring",
            "ring",
            Ok(op(|buf| {
                ring::pbkdf2::derive(
                    ring::pbkdf2::PBKDF2_HMAC_SHA1,
                    ITERATIONS.try_into().expect("non-zero"),
                    SALT,
                    PASSWORD,
                    buf,
                );
                black_box(buf);
            })),
        )
        .about("ring::pbkdf2::derive(PBKDF2_HMAC_SHA1)"),
    );
    v.push(
        Implementation::peer(
            "openssl",
            "openssl",
            Ok(op(|buf| {
                openssl::pkcs5::pbkdf2_hmac(
                    PASSWORD,
                    SALT,
                    ITERATIONS as usize,
                    openssl::hash::MessageDigest::sha1(),
                    buf,
                )
                .expect("PKCS5_PBKDF2_HMAC");
                black_box(buf);
            })),
        )
        .about("PKCS5_PBKDF2_HMAC with EVP_sha1"),
    );
    v
}

pub static PBKDF2_SHA1_MANY: Algorithm = Algorithm {
    name: "pbkdf2-sha1-many",
    go_family: "PBKDF2SHA1Many",
    default_sizes: SIZES,
    rows: RowNames::Custom(&BATCHES),
    sweeps: false,
    min_size: 1,
    takes_aad: false,
    buffer: BufferUse::Written,
    backends: backend_table::<many::Backend>,
    implementations: batch_rows,
};

/// How many passwords one batch operation derives keys for.
const BATCH: usize = 64;

static BATCHES: CustomRows = CustomRows {
    name: batch_name,
    bytes: batch_bytes,
    about: batch_about,
};

fn batch_name(key_len: usize) -> String {
    format!("PBKDF2_{ITERATIONS}_{key_len}_x{BATCH}")
}

/// Every key of the batch: what the buffer holds and MB/s counts.
fn batch_bytes(key_len: usize) -> usize {
    BATCH * key_len
}

fn batch_about() -> String {
    format!(
        "sizes are key lengths; one operation derives a key for each of {BATCH} passwords \
         (PBKDF2_{ITERATIONS}_N_x{BATCH}), MB/s counts all {BATCH} keys"
    )
}

/// The batch's passwords: WPA2-like passphrases of 8 to 63 bytes, all
/// different.
fn passwords() -> Vec<Vec<u8>> {
    (0..BATCH)
        .map(|i| {
            let mut p = format!("{i:02} correct horse battery staple ").into_bytes();
            p.resize(8 + i * 55 / (BATCH - 1), b'x');
            p
        })
        .collect()
}

/// A batch row: derives every password's key into the buffer, `key_len`
/// bytes each (from [`Op::prepare`]).
struct BatchOp<F> {
    row: F,
    passwords: Vec<Vec<u8>>,
    key_len: usize,
}

fn batch_op(row: impl FnMut(&[Vec<u8>], usize, &mut [u8]) + 'static) -> Box<dyn Op> {
    Box::new(BatchOp {
        row,
        passwords: passwords(),
        key_len: 0,
    })
}

impl<F: FnMut(&[Vec<u8>], usize, &mut [u8])> Op for BatchOp<F> {
    fn prepare(&mut self, size: usize) {
        self.key_len = size;
    }

    #[inline(never)]
    fn run(&mut self, buf: &mut [u8], iters: u64) {
        assert_eq!(
            buf.len(),
            batch_bytes(self.key_len),
            "not the cell `prepare` saw"
        );
        for _ in 0..iters {
            (self.row)(
                black_box(&self.passwords),
                self.key_len,
                black_box(&mut *buf),
            );
            black_box(&mut *buf);
        }
    }
}

fn batch(h: Sha1Many, passwords: &[Vec<u8>], key_len: usize, out: &mut [u8]) {
    h.pbkdf2_hmac_sha1_into(passwords, SALT, ITERATIONS, key_len, out)
        .expect("valid");
}

/// Each password in turn, by a one-password function.
fn each(
    mut one: impl FnMut(&[u8], &mut [u8]) + 'static,
) -> impl FnMut(&[Vec<u8>], usize, &mut [u8]) + 'static {
    move |passwords, key_len, out| {
        for (p, key) in passwords.iter().zip(out.chunks_mut(key_len)) {
            one(p, key);
        }
    }
}

fn batch_rows(_: &Params) -> Vec<Implementation> {
    let auto = batch_op(|p, len, out| batch(Sha1Many::new(), p, len, out));
    let mut v = vec![Implementation::auto(auto).about("Sha1Many::new().pbkdf2_hmac_sha1_into")];
    v.extend(backend_rows(|b: many::Backend| {
        Sha1Many::with_backend(b).ok()?;
        Some(batch_op(move |p, len, out| {
            if let Ok(h) = Sha1Many::with_backend(b) {
                batch(h, p, len, out);
            }
        }))
    }));
    v.push(
        Implementation::reference_as(
            "pbkdf2-sha1",
            "one password",
            batch_op(each(|p, key| {
                fastcrypt::sha1::pbkdf2_hmac_sha1(p, SALT, ITERATIONS, key).expect("valid");
            })),
        )
        .about(
            "fastcrypt's one-password pbkdf2_hmac_sha1 (auto) on each password in turn: \
             ratios to it are the batch's speed-up",
        ),
    );
    v.push(
        Implementation::peer(
            "rustcrypto",
            "rustcrypto",
            Ok(batch_op(each(|p, key| {
                pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>>(p, SALT, ITERATIONS, key).expect("valid");
            }))),
        )
        .about("pbkdf2::pbkdf2::<hmac::Hmac<sha1::Sha1>> on each password in turn"),
    );
    v.push(
        Implementation::peer(
            "ring",
            "ring",
            Ok(batch_op(each(|p, key| {
                ring::pbkdf2::derive(
                    ring::pbkdf2::PBKDF2_HMAC_SHA1,
                    ITERATIONS.try_into().expect("non-zero"),
                    SALT,
                    p,
                    key,
                );
            }))),
        )
        .about("ring::pbkdf2::derive(PBKDF2_HMAC_SHA1) on each password in turn"),
    );
    v.push(
        Implementation::peer(
            "openssl",
            "openssl",
            Ok(batch_op(each(|p, key| {
                openssl::pkcs5::pbkdf2_hmac(
                    p,
                    SALT,
                    ITERATIONS as usize,
                    openssl::hash::MessageDigest::sha1(),
                    key,
                )
                .expect("PKCS5_PBKDF2_HMAC");
            }))),
        )
        .about("PKCS5_PBKDF2_HMAC with EVP_sha1 on each password in turn"),
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row derives the same key (run once per size).
    #[test]
    fn rows_agree() {
        for &size in SIZES {
            let mut want = vec![0u8; size];
            fastcrypt::sha1::pbkdf2_hmac_sha1(PASSWORD, SALT, ITERATIONS, &mut want).unwrap();
            for i in implementations(&Params::default()) {
                let Ok(mut op) = i.op else { continue };
                let mut buf = vec![0u8; size];
                op.run(&mut buf, 1);
                assert_eq!(buf, want, "{} {size}", i.name);
            }
        }
    }

    /// Every batch row derives every password's key, as the one-password
    /// function does (at a cheaper iteration count would not test the
    /// rows as measured: they are run as registered, once per size).
    #[test]
    fn batch_rows_agree() {
        let passwords = passwords();
        assert_eq!(passwords.len(), BATCH);
        assert!(passwords.iter().all(|p| (8..=63).contains(&p.len())));
        for &size in SIZES {
            let mut want = vec![0u8; batch_bytes(size)];
            for (p, key) in passwords.iter().zip(want.chunks_mut(size)) {
                fastcrypt::sha1::pbkdf2_hmac_sha1(p, SALT, ITERATIONS, key).unwrap();
            }
            for i in batch_rows(&Params::default()) {
                let Ok(mut op) = i.op else { continue };
                op.prepare(size);
                let mut buf = vec![0u8; batch_bytes(size)];
                op.run(&mut buf, 1);
                assert!(buf == want, "{} {size}", i.name);
            }
        }
        assert_eq!(batch_name(20), "PBKDF2_4096_20_x64");
    }
}
