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

use super::{
    padded_tail, state_to_bytes, Collision, DcConfig, DcDigest, BLOCK_LEN, DIGEST_LEN, IV,
};
use alloc::vec::Vec;

#[cfg(fastcrypt_x86)]
pub(crate) mod lanes;
#[cfg(fastcrypt_x86)]
pub(crate) mod lanes_dc;
#[cfg(fastcrypt_x86)]
mod x86_avx2;
#[cfg(fastcrypt_x86)]
mod x86_avx512;
#[cfg(fastcrypt_x86)]
mod x86_sse2;

pub(crate) mod pbkdf2;
pub use pbkdf2::pbkdf2_hmac_sha1_many;

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

/// A lane kernel with collision detection (see `lanes_dc.rs`): as
/// [`Lanes::compress`], queueing the candidates of the lanes `scratch`
/// names and testing them when a batch fills; `flush_dc` tests the rest.
/// Blocks found to be part of an attack go to the scratch's hits, for the
/// one-stream detector to redo from there.
#[cfg(fastcrypt_x86)]
pub(crate) trait DcLanes<const L: usize>: Copy {
    fn compress_dc(
        self,
        state: &mut [[u32; L]; 5],
        data: &[&[u8]; L],
        blocks: usize,
        reduced_round: bool,
        scratch: &mut lanes_dc::DcScratch,
    );
    fn flush_dc(self, reduced_round: bool, scratch: &mut lanes_dc::DcScratch);
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
    /// What the collision detector found so far.
    found: Found,
}

/// What the collision detector found in a message so far (nothing, for
/// plain SHA-1).
#[derive(Clone, Copy, Default)]
struct Found {
    first: Option<Collision>,
    collisions: u64,
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
        self.tail = [0; 2 * BLOCK_LEN];
        self.tail_end = padded_tail(&mut self.tail, rest, msg.len() as u64);
        self.slot = job.slot;
        self.msg = msg;
        self.rest = &msg[job.done.min(whole)..whole];
        self.tail_pos = job.done.saturating_sub(whole);
        self.busy = true;
    }

    /// Bytes of the padded message compressed so far.
    fn offset(&self) -> usize {
        self.msg.len() / BLOCK_LEN * BLOCK_LEN - self.rest.len() + self.tail_pos
    }

    /// Where the lane is, as a job for another kernel.
    fn job(&self, state: [u32; 5], found: Found) -> Job<'a> {
        Job {
            slot: self.slot,
            msg: self.msg,
            done: self.offset(),
            state,
            found,
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

    /// Bytes `from..to` of the padded message (block-aligned, at most
    /// its length): whole blocks of the message, then of the tail.
    #[cfg(fastcrypt_x86)]
    fn padded(&self, from: usize, to: usize) -> [&[u8]; 2] {
        let whole = self.msg.len() / BLOCK_LEN * BLOCK_LEN;
        [
            &self.msg[from.min(whole)..to.min(whole)],
            &self.tail[from.max(whole) - whole..to.max(whole) - whole],
        ]
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

/// What [`run`] drives: a kernel of `L` lanes, and what a finished
/// message becomes.
trait Engine<const L: usize> {
    type Out;
    /// Compresses up to `blocks` blocks (at least one) of every lane from
    /// `data` into `state` and returns how many it did. `busy` has bit `i`
    /// set for each busy lane `i`, `lanes` are where the lanes are in
    /// their messages, `found` what detection found there, and `out` the
    /// results of messages done so far (which a detector may correct).
    #[allow(clippy::too_many_arguments)]
    fn blocks(
        &mut self,
        state: &mut [[u32; L]; 5],
        data: &[&[u8]; L],
        blocks: usize,
        busy: u32,
        lanes: &[Lane<'_>; L],
        found: &mut [Found; L],
        out: &mut [Self::Out],
    ) -> usize;
    /// Called once the lanes stop (every message done, or the busy lanes
    /// about to be handed to a narrower kernel): finishes what the engine
    /// deferred. The arguments are as for [`blocks`](Self::blocks).
    fn settle(
        &mut self,
        _state: &mut [[u32; L]; 5],
        _lanes: &[Lane<'_>; L],
        _found: &mut [Found; L],
        _out: &mut [Self::Out],
    ) {
    }
    /// The result of a finished message.
    fn out(words: &[u32; 5], found: &Found) -> Self::Out;
}

/// Word `w` of lane `i`'s chaining value is `state[w][i]`.
fn lane_state<const L: usize>(state: &[[u32; L]; 5], i: usize) -> [u32; 5] {
    core::array::from_fn(|w| state[w][i])
}

fn set_lane_state<const L: usize>(state: &mut [[u32; L]; 5], i: usize, s: [u32; 5]) {
    for (w, v) in s.into_iter().enumerate() {
        state[w][i] = v;
    }
}

/// Plain SHA-1 on a lane kernel.
struct Plain<K>(K);

impl<const L: usize, K: Lanes<L>> Engine<L> for Plain<K> {
    type Out = [u8; DIGEST_LEN];
    #[inline]
    fn blocks(
        &mut self,
        state: &mut [[u32; L]; 5],
        data: &[&[u8]; L],
        blocks: usize,
        _: u32,
        _: &[Lane<'_>; L],
        _: &mut [Found; L],
        _: &mut [Self::Out],
    ) -> usize {
        self.0.compress(state, data, blocks);
        blocks
    }
    fn out(words: &[u32; 5], _: &Found) -> [u8; DIGEST_LEN] {
        state_to_bytes(words)
    }
}

/// One-stream kernels as a one-lane kernel: the last messages of a batch,
/// and the whole of the portable backend.
impl Lanes<1> for super::Kernel {
    #[inline]
    fn compress(self, state: &mut [[u32; 1]; 5], data: &[&[u8]; 1], blocks: usize) {
        let mut s = lane_state(state, 0);
        super::Kernel::compress(self, &mut s, &data[0][..blocks * BLOCK_LEN]);
        set_lane_state(state, 0, s);
    }
}

fn dc_out(words: &[u32; 5], found: &Found) -> DcDigest {
    DcDigest {
        digest: state_to_bytes(words),
        collision: found.first,
        collisions: found.collisions,
    }
}

/// Collision-detecting SHA-1 on a one-stream kernel (its fused detector).
#[derive(Clone, Copy)]
struct DcOne {
    kernel: super::Kernel,
    cfg: DcConfig,
}

impl DcOne {
    /// Detection on `blocks` of a message at `offset`, from `state`.
    fn detect(&self, state: &mut [u32; 5], offset: usize, blocks: &[u8], found: &mut Found) {
        let first = &mut found.first;
        found.collisions +=
            self.kernel
                .compress_dc(&self.cfg, state, offset as u64, blocks, &mut |c, _, _| {
                    first.get_or_insert(*c);
                });
    }
}

impl Engine<1> for DcOne {
    type Out = DcDigest;
    fn blocks(
        &mut self,
        state: &mut [[u32; 1]; 5],
        data: &[&[u8]; 1],
        blocks: usize,
        _: u32,
        lanes: &[Lane<'_>; 1],
        found: &mut [Found; 1],
        _: &mut [DcDigest],
    ) -> usize {
        let mut s = lane_state(state, 0);
        self.detect(
            &mut s,
            lanes[0].offset(),
            &data[0][..blocks * BLOCK_LEN],
            &mut found[0],
        );
        set_lane_state(state, 0, s);
        blocks
    }
    fn out(words: &[u32; 5], found: &Found) -> DcDigest {
        dc_out(words, found)
    }
}

/// Collision-detecting SHA-1 on a lane kernel: its filter and
/// recompressions find attack blocks, and the one-stream detector redoes
/// those (rare) blocks to report, rehash and call back exactly.
#[cfg(fastcrypt_x86)]
struct DcLaneEngine<'m, K, M> {
    kernel: K,
    one: DcOne,
    /// The messages, by slot: a hit may come after its message is done.
    messages: &'m [M],
    /// Allocated at the first kernel call: a batch that hands everything
    /// to the one-stream detector needs none.
    scratch: Option<alloc::boxed::Box<lanes_dc::DcScratch>>,
}

#[cfg(fastcrypt_x86)]
impl<M: AsRef<[u8]>, K> DcLaneEngine<'_, K, M> {
    /// Redoes each hit's message from its attack block with the one-stream
    /// detector (with the safe hash, the lane compressed the blocks after
    /// it from a void state): in its lane up to `ahead` bytes past the
    /// lane's position, or to its end if the message is done, correcting
    /// its result.
    fn redo<const L: usize>(
        &mut self,
        state: &mut [[u32; L]; 5],
        lanes: &[Lane<'_>; L],
        ahead: usize,
        found: &mut [Found; L],
        out: &mut [DcDigest],
    ) {
        let Some(scratch) = self.scratch.as_mut() else {
            return;
        };
        for hit in scratch.take_hits() {
            match lanes.iter().position(|l| l.busy && l.slot == hit.slot) {
                Some(i) => {
                    let mut s = hit.ihv_in;
                    let mut at = hit.pos;
                    for part in lanes[i].padded(hit.pos, lanes[i].offset() + ahead) {
                        self.one.detect(&mut s, at, part, &mut found[i]);
                        at += part.len();
                    }
                    set_lane_state(state, i, s);
                }
                None => {
                    let done = &out[hit.slot];
                    let job = Job {
                        slot: hit.slot,
                        msg: self.messages[hit.slot].as_ref(),
                        done: hit.pos,
                        state: hit.ihv_in,
                        found: Found {
                            first: done.collision,
                            collisions: done.collisions,
                        },
                    };
                    run::<1, _>(self.one, &mut core::iter::once(job), out, 0, |_, _| {});
                }
            }
        }
    }
}

#[cfg(fastcrypt_x86)]
impl<const L: usize, K: DcLanes<L>, M: AsRef<[u8]>> Engine<L> for DcLaneEngine<'_, K, M> {
    type Out = DcDigest;
    fn blocks(
        &mut self,
        state: &mut [[u32; L]; 5],
        data: &[&[u8]; L],
        blocks: usize,
        busy: u32,
        lanes: &[Lane<'_>; L],
        found: &mut [Found; L],
        out: &mut [DcDigest],
    ) -> usize {
        let scratch = self.scratch.get_or_insert_with(lanes_dc::DcScratch::new);
        let reduced = self.one.cfg.reduced_round;
        // Idle lanes hash a busy lane's blocks: only busy lanes queue.
        scratch.set_lanes::<L>(
            busy,
            core::array::from_fn(|i| lanes[i].slot),
            core::array::from_fn(|i| lanes[i].offset()),
        );
        self.kernel
            .compress_dc(state, data, blocks, reduced, scratch);
        if scratch.has_hits() {
            // Every queued candidate first: a message's earliest hit may
            // wait in the other batch.
            self.kernel.flush_dc(reduced, scratch);
            self.redo(state, lanes, blocks * BLOCK_LEN, found, out);
        }
        blocks
    }
    fn settle(
        &mut self,
        state: &mut [[u32; L]; 5],
        lanes: &[Lane<'_>; L],
        found: &mut [Found; L],
        out: &mut [DcDigest],
    ) {
        let reduced = self.one.cfg.reduced_round;
        if let Some(scratch) = self.scratch.as_mut().filter(|s| s.pending()) {
            self.kernel.flush_dc(reduced, scratch);
            self.redo(state, lanes, 0, found, out);
        }
    }
    fn out(words: &[u32; 5], found: &Found) -> DcDigest {
        dc_out(words, found)
    }
}

/// Jobs handed from one kernel to the next (see [`run`]).
type Jobs<'j, 'a> = &'j mut dyn Iterator<Item = Job<'a>>;

/// Runs jobs through an `L`-lane engine, a new job into each lane as soon
/// as its job is done, until no job is left or (with none left to start)
/// at most `hand_off` lanes are busy; then `then` gets the jobs still in
/// flight, with their chaining values, to finish on a narrower kernel.
fn run<'a, const L: usize, E: Engine<L>>(
    mut engine: E,
    jobs: Jobs<'_, 'a>,
    out: &mut [E::Out],
    hand_off: usize,
    then: impl FnOnce(Jobs<'_, 'a>, &mut [E::Out]),
) {
    let mut lanes: [Lane<'a>; L] = [Lane::IDLE; L];
    let mut found = [Found::default(); L];
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
                    set_lane_state(&mut state, i, job.state);
                    found[i] = job.found;
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
        let busy_bits = lanes
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, l)| m | (u32::from(l.busy) << i));
        let done = engine.blocks(
            &mut state, &data, blocks, busy_bits, &lanes, &mut found, out,
        );
        for (i, lane) in lanes.iter_mut().enumerate() {
            if lane.busy && lane.advance(done * BLOCK_LEN) {
                out[lane.slot] = E::out(&lane_state(&state, i), &found[i]);
                lane.busy = false;
                busy -= 1;
            }
        }
    }
    engine.settle(&mut state, &lanes, &mut found, out);
    let mut left = lanes
        .iter()
        .enumerate()
        .filter(|(_, l)| l.busy)
        .map(|(i, l)| l.job(lane_state(&state, i), found[i]));
    then(&mut left, out);
}

/// Finishes `jobs` on the fastest one-stream kernel.
#[cfg(fastcrypt_x86)]
fn one_stream(jobs: Jobs<'_, '_>, out: &mut [[u8; DIGEST_LEN]]) {
    let (_, kernel) = super::Backend::auto();
    run::<1, _>(Plain(kernel), jobs, out, 0, |_, _| {});
}

/// Finishes `jobs` on SHA-NI chains, fewer as the jobs end
/// ([`SHANI_CHAINS`], then two, then one stream).
#[cfg(fastcrypt_x86)]
fn chains(token: crate::cpu::ShaNiToken, jobs: Jobs<'_, '_>, out: &mut [[u8; DIGEST_LEN]]) {
    run::<SHANI_CHAINS, _>(Plain(token), jobs, out, SHANI_CHAINS - 1, |jobs, out| {
        run::<2, _>(Plain(token), jobs, out, 1, one_stream)
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
/// sooner. Measured on an AMD EPYC Zen 4 (64 messages of 8 KiB, `speed
/// sha1-many`): 16 full lanes hash ~5.4 GB/s, ~340 MB/s per lane, and
/// [`SHANI_CHAINS`] SHA-NI chains ~3.8 GB/s, so chains win below about
/// eleven busy lanes; half the lanes leaves a margin for CPUs whose SHA
/// unit is slower. Without SHA-NI the fallback is one stream of the
/// fastest one-stream kernel, about as fast as one busy lane of eight.
#[cfg(fastcrypt_x86)]
fn hand_off(lanes: usize) -> usize {
    if crate::cpu::ShaNiToken::get().is_some() {
        lanes / 2
    } else {
        1
    }
}

/// Finishes detecting jobs on the fastest one-stream detector.
#[cfg(fastcrypt_x86)]
fn dc_one_stream(cfg: DcConfig) -> impl FnOnce(Jobs<'_, '_>, &mut [DcDigest]) {
    move |jobs, out| {
        let (_, kernel) = super::Backend::auto();
        run::<1, _>(DcOne { kernel, cfg }, jobs, out, 0, |_, _| {});
    }
}

/// Multi-buffer SHA-1 with a chosen backend: hashes many independent
/// messages in one call, results in input order. `new()` picks the
/// fastest backend this CPU runs; `with_backend` forces one, so one
/// process can test and benchmark all of them.
///
/// How a batch runs: the backend's lanes take the messages longest first
/// (by powers of two of their lengths), a new one into each lane as soon
/// as its message ends. When no message is
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
    /// what `Sha1Dc` with that config gives for the message alone
    /// (digest, first collision, count).
    ///
    /// The lane backends run the filter and the recompressions in their
    /// lanes; `shani` and `portable` run the one-stream detector of the
    /// same name (already fused with its rounds) per message.
    ///
    /// ```
    /// use fastcrypt::sha1::{self, DcConfig, Sha1Many};
    ///
    /// let msgs: [&[u8]; 2] = [b"blob 3\0abc", b"tree 0\0"];
    /// let out = Sha1Many::new().digest_many_dc(&msgs, DcConfig::default());
    /// assert!(out.iter().all(|d| !d.is_collision()));
    /// assert_eq!(out[0].digest, sha1::digest(msgs[0]));
    /// ```
    pub fn digest_many_dc<M: AsRef<[u8]>>(
        &self,
        messages: &[M],
        config: DcConfig,
    ) -> Vec<DcDigest> {
        let none = DcDigest {
            digest: [0; DIGEST_LEN],
            collision: None,
            collisions: 0,
        };
        let mut out = alloc::vec![none; messages.len()];
        self.digest_many_dc_into(messages, config, &mut out);
        out
    }

    /// [`digest_many_dc`](Self::digest_many_dc) into `out[i]`, without
    /// allocating.
    ///
    /// # Panics
    ///
    /// If `out` and `messages` differ in length.
    pub fn digest_many_dc_into<M: AsRef<[u8]>>(
        &self,
        messages: &[M],
        config: DcConfig,
        out: &mut [DcDigest],
    ) {
        assert_eq!(
            messages.len(),
            out.len(),
            "digest_many_dc_into: {} messages but {} output slots",
            messages.len(),
            out.len()
        );
        let jobs = &mut jobs(messages.iter().map(AsRef::as_ref));
        let one = |kernel| DcOne {
            kernel,
            cfg: config,
        };
        let auto = super::Backend::auto().1;
        if !config.detect {
            // Plain SHA-1 on this hasher's own lanes, reported as such.
            let plain = self.digest_many(messages);
            for (o, digest) in out.iter_mut().zip(plain) {
                *o = DcDigest {
                    digest,
                    collision: None,
                    collisions: 0,
                };
            }
            return;
        }
        if !config.ubc {
            // The reference's every-block recompression (a testing aid,
            // ~30x slower): one stream at a time, on this hasher's
            // one-stream kernel (the lane backends have none of their
            // own: the fastest).
            let single = match self.kernel {
                Kernel::Portable => super::Backend::Portable
                    .kernel()
                    .expect("the portable backend always runs"),
                #[cfg(fastcrypt_x86)]
                Kernel::Shani(_) => super::Backend::Shani
                    .kernel()
                    .expect("the multi-buffer token proves SHA-NI"),
                #[cfg(fastcrypt_x86)]
                _ => auto,
            };
            run::<1, _>(one(single), jobs, out, 0, |_, _| {});
            return;
        }
        match self.kernel {
            Kernel::Portable => {
                let portable = super::Backend::Portable
                    .kernel()
                    .expect("the portable backend always runs");
                run::<1, _>(one(portable), jobs, out, 0, |_, _| {});
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Shani(_) => {
                let shani = super::Backend::Shani
                    .kernel()
                    .expect("the multi-buffer token proves SHA-NI");
                run::<1, _>(one(shani), jobs, out, 0, |_, _| {});
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => {
                let e = DcLaneEngine {
                    kernel: t,
                    one: one(auto),
                    messages,
                    scratch: None,
                };
                run::<8, _>(e, jobs, out, dc_hand_off(8), dc_one_stream(config));
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Avx512(t) => {
                let e = DcLaneEngine {
                    kernel: t,
                    one: one(auto),
                    messages,
                    scratch: None,
                };
                run::<16, _>(e, jobs, out, dc_hand_off(16), dc_one_stream(config));
            }
        }
    }

    fn hash<'a>(
        &self,
        messages: impl Iterator<Item = &'a [u8]> + Clone,
        out: &mut [[u8; DIGEST_LEN]],
    ) {
        let jobs = &mut jobs(messages);
        match self.kernel {
            Kernel::Portable => {
                let one = super::Backend::Portable
                    .kernel()
                    .expect("the portable backend always runs");
                run::<1, _>(Plain(one), jobs, out, 0, |_, _| {});
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => run::<8, _>(Plain(t), jobs, out, hand_off(8), narrow),
            #[cfg(fastcrypt_x86)]
            Kernel::Shani(t) => chains(t, jobs, out),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx512(t) => run::<16, _>(Plain(t), jobs, out, hand_off(16), narrow),
        }
    }
}

/// [`hand_off`] for the detecting lane kernels, whose fallback is the
/// one-stream detector, one message at a time. Measured on an AMD EPYC
/// Zen 4 (64 messages of 8 KiB): 16 detecting lanes ~2.4 GB/s, ~150 MB/s
/// per lane, and the fused one-stream SHA-NI detector ~1.5 GB/s, so it
/// wins below about ten busy lanes; without SHA-NI the one-stream
/// detectors run at ~0.5 GB/s, a third or a quarter of the lanes.
#[cfg(fastcrypt_x86)]
fn dc_hand_off(lanes: usize) -> usize {
    if crate::cpu::ShaNiToken::get().is_some() {
        lanes / 2 + lanes / 16
    } else {
        lanes / 4
    }
}

/// The messages as jobs, each to its slot, longest first: by size class
/// (the bit length of the number of whole blocks), input order within a
/// class. Lanes take jobs in this order, so the jobs still running when
/// none is left to start are short ones, and the lanes end nearly
/// together; in input order a long message near the end of a batch of
/// mixed sizes (git objects, a tree's files) ran on alone. One pass per
/// class present, with no allocation; messages of one class (equal
/// lengths, pieces) go in input order.
fn jobs<'a>(messages: impl Iterator<Item = &'a [u8]> + Clone) -> impl Iterator<Item = Job<'a>> {
    let class = |m: &[u8]| usize::BITS - (m.len() / BLOCK_LEN).leading_zeros();
    let present = messages.clone().fold(0u128, |p, m| p | 1 << class(m));
    (0..=usize::BITS)
        .rev()
        .filter(move |&c| present >> c & 1 == 1)
        .flat_map(move |c| {
            messages
                .clone()
                .enumerate()
                .filter(move |&(_, m)| class(m) == c)
                .map(|(slot, msg)| Job {
                    slot,
                    msg,
                    done: 0,
                    state: IV,
                    found: Found::default(),
                })
        })
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
