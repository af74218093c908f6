//! Multi-buffer SHA-1 (`sha1-many`) and its collision-detecting form
//! (`sha1dc-many`): one operation hashes a whole set of messages, and MB/s
//! is the aggregate, every byte of the set over the time of one operation.
//!
//! The size picks the set ([`Set::of`]). The set's messages lie back to back
//! in the engine's one buffer (painted as every other input; its length,
//! [`set_bytes`], is what MB/s and cycles/B count), and each row is told
//! where they start when the cell is prepared, outside the measured loop:
//!
//! - `N` below 1 MiB: 64 messages of `N` bytes each (`Many64x64`,
//!   `Many64x1K`, `Many64x8K` by default): the classic hash sizes, 64 at a
//!   time, as a pack of many small objects gives them;
//! - `0` (no one length): a git-like set (`ManyGit`), 1000 objects in a
//!   seeded random order whose sizes mimic a source repository's: 1/16
//!   commits of 160-400 bytes, 1/16 trees of 1-16 entries of 38 bytes
//!   (`100644 <10-byte name>\0` and a 20-byte id), and 7/8 blobs, sized
//!   log-normal-ishly: an octave `[2^k, 2^(k+1))` with `k` = 6 + the heads
//!   among 10 fair coin flips (a binomial, so `log2(size)` is close to
//!   normal: median octave 2-4 KiB, tails down to 64 B and up to 128 KiB),
//!   then uniform within the octave. Integer arithmetic on a fixed seed
//!   ([`git_lengths`]), so every run on every machine hashes the same
//!   bytes; `--list` prints the set's total, median and extremes;
//! - `N` of 1 MiB or more: BitTorrent v1 piece hashes, `digest_pieces`
//!   with 256 KiB pieces over an `N`-byte buffer (`Pieces256K_64M` by
//!   default). The target is a 1 GiB buffer; `--sizes 1G`
//!   (`Pieces256K_1024M`) measures it (the rows share one buffer, as every
//!   read-only input is shared, but each row's samples then take seconds,
//!   so a default run would take minutes longer); `--sizes 1G --compare
//!   sha1,auto` measures the two rows that matter.
//!
//! Rows: `auto` (`Sha1Many::new()`), every `sha1::many::Backend`
//! (unavailable ones as n/a), and as the reference the one-stream `auto`
//! on each message (each piece) in turn, `sha1::digest` or
//! `sha1::digest_dc`, so that ratios to it read as the multi-buffer
//! speed-up (`--compare sha1,auto`, `--compare sha1dc,auto`). `sha1-many`
//! also has OpenSSL's SHA-1 in the same loop, what a program using it
//! would write; `sha1dc-many` also has plain `sha1-many`'s `auto`, so that
//! `--compare sha1-many,auto` is what detection costs when both sides hash
//! many messages. Detection runs the default configuration (safe hash on),
//! and every row reads each message's digest and detection flag, as a
//! caller must.

use super::super::engine::SplitMix64;
use super::super::options::size_text;
use super::{backend_rows, Algorithm, BufferUse, CustomRows, Implementation, Op, Params, RowNames};
use crate::backends::backend_table;
use fastcrypt::sha1::many::{Backend, Sha1Many};
use fastcrypt::sha1::DcConfig;
use std::hint::black_box;

pub static SHA1_MANY: Algorithm = Algorithm {
    name: "sha1-many",
    go_family: "SHA1Many",
    default_sizes: SIZES,
    rows: RowNames::Custom(&SETS),
    // The size picks a set; a sweep of message lengths means nothing here.
    sweeps: false,
    min_size: 0,
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations: plain_rows,
};

pub static SHA1DC_MANY: Algorithm = Algorithm {
    name: "sha1dc-many",
    go_family: "SHA1DCMany",
    default_sizes: SIZES,
    rows: RowNames::Custom(&SETS),
    sweeps: false,
    min_size: 0,
    // `digest_many_dc` is a method of `Sha1Many`: the same backends.
    takes_aad: false,
    buffer: BufferUse::ReadOnly,
    backends: backend_table::<Backend>,
    implementations: dc_rows,
};

static SETS: CustomRows = CustomRows {
    name: row_name,
    bytes: set_bytes,
    about: sets_about,
};

/// 64 messages of 64 B, 1 KiB and 8 KiB, the git-like set, and 256 KiB
/// pieces of 64 MiB: large enough that the lanes run full for most of
/// the buffer, small enough for the default run.
const SIZES: &[usize] = &[64, 1 << 10, 8 << 10, 0, 64 << 20];

/// How many messages a set of equal messages has.
const MANY: usize = 64;
/// The smallest size that means pieces rather than equal messages.
const PIECES_FROM: usize = 1 << 20;
/// BitTorrent's usual piece length for large torrents.
const PIECE: usize = 256 << 10;

/// The git-like set: how many objects, and the fixed seed of their sizes.
const GIT_OBJECTS: usize = 1000;
const GIT_SEED: u64 = u64::from_le_bytes(*b"ManyGit!");
/// One in this many objects is a commit, and as many are trees; the rest
/// are blobs, which a checkout and `git add` hash alone, so they set the
/// median.
const GIT_ONE_IN: usize = 16;
/// A commit's size range: tree, parent, author and committer lines and a
/// short message.
const COMMIT: (usize, usize) = (160, 400);
/// A tree entry: mode, a 10-byte name, NUL, and the object id.
const TREE_ENTRY: usize = b"100644 0123456789\0".len() + 20;
const TREE_MOST_ENTRIES: usize = 16;
/// A blob's octave is `2^(BLOB_OCTAVE + heads in BLOB_FLIPS coin flips)`.
const BLOB_OCTAVE: u32 = 6;
const BLOB_FLIPS: u32 = 10;

/// What a size measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Set {
    /// [`MANY`] messages of this many bytes.
    Equal(usize),
    /// The git-like set.
    Git,
    /// [`PIECE`]-byte pieces of a buffer of this many bytes.
    Pieces(usize),
}

impl Set {
    fn of(size: usize) -> Set {
        match size {
            0 => Set::Git,
            n if n < PIECES_FROM => Set::Equal(n),
            n => Set::Pieces(n),
        }
    }

    /// Each message's length, in order (for pieces, each piece's).
    fn lengths(self) -> Vec<usize> {
        match self {
            Set::Equal(n) => vec![n; MANY],
            Set::Git => git_lengths(),
            Set::Pieces(n) => (0..n.div_ceil(PIECE))
                .map(|i| PIECE.min(n - i * PIECE))
                .collect(),
        }
    }
}

fn row_name(size: usize) -> String {
    match Set::of(size) {
        Set::Equal(n) => format!("Many{MANY}x{}", size_text(n)),
        Set::Git => "ManyGit".into(),
        Set::Pieces(n) => format!("Pieces{}_{}", size_text(PIECE), size_text(n)),
    }
}

/// Every byte of the set: the engine's buffer, and what MB/s counts.
fn set_bytes(size: usize) -> usize {
    Set::of(size).lengths().iter().sum()
}

/// `--list`'s lines on the sizes, the git-like set's figures computed from
/// the set itself.
fn sets_about() -> String {
    let git = git_lengths();
    let mut sorted = git.clone();
    sorted.sort_unstable();
    let total: usize = git.iter().sum();
    let (lo, hi) = (COMMIT.0, COMMIT.1);
    [
        "sizes pick message sets; MB/s counts every byte of a set per operation:".to_string(),
        format!(
            "  N < {}: {MANY} messages of N bytes (Many{MANY}xN)",
            size_text(PIECES_FROM)
        ),
        format!("  0: a git-like set (ManyGit), {GIT_OBJECTS} objects in seeded random order:"),
        format!(
            "     1/{GIT_ONE_IN} commits of {lo}-{hi} B, 1/{GIT_ONE_IN} trees of \
             1-{TREE_MOST_ENTRIES} entries of {TREE_ENTRY} B, the rest blobs,"
        ),
        format!(
            "     each in octave 2^({BLOB_OCTAVE} + heads of {BLOB_FLIPS} coin flips), uniform within it;"
        ),
        format!(
            "     {total} bytes in all, median {} B, {} B to {} B",
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1]
        ),
        format!(
            "  N >= {}: {} pieces of an N-byte buffer (Pieces{}_N), digest_pieces as BitTorrent v1",
            size_text(PIECES_FROM),
            size_text(PIECE),
            size_text(PIECE)
        ),
    ]
    .join("\n")
}

/// The git-like set's sizes, in order (see the module docs).
fn git_lengths() -> Vec<usize> {
    let mut rng = SplitMix64(GIT_SEED);
    (0..GIT_OBJECTS)
        .map(|_| match rng.below(GIT_ONE_IN) {
            0 => COMMIT.0 + rng.below(COMMIT.1 - COMMIT.0 + 1),
            1 => TREE_ENTRY * (1 + rng.below(TREE_MOST_ENTRIES)),
            _ => {
                let heads = (rng.next() & ((1 << BLOB_FLIPS) - 1)).count_ones();
                let octave = 1usize << (BLOB_OCTAVE + heads);
                octave + rng.below(octave)
            }
        })
        .collect()
}

type Digest = [u8; 20];

/// A set as a row hashes it.
struct Input<'a> {
    /// Every message, back to back.
    data: &'a [u8],
    /// The messages (for pieces, the pieces), in order.
    messages: &'a [&'a [u8]],
    /// For pieces, their length: a row with a piece API takes `data` whole.
    piece_len: Option<usize>,
}

/// A row as a measured operation: the set's layout (from [`Op::prepare`])
/// and an output slot per message, both kept across operations so that
/// the measured loop allocates only what a row's own API does.
struct SetOp<F> {
    row: F,
    lengths: Vec<usize>,
    piece_len: Option<usize>,
    out: Vec<Digest>,
}

fn set_op(row: impl FnMut(&Input<'_>, &mut [Digest]) + 'static) -> Box<dyn Op> {
    Box::new(SetOp {
        row,
        lengths: Vec::new(),
        piece_len: None,
        out: Vec::new(),
    })
}

/// The messages of a set laid out back to back in `data`.
fn split<'a>(data: &'a [u8], lengths: &[usize]) -> Vec<&'a [u8]> {
    let mut rest = data;
    lengths
        .iter()
        .map(|&n| {
            let (message, after) = rest.split_at(n);
            rest = after;
            message
        })
        .collect()
}

impl<F: FnMut(&Input<'_>, &mut [Digest])> Op for SetOp<F> {
    fn prepare(&mut self, size: usize) {
        let set = Set::of(size);
        self.lengths = set.lengths();
        self.piece_len = matches!(set, Set::Pieces(_)).then_some(PIECE);
        self.out = vec![[0; 20]; self.lengths.len()];
    }

    #[inline(never)]
    fn run(&mut self, buf: &mut [u8], iters: u64) {
        let data: &[u8] = buf;
        assert_eq!(
            data.len(),
            self.lengths.iter().sum::<usize>(),
            "the buffer is not the set `prepare` laid out"
        );
        // Once per sample, not per operation: the slices of the set.
        let messages = split(data, &self.lengths);
        let input = Input {
            data,
            messages: &messages,
            piece_len: self.piece_len,
        };
        for _ in 0..iters {
            // As in `Looped`: the input through black_box so that no work
            // is hoisted out of the loop, the digests so that none is
            // dropped.
            (self.row)(black_box(&input), &mut self.out);
            black_box(&mut self.out);
        }
    }
}

/// A multi-buffer row: the messages, or the buffer cut into pieces, in one
/// call.
fn many(h: Sha1Many, input: &Input<'_>, out: &mut [Digest]) {
    match input.piece_len {
        Some(len) => h.digest_pieces_into(input.data, len, out),
        None => h.digest_many_into(input.messages, out),
    }
}

/// `auto`: the default constructor, made per operation as a caller who
/// hashes a set now and then would (it reads the cached CPU detection).
fn many_auto(input: &Input<'_>, out: &mut [Digest]) {
    many(Sha1Many::new(), input, out);
}

/// A forced backend: `auto` with the choice made.
fn many_backend(b: Backend) -> Option<impl FnMut(&Input<'_>, &mut [Digest])> {
    Sha1Many::with_backend(b).ok()?;
    Some(move |input: &Input<'_>, out: &mut [Digest]| {
        if let Ok(h) = Sha1Many::with_backend(b) {
            many(h, input, out);
        }
    })
}

/// The reference: fastcrypt's one-stream SHA-1 on each message in turn.
fn one_stream(input: &Input<'_>, out: &mut [Digest]) {
    for (m, o) in input.messages.iter().zip(out) {
        *o = fastcrypt::sha1::digest(m);
    }
}

fn openssl_each(input: &Input<'_>, out: &mut [Digest]) {
    for (m, o) in input.messages.iter().zip(out) {
        *o = openssl::sha::sha1(m);
    }
}

/// Detection, multi-buffer: each digest kept, and whether any message was
/// part of an attack (the caller's check).
fn dc_many(h: Sha1Many, input: &Input<'_>, out: &mut [Digest]) {
    let mut attack = false;
    for (o, d) in out
        .iter_mut()
        .zip(h.digest_many_dc(input.messages, DcConfig::default()))
    {
        *o = d.digest;
        attack |= d.is_collision();
    }
    black_box(attack);
}

fn dc_many_auto(input: &Input<'_>, out: &mut [Digest]) {
    dc_many(Sha1Many::new(), input, out);
}

fn dc_many_backend(b: Backend) -> Option<impl FnMut(&Input<'_>, &mut [Digest])> {
    Sha1Many::with_backend(b).ok()?;
    Some(move |input: &Input<'_>, out: &mut [Digest]| {
        if let Ok(h) = Sha1Many::with_backend(b) {
            dc_many(h, input, out);
        }
    })
}

/// The reference: fastcrypt's one-stream collision-detecting SHA-1 on each
/// message in turn.
fn dc_one_stream(input: &Input<'_>, out: &mut [Digest]) {
    let mut attack = false;
    for (m, o) in input.messages.iter().zip(out) {
        let d = fastcrypt::sha1::digest_dc(m);
        *o = d.digest;
        attack |= d.is_collision();
    }
    black_box(attack);
}

fn plain_rows(_: &Params) -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(set_op(many_auto))
        .about("Sha1Many::new(): digest_many_into, or digest_pieces_into for pieces")];
    v.extend(backend_rows(|b: Backend| many_backend(b).map(set_op)));
    v.push(
        Implementation::reference_as("sha1", "one stream", set_op(one_stream)).about(
            "fastcrypt's one-stream SHA-1 (sha1::digest, auto) on each message in turn: \
         ratios to it are the multi-buffer speed-up",
        ),
    );
    v.push(
        Implementation::peer("openssl", "openssl", Ok(set_op(openssl_each)))
            .about("openssl::sha::sha1 (SHA1_Init/Update/Final) on each message in turn"),
    );
    v
}

fn dc_rows(_: &Params) -> Vec<Implementation> {
    let mut v = vec![Implementation::auto(set_op(dc_many_auto))
        .about("Sha1Many::new().digest_many_dc (detection, safe hash; pieces as messages)")];
    v.extend(backend_rows(|b: Backend| dc_many_backend(b).map(set_op)));
    v.push(
        Implementation::reference_as("sha1dc", "one stream", set_op(dc_one_stream)).about(
            "fastcrypt's one-stream sha1::digest_dc (auto) on each message in turn: \
             ratios to it are the multi-buffer speed-up of detection",
        ),
    );
    v.push(
        Implementation::reference("sha1-many", set_op(many_auto))
            .about("sha1-many's auto, no detection: ratios to it are the cost of detection"),
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (String, Box<dyn FnMut(&Input<'_>, &mut [Digest])>);

    /// Every row of both algorithms that computes detecting or plain
    /// SHA-1 of each message, by name as the tables show them.
    fn rows() -> (Vec<Row>, Vec<Row>) {
        let mut plain: Vec<Row> = vec![
            ("auto".into(), Box::new(many_auto)),
            ("sha1".into(), Box::new(one_stream)),
            ("openssl".into(), Box::new(openssl_each)),
        ];
        let mut dc: Vec<Row> = vec![
            ("auto".into(), Box::new(dc_many_auto)),
            ("sha1dc".into(), Box::new(dc_one_stream)),
            ("sha1-many".into(), Box::new(many_auto)),
        ];
        for b in Backend::available() {
            plain.push((b.to_string(), Box::new(many_backend(b).expect("runs"))));
            dc.push((b.to_string(), Box::new(dc_many_backend(b).expect("runs"))));
        }
        (plain, dc)
    }

    /// The rows here are the ones the registrations list, runnable here.
    #[test]
    fn rows_are_the_registered_ones() {
        let (plain, dc) = rows();
        for (rows, registered) in [
            (plain, plain_rows(&Params::default())),
            (dc, dc_rows(&Params::default())),
        ] {
            let mut names: Vec<&str> = registered
                .iter()
                .filter(|i| i.op.is_ok())
                .map(|i| i.name)
                .collect();
            let mut ours: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
            names.sort_unstable();
            ours.sort_unstable();
            assert_eq!(names, ours);
        }
    }

    /// The data and layout of a cell at `size`, as the engine paints it.
    fn painted(size: usize) -> (Vec<u8>, Vec<usize>) {
        let bytes = set_bytes(size);
        let data = super::super::super::engine::paint(bytes);
        (data, Set::of(size).lengths())
    }

    /// Every row gives each message's SHA-1 (detecting rows: digest_dc's
    /// digest, which on ordinary data is SHA-1): equal messages, the
    /// git-like set, pieces with a short last one.
    #[test]
    fn every_row_hashes_every_message() {
        let (mut plain, mut dc) = rows();
        for size in [1, 64, 0, PIECES_FROM + 5] {
            let (data, lengths) = painted(size);
            let messages = split(&data, &lengths);
            let pieces = matches!(Set::of(size), Set::Pieces(_)).then_some(PIECE);
            let input = Input {
                data: &data,
                messages: &messages,
                piece_len: pieces,
            };
            let want: Vec<Digest> = messages
                .iter()
                .map(|m| fastcrypt::sha1::digest(m))
                .collect();
            for (name, row) in plain.iter_mut().chain(dc.iter_mut()) {
                let mut out = vec![[0; 20]; messages.len()];
                row(&input, &mut out);
                assert!(out == want, "{name} at size {size}");
            }
        }
    }

    /// SHAttered in a set: the detecting rows give its safe hash, as
    /// one-stream detection does, and leave the other messages alone.
    #[test]
    fn detecting_rows_detect_shattered() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fastcrypt/testdata/sha1dc");
        let pdf = std::fs::read(format!("{dir}/shattered-1.pdf")).expect("testdata");
        let other = b"an ordinary object".to_vec();
        let data = [other.clone(), pdf.clone(), other.clone()].concat();
        let messages = split(&data, &[other.len(), pdf.len(), other.len()]);
        let input = Input {
            data: &data,
            messages: &messages,
            piece_len: None,
        };
        let safe = fastcrypt::sha1::digest_dc(&pdf);
        assert!(safe.is_collision());
        let plain = fastcrypt::sha1::digest(&other);
        let (_, dc) = rows();
        for (name, mut row) in dc.into_iter().filter(|r| r.0 != "sha1-many") {
            let mut out = vec![[0; 20]; 3];
            row(&input, &mut out);
            assert_eq!(out, [plain, safe.digest, plain], "{name}");
        }
    }

    /// The sets the sizes name, their byte counts and their row names.
    #[test]
    fn sizes_name_sets() {
        assert_eq!(Set::of(64).lengths(), vec![64; MANY]);
        assert_eq!(set_bytes(8 << 10), MANY * (8 << 10));
        assert_eq!(row_name(64), "Many64x64");
        assert_eq!(row_name(1 << 10), "Many64x1K");
        assert_eq!(row_name(0), "ManyGit");
        assert_eq!(row_name(64 << 20), "Pieces256K_64M");
        assert_eq!(row_name(1 << 30), "Pieces256K_1024M");
        assert_eq!(set_bytes(1 << 30), 1 << 30);
        let last = Set::of(PIECES_FROM + 5).lengths();
        assert_eq!(last.len(), PIECES_FROM / PIECE + 1);
        assert_eq!(last.last(), Some(&5));
        // Every default size names a different row.
        let mut names: Vec<String> = SIZES.iter().map(|&s| row_name(s)).collect();
        names.dedup();
        assert_eq!(names.len(), SIZES.len());
    }

    /// The git-like set is the same every time, and shaped as documented:
    /// small commits and trees, blobs from 64 B to 128 KiB around a median
    /// of a few KiB.
    #[test]
    fn git_set_is_fixed_and_git_like() {
        let sizes = git_lengths();
        assert_eq!(sizes, git_lengths());
        assert_eq!(sizes.len(), GIT_OBJECTS);
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        assert!((1 << 10..8 << 10).contains(&median), "median {median}");
        assert!(sorted[0] < 100, "smallest {}", sorted[0]);
        assert!(sorted[sorted.len() - 1] > 32 << 10, "largest");
        assert!(sorted[sorted.len() - 1] < 1 << (BLOB_OCTAVE + BLOB_FLIPS + 1));
        // Not sorted: lanes see long and short messages mixed.
        assert_ne!(sizes, sorted);
    }

    /// Through the engine's path: prepare, then run on the painted buffer.
    #[test]
    fn ops_run_on_the_painted_set() {
        for imp in plain_rows(&Params::default())
            .into_iter()
            .chain(dc_rows(&Params::default()))
        {
            let Ok(mut op) = imp.op else { continue };
            for size in [0, 1 << 10, PIECES_FROM] {
                op.prepare(size);
                let (mut data, _) = painted(size);
                op.run(&mut data, 2);
            }
        }
    }
}
