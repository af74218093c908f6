//! Multi-buffer SHA-1: many independent messages hashed at once.
//!
//! One SHA-1 stream is bound by the latency of its round chain (about
//! 1.9 cycles per byte with SHA-NI, for every library), and most of the
//! core's vector units stay idle. Real SHA-1 work is rarely one stream: a
//! git pack or checkout hashes every object, a BitTorrent client every
//! piece, a backup tool every file. Hashing several independent messages
//! at once turns that latency into throughput:
//!
//! - `avx512`: 16 messages in the 16 lanes of 512-bit registers
//!   (`vprold` rotates, `vpternlogd` round functions);
//! - `avx2`: 8 messages in the 8 lanes of 256-bit registers;
//! - `shani`: several `sha1rnds4` chains interleaved, so that one chain's
//!   latency is filled with another's rounds;
//! - `portable`: the one-stream portable code in a loop (the oracle).
//!
//! Messages may have any lengths. A lane whose message ends is refilled
//! with the next message at once, so short messages never wait for long
//! ones; when too few messages are left to fill the lanes, the rest move
//! to a narrower kernel (SHA-NI chains where the CPU has them, else the
//! fastest one-stream kernel), see [`Sha1Many`].
//!
//! ```
//! use fastcrypt::sha1::{self, many};
//!
//! let msgs: [&[u8]; 3] = [b"abc", b"", b"a longer message"];
//! let digests = many::digest_many(&msgs);
//! assert_eq!(digests[0], sha1::digest(b"abc"));
//! assert_eq!(digests[2], sha1::digest(b"a longer message"));
//!
//! // BitTorrent v1 piece hashes: one digest per 16 KiB piece (the last
//! // piece is shorter).
//! let file = vec![7u8; 40_000];
//! let pieces = many::digest_pieces(&file, 16 << 10);
//! assert_eq!(pieces.len(), 3);
//! assert_eq!(pieces[2], sha1::digest(&file[32 << 10..]));
//! ```
//!
//! **SHA-1 is broken for collision resistance**; see [the module
//! docs](crate::sha1).

use super::{state_to_bytes, DcConfig, DcDigest, BLOCK_LEN, DIGEST_LEN, IV};
use alloc::vec::Vec;

#[cfg(fastcrypt_x86)]
mod lanes;
#[cfg(fastcrypt_x86)]
mod x86_avx2;
#[cfg(fastcrypt_x86)]
mod x86_avx512;

define_backends! {
    primitive: "sha1-many";
    /// The one-stream portable code, one message after another: the
    /// oracle the other backends are checked against.
    Portable => "portable";
    /// Eight messages at once in the lanes of 256-bit registers.
    Avx2 => "avx2", #[cfg(fastcrypt_x86)] Avx2MulToken;
    /// Several SHA-NI round chains interleaved (see [`SHANI_CHAINS`]).
    Shani => "shani", #[cfg(fastcrypt_x86)] ShaNiToken;
    /// Sixteen messages at once in the lanes of 512-bit registers.
    Avx512 => "avx512", #[cfg(fastcrypt_x86)] Avx512Token;
}

/// How many SHA-NI chains the `shani` backend interleaves, and the width
/// the other backends hand their last messages to. `sha1rnds4` has a
/// latency of about 6 cycles and issues every 2 (MEASURED.md, Zen 5), so
/// about three chains fill the SHA unit.
pub const SHANI_CHAINS: usize = 3;

/// What a multi-buffer kernel does: compress `blocks` 64-byte blocks of
/// each of `L` independent messages. `state[w][lane]` is word `w` of the
/// lane's chaining value (words in lanes, as SIMD registers hold them), and
/// `data[lane]` holds at least `blocks * 64` bytes. Called once per run of
/// blocks that every lane has (until the next lane's message or padding
/// ends), never per block.
pub(crate) trait Lanes<const L: usize>: Copy {
    fn compress(self, state: &mut [[u32; L]; 5], data: &[&[u8]; L], blocks: usize);
}

/// One-stream kernels as a one-lane kernel: the last messages of a batch,
/// and the whole of the portable backend.
impl Lanes<1> for super::Kernel {
    #[inline]
    fn compress(self, state: &mut [[u32; 1]; 5], data: &[&[u8]; 1], blocks: usize) {
        let mut s: [u32; 5] = core::array::from_fn(|w| state[w][0]);
        super::Kernel::compress(self, &mut s, &data[0][..blocks * BLOCK_LEN]);
        for (w, v) in s.into_iter().enumerate() {
            state[w][0] = v;
        }
    }
}

/// A message to hash, or one part-way through: what one kernel hands the
/// next.
struct Job<'a> {
    /// Where its digest goes.
    slot: usize,
    msg: &'a [u8],
    /// Bytes of the padded message compressed so far (a multiple of 64).
    done: usize,
    /// The chaining value after them.
    state: [u32; 5],
}

/// A lane of a kernel: the message it hashes, and where in it the lane
/// is. The padded tail is built in place, not moved with the job: for
/// short messages, moving it cost as much as hashing.
struct Lane<'a> {
    slot: usize,
    msg: &'a [u8],
    /// Whole blocks of the message not yet compressed.
    rest: &'a [u8],
    /// The message's last bytes with SHA-1's padding: 64 or 128 bytes.
    tail: [u8; 2 * BLOCK_LEN],
    tail_end: usize,
    /// Bytes of `tail` compressed (once `rest` is empty).
    tail_pos: usize,
    busy: bool,
}

impl<'a> Lane<'a> {
    const IDLE: Lane<'static> = Lane {
        slot: 0,
        msg: &[],
        rest: &[],
        tail: [0; 2 * BLOCK_LEN],
        tail_end: 0,
        tail_pos: 0,
        busy: false,
    };

    fn start(&mut self, job: &Job<'a>) {
        let msg = job.msg;
        let whole = msg.len() / BLOCK_LEN * BLOCK_LEN;
        let rest = &msg[whole..];
        self.tail[..rest.len()].copy_from_slice(rest);
        self.tail[rest.len()] = 0x80;
        self.tail_end = if rest.len() < BLOCK_LEN - 8 {
            BLOCK_LEN
        } else {
            2 * BLOCK_LEN
        };
        self.tail[rest.len() + 1..self.tail_end - 8].fill(0);
        self.tail[self.tail_end - 8..self.tail_end]
            .copy_from_slice(&(msg.len() as u64).wrapping_mul(8).to_be_bytes());
        self.slot = job.slot;
        self.msg = msg;
        self.rest = &msg[job.done.min(whole)..whole];
        self.tail_pos = job.done.saturating_sub(whole);
        self.busy = true;
    }

    /// Where the lane is, as a job for another kernel.
    fn job(&self, state: [u32; 5]) -> Job<'a> {
        let whole = self.msg.len() / BLOCK_LEN * BLOCK_LEN;
        Job {
            slot: self.slot,
            msg: self.msg,
            done: whole - self.rest.len() + self.tail_pos,
            state,
        }
    }

    /// The blocks the lane can compress next without a break.
    fn segment(&self) -> &[u8] {
        if self.rest.is_empty() {
            &self.tail[self.tail_pos..self.tail_end]
        } else {
            self.rest
        }
    }

    /// Marks `bytes` of [`segment`](Self::segment) compressed; `true` when
    /// the message is done.
    fn advance(&mut self, bytes: usize) -> bool {
        if self.rest.is_empty() {
            self.tail_pos += bytes;
            self.tail_pos == self.tail_end
        } else {
            self.rest = &self.rest[bytes..];
            false
        }
    }
}

/// Jobs handed from one kernel to the next (see [`run`]).
type Jobs<'j, 'a> = &'j mut dyn Iterator<Item = Job<'a>>;

/// Runs jobs through an `L`-lane kernel, a new job into each lane as soon
/// as its job is done, until no job is left or (with none left to start)
/// at most `hand_off` lanes are busy; then `then` gets the jobs still in
/// flight, with their chaining values, to finish on a narrower kernel.
fn run<'a, const L: usize, K: Lanes<L>>(
    kernel: K,
    jobs: Jobs<'_, 'a>,
    out: &mut [[u8; DIGEST_LEN]],
    hand_off: usize,
    then: impl FnOnce(Jobs<'_, 'a>, &mut [[u8; DIGEST_LEN]]),
) {
    let mut lanes: [Lane<'a>; L] = [Lane::IDLE; L];
    let mut state = [[0u32; L]; 5];
    let mut more = true;
    let mut busy = 0;
    loop {
        if more && busy < L {
            for (i, lane) in lanes.iter_mut().enumerate() {
                if !lane.busy {
                    let Some(job) = jobs.next() else {
                        more = false;
                        break;
                    };
                    for (w, v) in job.state.iter().enumerate() {
                        state[w][i] = *v;
                    }
                    lane.start(&job);
                    busy += 1;
                }
            }
        }
        if busy == 0 || (!more && busy <= hand_off) {
            break;
        }
        // Idle lanes compress a busy lane's blocks into a state nobody
        // reads: cheaper than a branch per lane, and it needs no memory.
        let filler = lanes.iter().find(|l| l.busy).map_or(&[][..], Lane::segment);
        let data: [&[u8]; L] = core::array::from_fn(|i| {
            if lanes[i].busy {
                lanes[i].segment()
            } else {
                filler
            }
        });
        let blocks = data.iter().map(|d| d.len()).min().unwrap_or(0) / BLOCK_LEN;
        kernel.compress(&mut state, &data, blocks);
        for (i, lane) in lanes.iter_mut().enumerate() {
            if lane.busy && lane.advance(blocks * BLOCK_LEN) {
                let words: [u32; 5] = core::array::from_fn(|w| state[w][i]);
                out[lane.slot] = state_to_bytes(&words);
                lane.busy = false;
                busy -= 1;
            }
        }
    }
    let mut left = lanes
        .iter()
        .enumerate()
        .filter(|(_, l)| l.busy)
        .map(|(i, l)| l.job(core::array::from_fn(|w| state[w][i])));
    then(&mut left, out);
}

/// Finishes `jobs` on the fastest one-stream kernel.
#[cfg(fastcrypt_x86)]
fn one_stream(jobs: Jobs<'_, '_>, out: &mut [[u8; DIGEST_LEN]]) {
    let (_, kernel) = super::Backend::auto();
    run::<1, _>(kernel, jobs, out, 0, |_, _| {});
}

/// Finishes `jobs` on SHA-NI chains, fewer as the jobs end
/// ([`SHANI_CHAINS`], then two, then one stream).
#[cfg(fastcrypt_x86)]
fn chains(token: crate::cpu::ShaNiToken, jobs: Jobs<'_, '_>, out: &mut [[u8; DIGEST_LEN]]) {
    run::<SHANI_CHAINS, _>(token, jobs, out, SHANI_CHAINS - 1, |jobs, out| {
        run::<2, _>(token, jobs, out, 1, one_stream)
    });
}

/// Finishes the jobs a lane kernel hands back: on SHA-NI chains where the
/// CPU has them, else on the fastest one-stream kernel.
#[cfg(fastcrypt_x86)]
fn narrow(jobs: Jobs<'_, '_>, out: &mut [[u8; DIGEST_LEN]]) {
    match crate::cpu::ShaNiToken::get() {
        Some(t) => chains(t, jobs, out),
        None => one_stream(jobs, out),
    }
}

/// How many busy lanes of an `L`-lane kernel are not worth keeping when
/// no message is left to start: the narrower kernel finishes them
/// sooner. With SHA-NI, [`SHANI_CHAINS`] chains hash about as fast as
/// half-full lanes (measured, see BENCHMARKS.md's sha1-many table);
/// without it, one stream on the fastest one-stream kernel hashes about
/// as fast as one busy lane of eight.
#[cfg(fastcrypt_x86)]
fn hand_off(lanes: usize) -> usize {
    if crate::cpu::ShaNiToken::get().is_some() {
        lanes / 2
    } else {
        1
    }
}

/// Multi-buffer SHA-1 with a chosen backend: hashes many independent
/// messages in one call, results in input order. `new()` picks the
/// fastest backend this CPU runs; `with_backend` forces one, so one
/// process can test and benchmark all of them.
///
/// How a batch runs: the backend's lanes take the messages in order, a
/// new one into each lane as soon as its message ends. When no message is
/// left to start and only a few lanes are still busy, the backend hands
/// them to a narrower kernel (SHA-NI chains where this CPU has SHA-NI,
/// else the fastest one-stream kernel), which finishes them faster than
/// mostly idle lanes would. A single message goes straight to it. The
/// result is the same whatever the backend: each digest is the message's
/// SHA-1.
///
/// ```
/// use fastcrypt::sha1::{self, many::{Backend, Sha1Many}};
///
/// let msgs: Vec<Vec<u8>> = (0..100).map(|i| vec![i as u8; i * 37]).collect();
/// for b in Backend::available() {
///     let digests = Sha1Many::with_backend(b).unwrap().digest_many(&msgs);
///     assert_eq!(digests[42], sha1::digest(&msgs[42]));
/// }
/// ```
///
/// Not for secrets held across calls: no state outlives a call, but the
/// lanes' stack copies of message tails are not wiped (unlike
/// [`Sha1`](super::Sha1), which HMAC keys pass through).
#[derive(Clone, Copy, Debug)]
pub struct Sha1Many {
    backend: Backend,
    kernel: Kernel,
}

impl Default for Sha1Many {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha1Many {
    /// The fastest backend this CPU runs.
    pub fn new() -> Sha1Many {
        let (backend, kernel) = Backend::auto();
        Sha1Many { backend, kernel }
    }

    /// `backend`, or [`Unsupported`](crate::Unsupported) if this CPU (or
    /// build) cannot run it.
    pub fn with_backend(backend: Backend) -> Result<Sha1Many, crate::Unsupported> {
        Ok(Sha1Many {
            backend,
            kernel: backend.kernel()?,
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The SHA-1 of each message, in order.
    pub fn digest_many<M: AsRef<[u8]>>(&self, messages: &[M]) -> Vec<[u8; DIGEST_LEN]> {
        let mut out = alloc::vec![[0u8; DIGEST_LEN]; messages.len()];
        self.digest_many_into(messages, &mut out);
        out
    }

    /// The SHA-1 of each message into `out[i]`, without allocating.
    ///
    /// # Panics
    ///
    /// If `out` and `messages` differ in length.
    pub fn digest_many_into<M: AsRef<[u8]>>(&self, messages: &[M], out: &mut [[u8; DIGEST_LEN]]) {
        assert_eq!(
            messages.len(),
            out.len(),
            "digest_many_into: {} messages but {} output slots",
            messages.len(),
            out.len()
        );
        self.hash(messages.iter().map(AsRef::as_ref), out);
    }

    /// The SHA-1 of each consecutive `piece_len`-byte piece of `data` (the
    /// last may be shorter), as BitTorrent v1 lists piece hashes. Empty
    /// `data` has no pieces.
    ///
    /// # Panics
    ///
    /// If `piece_len` is 0.
    pub fn digest_pieces(&self, data: &[u8], piece_len: usize) -> Vec<[u8; DIGEST_LEN]> {
        assert!(piece_len > 0, "digest_pieces: piece length 0");
        let mut out = alloc::vec![[0u8; DIGEST_LEN]; data.len().div_ceil(piece_len)];
        self.digest_pieces_into(data, piece_len, &mut out);
        out
    }

    /// [`digest_pieces`](Self::digest_pieces) into `out`, without
    /// allocating.
    ///
    /// # Panics
    ///
    /// If `piece_len` is 0, or `out` does not have one slot per piece
    /// (`data.len().div_ceil(piece_len)`).
    pub fn digest_pieces_into(&self, data: &[u8], piece_len: usize, out: &mut [[u8; DIGEST_LEN]]) {
        assert!(piece_len > 0, "digest_pieces_into: piece length 0");
        let pieces = data.len().div_ceil(piece_len);
        assert_eq!(
            pieces,
            out.len(),
            "digest_pieces_into: {pieces} pieces but {} output slots",
            out.len()
        );
        self.hash(data.chunks(piece_len), out);
    }

    /// Collision-detecting SHA-1 (see [`Sha1Dc`](super::Sha1Dc)) of each
    /// message, in order, with the switches of `config`: each result is
    /// what `Sha1Dc` with that config gives for the message alone.
    pub fn digest_many_dc<M: AsRef<[u8]>>(
        &self,
        messages: &[M],
        config: DcConfig,
    ) -> Vec<DcDigest> {
        messages
            .iter()
            .map(|m| {
                let mut h = super::Sha1Dc::new().with_config(config);
                h.update(m.as_ref());
                h.finalize()
            })
            .collect()
    }

    fn hash<'a>(&self, messages: impl Iterator<Item = &'a [u8]>, out: &mut [[u8; DIGEST_LEN]]) {
        let jobs = &mut messages.enumerate().map(|(slot, msg)| Job {
            slot,
            msg,
            done: 0,
            state: IV,
        });
        match self.kernel {
            Kernel::Portable => {
                let one = super::Backend::Portable
                    .kernel()
                    .expect("the portable backend always runs");
                run::<1, _>(one, jobs, out, 0, |_, _| {});
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => run::<8, _>(t, jobs, out, hand_off(8), narrow),
            #[cfg(fastcrypt_x86)]
            Kernel::Shani(t) => chains(t, jobs, out),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx512(t) => run::<16, _>(t, jobs, out, hand_off(16), narrow),
        }
    }
}

/// The SHA-1 of each message, in order, on the fastest backend (see
/// [`Sha1Many`]).
pub fn digest_many<M: AsRef<[u8]>>(messages: &[M]) -> Vec<[u8; DIGEST_LEN]> {
    Sha1Many::new().digest_many(messages)
}

/// The SHA-1 of each consecutive `piece_len`-byte piece of `data` (the
/// last may be shorter), on the fastest backend (see
/// [`Sha1Many::digest_pieces`]).
///
/// # Panics
///
/// If `piece_len` is 0.
pub fn digest_pieces(data: &[u8], piece_len: usize) -> Vec<[u8; DIGEST_LEN]> {
    Sha1Many::new().digest_pieces(data, piece_len)
}

#[cfg(test)]
mod tests {
    use super::Sha1Many;

    // The documented panics (the test suite's harness would print their
    // backtraces; libtest's `should_panic` keeps them quiet).

    #[test]
    #[should_panic(expected = "piece length 0")]
    fn piece_length_zero() {
        let _ = Sha1Many::new().digest_pieces(b"abc", 0);
    }

    #[test]
    #[should_panic(expected = "piece length 0")]
    fn piece_length_zero_into() {
        Sha1Many::new().digest_pieces_into(b"", 0, &mut []);
    }

    #[test]
    #[should_panic(expected = "2 pieces but 1 output slots")]
    fn pieces_into_too_few_slots() {
        Sha1Many::new().digest_pieces_into(b"abcdef", 4, &mut [[0; 20]; 1]);
    }

    #[test]
    #[should_panic(expected = "1 messages but 2 output slots")]
    fn many_into_too_many_slots() {
        Sha1Many::new().digest_many_into(&[b"a"], &mut [[0; 20]; 2]);
    }
}
