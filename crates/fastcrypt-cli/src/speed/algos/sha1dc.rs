//! Collision-detecting SHA-1 (sha1dc): every fastcrypt backend of
//! `Sha1Dc`, fastcrypt's plain SHA-1 as the reference rows (`sha1`, the
//! default, and `sha1-<backend>` for each backend: the ratio to them is
//! what detection costs, overall and per kernel), and the Rust crates that detect the same
//! attacks: RustCrypto's `sha1-checked`, `sha1collisiondetection` (a port
//! of the reference C library) and `sha1dc` (SHA-NI plus a SIMD filter).
//!
//! Every detecting row runs the reference's default configuration:
//! detection on, with the unavoidable-bit-condition filter and the safe
//! hash (a block found to be part of an attack is compressed three times).
//! One operation hashes one message from a fresh state and finalizes,
//! reading the detection result as well as the digest, as a caller must.
//! Each operation hashes a different message: the row walks windows of
//! the cell's size through [`POOL`] bytes of the speed lab's random data.
//! The detectors branch on what their filters find in each block, and a
//! buffer hashed over and over lets the branch predictor learn those
//! outcomes: on an Intel Xeon (Sapphire Rapids class) one repeated 8 KiB
//! buffer made our detector look 1.25x faster per byte than 1 MiB did,
//! and ranked the SHA-NI kernel's filter prefixes the wrong way round.
//! Real inputs (the objects of a repository, the pieces of a torrent)
//! do not repeat.

use super::{backend_rows, op, Algorithm, BufferUse, Implementation, Op, Params, RowNames};
use crate::backends::backend_table;
use crate::speed::engine::paint;
use fastcrypt::sha1::Backend;
use std::hint::black_box;
use std::sync::OnceLock;

pub static ALGORITHM: Algorithm = Algorithm {
    name: "sha1dc",
    go_family: "SHA1DC",
    default_sizes: SIZES,
    rows: RowNames::Hash,
    sweeps: true,
    min_size: 0,
    // `Sha1Dc` runs on SHA-1's backends.
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations,
};

/// The classic hash sizes, and 1 MiB, where the per-block cost of
/// detection is all that is left.
const SIZES: &[usize] = &[8, 1 << 10, 8 << 10, 1 << 20];

/// What one row computes for one message: the digest, and whether the
/// message was found to be part of a collision attack.
type Hashed = ([u8; 20], bool);

/// The bytes the rows walk through: more blocks (131,072) than a branch
/// predictor can learn, few enough to stay in a server's last-level
/// cache.
const POOL: usize = 8 << 20;

fn pool() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| paint(POOL))
}

/// One row's operation: `f` on the next window of [`pool`], or on the
/// cell's buffer where the size leaves no room to walk (over half the
/// pool, e.g. `--sizes 64M`).
fn timed(f: impl Fn(&[u8]) -> Hashed + 'static) -> Box<dyn Op> {
    let pool = pool();
    let mut at = 0;
    op(move |buf| {
        let len = buf.len();
        if 2 * len > pool.len() {
            black_box(f(buf));
            return;
        }
        if at + len > pool.len() {
            at = 0;
        }
        black_box(f(&pool[at..at + len]));
        at += len;
    })
}

fn implementations(_: &Params) -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(timed(fastcrypt_auto))];
    v.extend(backend_rows(|b: Backend| fastcrypt_backend(b).map(timed)));
    v.push(Implementation::reference("sha1", timed(plain_sha1)).about(
        "fastcrypt's plain SHA-1 (sha1::digest, auto): ratios to it are the cost of detection",
    ));
    v.extend(Implementation::plain_backends(
        "sha1",
        "fastcrypt's plain SHA-1 on this backend: `--compare sha1-X,X` is what detection costs on kernel X",
        |b: Backend| plain_backend(b).map(timed),
    ));
    v.push(
        Implementation::peer("rustcrypto", "sha1-checked", Ok(timed(sha1_checked)))
            .about("sha1_checked::Sha1::new() (detection, safe hash), try_finalize"),
    );
    v.push(
        Implementation::peer(
            "sha1collisiondetection",
            "sha1collisiondetection",
            Ok(timed(sha1collisiondetection)),
        )
        .about("Sha1CD::default() (detection, safe hash), finalize_into_dirty_cd"),
    );
    v.push(
        Implementation::peer("sha1dc", "sha1dc", Ok(timed(sha1dc_crate))).about(
            "sha1dc::mitigate::digest (detection, safe hash; its plain Hasher differs only on attack data)",
        ),
    );
    v
}

/// `auto`: the one-shot API a user calls.
fn fastcrypt_auto(buf: &[u8]) -> Hashed {
    let d = fastcrypt::sha1::digest_dc(buf);
    (d.digest, d.is_collision())
}

/// A forced backend: `auto`'s one-shot with the backend chosen
/// (`digest_dc_with`), so a row and `auto` on the same kernel run the
/// same code.
fn fastcrypt_backend(b: Backend) -> Option<impl Fn(&[u8]) -> Hashed> {
    b.is_available().then_some(())?;
    Some(move |buf: &[u8]| {
        let d = fastcrypt::sha1::digest_dc_with(b, buf).expect("checked available above");
        (d.digest, d.is_collision())
    })
}

/// A plain SHA-1 backend, the one-shot with the backend chosen
/// (`digest_with`), as for the detecting rows.
fn plain_backend(b: Backend) -> Option<impl Fn(&[u8]) -> Hashed> {
    b.is_available().then_some(())?;
    Some(move |buf: &[u8]| {
        let d = fastcrypt::sha1::digest_with(b, buf).expect("checked available above");
        (d, false)
    })
}

/// The reference: plain SHA-1, no detection.
fn plain_sha1(buf: &[u8]) -> Hashed {
    (fastcrypt::sha1::digest(buf), false)
}

fn sha1_checked(buf: &[u8]) -> Hashed {
    use sha1_checked::Digest;
    let mut h = sha1_checked::Sha1::new();
    h.update(buf);
    let r = h.try_finalize();
    (bytes(r.hash()), r.has_collision())
}

fn sha1collisiondetection(buf: &[u8]) -> Hashed {
    let mut h = sha1collisiondetection::Sha1CD::default();
    h.update(buf);
    // `finalize_cd` drops the digest of attack data; this keeps it (the
    // safe hash).
    let mut out = sha1collisiondetection::Output::default();
    let attack = h.finalize_into_dirty_cd(&mut out).is_err();
    (bytes(&out), attack)
}

fn sha1dc_crate(buf: &[u8]) -> Hashed {
    match sha1dc::mitigate::digest(buf) {
        Ok(d) => (d.to_bytes(), false),
        Err(m) => (m.digest().to_bytes(), true),
    }
}

fn bytes(digest: &[u8]) -> [u8; 20] {
    let mut out = [0; 20];
    out.copy_from_slice(digest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (String, Box<dyn Fn(&[u8]) -> Hashed>);

    /// Every row but the reference, by name, as the table shows them.
    fn rows() -> Vec<Row> {
        let mut v: Vec<Row> = vec![
            ("auto".into(), Box::new(fastcrypt_auto)),
            ("sha1-checked".into(), Box::new(sha1_checked)),
            (
                "sha1collisiondetection".into(),
                Box::new(sha1collisiondetection),
            ),
            ("sha1dc".into(), Box::new(sha1dc_crate)),
        ];
        for b in Backend::available() {
            let f = fastcrypt_backend(b).expect("an available backend runs");
            v.push((b.to_string(), Box::new(f)));
        }
        v
    }

    /// The rows this file builds are the ones `implementations` lists.
    #[test]
    fn rows_are_the_registered_ones() {
        let registered: Vec<&str> = implementations(&Params::default())
            .into_iter()
            .filter(|i| i.op.is_ok())
            .map(|i| i.name)
            .collect();
        for (name, _) in rows() {
            assert!(registered.contains(&name.as_str()), "{name}");
        }
        assert!(registered.contains(&"sha1"));
        let plain: Vec<String> = Backend::available()
            .into_iter()
            .map(|b| format!("sha1-{b}"))
            .collect();
        for name in &plain {
            assert!(registered.contains(&name.as_str()), "{name}");
        }
        // The references, and every other runnable row, are checked below.
        assert_eq!(registered.len(), rows().len() + 1 + plain.len());
    }

    /// The per-backend references hash plain SHA-1, collision files too.
    #[test]
    fn plain_backend_rows_are_sha1() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fastcrypt/testdata/sha1dc");
        let attack = std::fs::read(format!("{dir}/shattered-1.pdf")).expect("testdata");
        for b in Backend::available() {
            let f = plain_backend(b).expect("an available backend runs");
            for len in [0, 8, 64, 1000, 8192] {
                let data = super::super::super::engine::paint(len);
                assert_eq!(f(&data), plain_sha1(&data), "sha1-{b} at {len} bytes");
            }
            assert_eq!(f(&attack), plain_sha1(&attack), "sha1-{b}");
        }
    }

    /// Ordinary data: every row gives plain SHA-1 and detects nothing, at
    /// the lengths around the padding's edges and the table's sizes,
    /// painted as the engine paints its buffers.
    #[test]
    fn every_row_is_sha1_on_ordinary_data() {
        let rows = rows();
        for &len in [0, 1, 8, 55, 56, 63, 64, 65, 1000].iter().chain(SIZES) {
            let data = super::super::super::engine::paint(len);
            let want = plain_sha1(&data);
            for (name, f) in &rows {
                assert_eq!(f(&data), want, "{name} at {len} bytes");
            }
        }
    }

    /// SHAttered: every detecting row flags both files and gives the same
    /// safe hash, which differs between the two files although their
    /// SHA-1 (the reference row) is the same.
    #[test]
    fn every_row_detects_shattered_with_the_safe_hash() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fastcrypt/testdata/sha1dc");
        let read = |f: &str| std::fs::read(format!("{dir}/{f}")).expect("testdata");
        let (one, two) = (read("shattered-1.pdf"), read("shattered-2.pdf"));
        assert_eq!(plain_sha1(&one), plain_sha1(&two), "the files collide");
        let safe = |data: &[u8]| {
            let d = fastcrypt::sha1::digest_dc(data);
            assert!(d.is_collision());
            d.digest
        };
        let (safe1, safe2) = (safe(&one), safe(&two));
        assert_ne!(safe1, safe2);
        assert_ne!(safe1, plain_sha1(&one).0);
        for (name, f) in rows() {
            assert_eq!(f(&one), (safe1, true), "{name}, shattered-1.pdf");
            assert_eq!(f(&two), (safe2, true), "{name}, shattered-2.pdf");
        }
    }
}
