//! The registry of measurable algorithms.
//!
//! Adding an algorithm is one file and one line: write `algos/<name>.rs`
//! declaring a `pub static ALGORITHM: Algorithm` (see `sha1.rs`), then add
//! `mod <name>;` and `&<name>::ALGORITHM` to [`ALL`] below. Nothing else in
//! the speed lab names an algorithm: options, the measurement engine and
//! every output format work from what the registration says.
//!
//! Conventions that keep the options uniform across algorithms:
//! - rows are `auto` (the library's default constructor), then every entry
//!   of the library's `Backend::ALL` (unavailable ones as n/a, never
//!   dropped), then, for a variant of a primitive (`sha1dc`, the
//!   multi-buffer `sha1-many`, AES-GCM's open), the plain primitive's
//!   `auto` as the reference row (for open: the seal), then the peers;
//! - a size is one message's length unless the algorithm says otherwise:
//!   pbkdf2-sha1's is the derived key's (and `sweeps: false`), and
//!   `RowNames::Custom` lets a size pick a workload (sha1-many's message
//!   sets), naming its rows and counting the bytes of one operation, which
//!   is what MB/s and cycles/B count;
//! - each algorithm's main OpenSSL row is called `openssl`, so `--compare
//!   openssl,auto` covers them all; other OpenSSL rows get a suffix
//!   (`openssl-evp`); a peer that cannot run here (OpenSSL's RC4 without
//!   the legacy provider) is an `Err` with the reason;
//! - a peer belongs to a group that `--peers` names; a new library needs
//!   its group added to [`PEER_GROUPS`];
//! - keyed primitives set the key up once, outside the measured loop, as
//!   Go's benchmarks do;
//! - what the options set for an operation besides its size (the AEADs'
//!   associated data, `--aad`) reaches the registration as [`Params`]; an
//!   algorithm says which of them it takes, and its row names carry the
//!   values that differ from the default (see [`Algorithm::row_name`]).

use crate::backends::BackendTable;
use fastcrypt::PrimitiveBackend;
use std::hint::black_box;

mod aes_gcm;
mod ghash;
mod hmac_sha1;
mod pbkdf2_sha1;
mod rc4;
mod sha1;
mod sha1_many;
mod sha1dc;

/// Every algorithm `fastcrypt speed` knows, in the order it lists them.
pub static ALL: &[&Algorithm] = &[
    &sha1::ALGORITHM,
    &sha1dc::ALGORITHM,
    &sha1_many::SHA1_MANY,
    &sha1_many::SHA1DC_MANY,
    &hmac_sha1::ALGORITHM,
    &pbkdf2_sha1::ALGORITHM,
    &pbkdf2_sha1::PBKDF2_SHA1_MANY,
    &rc4::ALGORITHM,
    &ghash::ALGORITHM,
    &aes_gcm::AES_128_GCM,
    &aes_gcm::AES_256_GCM,
    &aes_gcm::AES_128_GCM_OPEN,
    &aes_gcm::AES_256_GCM_OPEN,
];

/// One algorithm: its names, default sizes and implementations.
pub struct Algorithm {
    /// The command-line name, e.g. `sha1`.
    pub name: &'static str,
    /// The Go benchmark family, e.g. `SHA1` for `BenchmarkSHA1/Hash8K/shani`.
    pub go_family: &'static str,
    /// Sizes measured when `--sizes` is not given.
    pub default_sizes: &'static [usize],
    /// The row names, e.g. `Hash8Bytes`, `Hash1K`, `RC4_128`, and for an
    /// algorithm whose size is not one message's length, what it means.
    pub rows: RowNames,
    /// Whether `--sweep` measures it: false where the size is not a
    /// message length (pbkdf2-sha1's is the derived key's).
    pub sweeps: bool,
    /// The smallest size that means something: 0 for a message (the
    /// empty one is hashed or encrypted like any other), 1 where the size
    /// is a derived key's length (PBKDF2 derives no 0-byte key).
    pub min_size: usize,
    /// Whether `--aad` applies: an AEAD, whose every operation then
    /// authenticates [`Params::aad`] bytes of associated data besides the
    /// message (not counted in MB/s, as Go's and OpenSSL's AEAD
    /// benchmarks count them).
    pub takes_aad: bool,
    /// Whether its operations write the buffer they are handed.
    pub buffer: BufferUse,
    /// fastcrypt's backends for it, runnable here or not, slowest first,
    /// and the one its default constructor picks (`--backend` names,
    /// `--list` and the header's `auto` line).
    pub backends: fn() -> BackendTable,
    /// Every implementation, in table order: `auto`, each fastcrypt
    /// backend (unavailable ones too, as n/a), then the peers; their
    /// operations do what `Params` says.
    pub implementations: fn(&Params) -> Vec<Implementation>,
}

/// What an algorithm's operations do to the buffer they are handed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferUse {
    /// They only read it (hashes, MACs, GHASH): the cells of one size
    /// share one buffer, so a run holds each input once, not once per
    /// row (`sha1-many`'s default 64 MiB piece set, for instance, once
    /// instead of seven times). Measuring is one cell at a time, and
    /// every row hashes the same bytes as before.
    ReadOnly,
    /// They write it (ciphers in place, derived keys, AES-GCM open's
    /// alternating buffer): each cell has its own.
    Written,
}

impl Algorithm {
    /// The row name at `size` with `params`: [`RowNames::name`], and for
    /// associated data `_AD<bytes>` (`Seal_16_AD13`), so that results
    /// measured with different AAD never pass for the same benchmark
    /// (`benchcmp` pairs rows by name).
    pub fn row_name(&self, size: usize, params: &Params) -> String {
        let name = self.rows.name(size);
        match params.aad {
            n if self.takes_aad && n > 0 => format!("{name}_AD{n}"),
            _ => name,
        }
    }
}

/// What the options set for every operation besides its size. The
/// default is what a run without those options measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// Bytes of associated data per AEAD operation (`--aad`; 0: none).
    pub aad: usize,
}

impl Params {
    /// The associated data of one operation: `aad` bytes of a fixed
    /// pattern (any bytes do for timing).
    pub fn aad_bytes(&self) -> Vec<u8> {
        (0..self.aad)
            .map(|i| (i as u8).wrapping_mul(0x3b) ^ 0xa5)
            .collect()
    }
}

/// Where an implementation comes from; `--backend` selects fastcrypt's,
/// `--peers` the others by group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// fastcrypt's default choice (`auto`).
    Auto,
    /// A fastcrypt backend forced by name.
    Backend,
    /// fastcrypt's plain primitive a variant builds on (plain SHA-1 in
    /// `sha1dc`): ratios to it are the variant's cost, or its gain.
    /// `--backend` selects it, by its row name or with `all`. `how` says
    /// how the reference differs from the variant, for the tables: `plain`
    /// (no detection), `one stream` (one message at a time where the
    /// variant hashes many at once), `sealing` (AES-GCM's seal where the
    /// variant opens). `auto`: the primitive's default choice; otherwise a
    /// backend forced by name, the counterpart of the variant's own row of
    /// that backend (`sha1-ssse3` for sha1dc's `ssse3`).
    Reference { how: &'static str, auto: bool },
    /// Another library; the group is what `--peers` names (`openssl`, ...).
    Peer(&'static str),
}

/// Every peer group an algorithm may register, for `--peers` validation.
pub const PEER_GROUPS: &[&str] = &[
    "openssl",
    "rustcrypto",
    "ring",
    "sha1_smol",
    "sha1collisiondetection",
    "sha1dc",
];

/// One row of the tables: something that processes a buffer.
pub struct Implementation {
    /// The row name (`auto`, `shani`, `openssl`, `openssl-evp`, ...).
    pub name: &'static str,
    pub origin: Origin,
    /// The measured operation, or why it cannot run here (shown as
    /// `n/a (<reason>)`).
    pub op: Result<Box<dyn Op>, String>,
    /// What exactly is measured, when the name does not say (`--list`).
    pub about: &'static str,
}

impl Implementation {
    pub fn auto(op: Box<dyn Op>) -> Self {
        Implementation {
            name: "auto",
            origin: Origin::Auto,
            op: Ok(op),
            about: "",
        }
    }

    pub fn peer(group: &'static str, name: &'static str, op: Result<Box<dyn Op>, String>) -> Self {
        Implementation {
            name,
            origin: Origin::Peer(group),
            op,
            about: "",
        }
    }

    /// The reference row (see [`Origin::Reference`]), named after the
    /// plain primitive.
    pub fn reference(name: &'static str, op: Box<dyn Op>) -> Self {
        Self::reference_as(name, "plain", op)
    }

    /// A reference row that differs from the variant in `how`, e.g. `one
    /// stream`.
    pub fn reference_as(name: &'static str, how: &'static str, op: Box<dyn Op>) -> Self {
        Implementation {
            name,
            origin: Origin::Reference { how, auto: true },
            op: Ok(op),
            about: "",
        }
    }

    /// Plain reference rows for every backend of `B`, named
    /// `<prefix>-<backend>` (`sha1-ssse3`), runnable here or not (see
    /// [`backend_rows`]): paired with the variant's row of the same
    /// backend, they give the variant's cost on each kernel.
    pub fn plain_backends<B: PrimitiveBackend>(
        prefix: &str,
        about: &'static str,
        mut make: impl FnMut(B) -> Option<Box<dyn Op>>,
    ) -> Vec<Implementation> {
        B::ALL
            .iter()
            .map(|&b| Implementation {
                name: interned(format!("{prefix}-{}", b.name())),
                origin: Origin::Reference {
                    how: "plain",
                    auto: false,
                },
                op: make(b).ok_or_else(|| unavailable_text(b)),
                about,
            })
            .collect()
    }

    pub fn about(mut self, about: &'static str) -> Self {
        self.about = about;
        self
    }
}

/// A row for every backend of `B`, runnable here or not: `make` returns
/// the backend's operation, or `None` when it cannot run (the row then
/// says `n/a (needs ...)` or `n/a (not in this build)`).
pub fn backend_rows<B: PrimitiveBackend>(
    mut make: impl FnMut(B) -> Option<Box<dyn Op>>,
) -> Vec<Implementation> {
    B::ALL
        .iter()
        .map(|&b| Implementation {
            name: b.name(),
            origin: Origin::Backend,
            op: make(b).ok_or_else(|| unavailable_text(b)),
            about: "",
        })
        .collect()
}

/// A row name built at run time, kept for the life of the process (each
/// distinct name once: registrations are listed once per table cell).
fn interned(name: String) -> &'static str {
    use std::sync::Mutex;
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    match names.iter().find(|n| **n == name) {
        Some(n) => n,
        None => {
            let n: &'static str = Box::leak(name.into_boxed_str());
            names.push(n);
            n
        }
    }
}

/// The n/a reason for a backend that cannot run: the build left it out
/// (a portable-only build, another architecture), or this CPU lacks what
/// it needs. Blaming the CPU for the build would send users hunting for a
/// feature they have.
fn unavailable_text<B: PrimitiveBackend>(b: B) -> String {
    if !b.is_compiled() {
        "not in this build".into()
    } else {
        format!("needs {}", b.needs())
    }
}

/// A measured operation. One call runs `iters` operations on `buf`, the
/// input of one operation: `size` bytes, or for [`RowNames::Custom`] the
/// bytes it says (a whole message set); hashes read it, ciphers transform
/// it in place. The loop lives inside the implementation so that the
/// per-op cost includes no dynamic call.
pub trait Op {
    /// Called once per table cell, before anything is timed, with the
    /// cell's size: an operation whose input is not one message (a set of
    /// messages laid out in `buf`) learns its layout here, outside the
    /// measured loop. Most operations need nothing.
    fn prepare(&mut self, _size: usize) {}

    fn run(&mut self, buf: &mut [u8], iters: u64);
}

struct Looped<F>(F);

impl<F: FnMut(&mut [u8])> Op for Looped<F> {
    #[inline(never)]
    fn run(&mut self, buf: &mut [u8], iters: u64) {
        for _ in 0..iters {
            // black_box on the way in keeps the compiler from hoisting work
            // out of the loop; each closure black_boxes its result.
            (self.0)(black_box(&mut *buf));
        }
    }
}

/// Wraps "process one buffer" into an [`Op`]. The closure must pass its
/// result through `black_box`.
pub fn op(f: impl FnMut(&mut [u8]) + 'static) -> Box<dyn Op> {
    Box::new(Looped(f))
}

/// How an algorithm names its rows, in Go's style, and what one operation
/// at a size processes.
#[derive(Clone, Copy, Debug)]
pub enum RowNames {
    /// `Hash8Bytes`, `Hash320Bytes`, `Hash1K`, `Hash8K`.
    Hash,
    /// The prefix and the size: `RC4_128`, `RC4_1K`, `Seal_8K`.
    Prefixed(&'static str),
    /// A size that selects a workload rather than a message length
    /// (`sha1-many`'s message sets): the algorithm names the rows, counts
    /// the bytes of one operation and says what its sizes mean.
    Custom(&'static CustomRows),
}

/// See [`RowNames::Custom`].
#[derive(Debug)]
pub struct CustomRows {
    /// The row name at a size, e.g. `Many64x1K`.
    pub name: fn(usize) -> String,
    /// The bytes one operation at a size processes: the length of the
    /// buffer the engine hands the operation, and what MB/s and cycles/B
    /// count.
    pub bytes: fn(usize) -> usize,
    /// What the sizes mean, for `--list` (a few lines, no indentation).
    pub about: fn() -> String,
}

impl RowNames {
    /// The row name for `size` bytes (`Hash1M` for 1 MiB).
    pub fn name(self, size: usize) -> String {
        let (prefix, suffix) = match self {
            RowNames::Hash => ("Hash", "Bytes"),
            RowNames::Prefixed(prefix) => (prefix, ""),
            RowNames::Custom(c) => return (c.name)(size),
        };
        let text = super::options::size_text(size);
        if text.ends_with(|c: char| c.is_ascii_digit()) {
            format!("{prefix}{text}{suffix}")
        } else {
            format!("{prefix}{text}")
        }
    }

    /// The bytes one operation at `size` processes: `size` itself, except
    /// where [`RowNames::Custom`] says otherwise.
    pub fn bytes(self, size: usize) -> usize {
        match self {
            RowNames::Hash | RowNames::Prefixed(_) => size,
            RowNames::Custom(c) => (c.bytes)(size),
        }
    }

    /// What the sizes mean, when they are not message lengths.
    pub fn about(self) -> Option<String> {
        match self {
            RowNames::Hash | RowNames::Prefixed(_) => None,
            RowNames::Custom(c) => Some((c.about)()),
        }
    }
}

/// Default sizes by kind of primitive (the classic benchmark sizes).
pub const HASH_SIZES: &[usize] = &[8, 1024, 8192];
pub const STREAM_SIZES: &[usize] = &[128, 1024, 8192];
pub const AEAD_SIZES: &[usize] = &[16, 64, 1350, 8192, 16384];

/// Looks an algorithm up by its command-line name.
pub fn find(name: &str) -> Option<&'static Algorithm> {
    ALL.iter()
        .copied()
        .find(|a| a.name.eq_ignore_ascii_case(name))
}

/// `sha1, sha1dc, rc4, ...` for error messages and `--help`.
pub fn names() -> String {
    ALL.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_names_follow_size_text() {
        assert_eq!(RowNames::Hash.name(8), "Hash8Bytes");
        assert_eq!(RowNames::Hash.name(1350), "Hash1350Bytes");
        assert_eq!(RowNames::Hash.name(8 << 10), "Hash8K");
        assert_eq!(RowNames::Hash.name(1 << 20), "Hash1M");
        assert_eq!(RowNames::Hash.name(1536 << 10), "Hash1536K");
        assert_eq!(RowNames::Prefixed("Seal_").name(16), "Seal_16");
        assert_eq!(RowNames::Prefixed("RC4_").name(1 << 20), "RC4_1M");
    }

    /// Associated data shows in the AEADs' row names only, and only when
    /// there is some.
    #[test]
    fn row_names_carry_the_aad() {
        let aad = Params { aad: 13 };
        let gcm = find("aes-128-gcm").expect("registered");
        assert_eq!(gcm.row_name(16, &aad), "Seal_16_AD13");
        assert_eq!(gcm.row_name(16, &Params::default()), "Seal_16");
        assert_eq!(
            find("sha1").expect("registered").row_name(8, &aad),
            "Hash8Bytes"
        );
        let takers: Vec<&str> = ALL.iter().filter(|a| a.takes_aad).map(|a| a.name).collect();
        assert_eq!(
            takers,
            [
                "aes-128-gcm",
                "aes-256-gcm",
                "aes-128-gcm-open",
                "aes-256-gcm-open"
            ]
        );
        assert_eq!(aad.aad_bytes().len(), 13);
    }

    /// The contract behind [`BufferUse`]: a `ReadOnly` algorithm's
    /// operations leave their buffer as they found it (so its cells may
    /// share one), and a `Written` one's change it (so the sharing is not
    /// turned down for nothing).
    #[test]
    fn buffer_use_is_what_the_operations_do() {
        for a in ALL {
            let sizes: Vec<usize> = a
                .default_sizes
                .iter()
                .copied()
                .filter(|&s| a.rows.bytes(s) <= 1 << 20)
                .collect();
            assert!(!sizes.is_empty(), "{}", a.name);
            let mut some_wrote = false;
            for &size in &sizes {
                for imp in (a.implementations)(&Params::default()) {
                    let Ok(mut op) = imp.op else { continue };
                    op.prepare(size);
                    let before = super::super::engine::paint(a.rows.bytes(size));
                    let mut buf = before.clone();
                    op.run(&mut buf, 1);
                    let wrote = buf != before;
                    some_wrote |= wrote;
                    if a.buffer == BufferUse::ReadOnly {
                        assert!(!wrote, "{} {} at {size} wrote its buffer", a.name, imp.name);
                    }
                }
            }
            if a.buffer == BufferUse::Written {
                assert!(some_wrote, "{}: no operation wrote its buffer", a.name);
            }
        }
    }

    /// Every group a row names is one `--peers` accepts, and every
    /// algorithm has one `auto` row.
    #[test]
    fn registrations_are_consistent() {
        for a in ALL {
            let imps = (a.implementations)(&Params::default());
            assert_eq!(
                imps.iter().filter(|i| i.origin == Origin::Auto).count(),
                1,
                "{}",
                a.name
            );
            for i in &imps {
                if let Origin::Peer(g) = i.origin {
                    assert!(PEER_GROUPS.contains(&g), "{}: {g}", a.name);
                }
            }
        }
    }
}
