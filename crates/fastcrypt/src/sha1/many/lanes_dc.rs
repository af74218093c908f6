//! Collision detection in the lane kernels (see `sha1::dc` for the
//! algorithm): the unavoidable-bit-condition filter runs on the same
//! vectors as the rounds, one block of a different message per lane, and
//! the recompressions run on vectors of candidates.
//!
//! - The filter tests every condition for all lanes at once, a few vector
//!   instructions per condition and no branch, inside the rounds: each
//!   condition in the round that computes its later word, when both words
//!   are in the schedule ring's registers (`lanes::compress_block`). Kept
//!   in memory and tested after the block, the loads and stores of the
//!   words cost as much as the compression. (The one-stream kernels run a
//!   prefix and test the rest per surviving candidate; with 16 blocks in
//!   flight some lane nearly always survives a prefix, so that saves
//!   nothing here.)
//! - About one block in twenty of random data leaves the filter with a
//!   candidate disturbance vector, rarely two lanes of one block set with
//!   the same one. So candidates are not tested where they arise: each
//!   (block, vector) pair is queued in a lane of a [`Batch`] (the other
//!   block's message words, the test-step state and the chaining values),
//!   and a full batch is tested at once, one candidate per lane. A
//!   recompression costs about a compression; queued, sixteen share one.
//! - Batches outlive kernel calls and messages: a call ends wherever some
//!   lane's run of blocks ends (a message or its padded tail), every two
//!   or three blocks for git-like sets, and testing part-full batches
//!   there cost about a tenth of the time. A candidate is therefore
//!   named by its message (slot) and position, not by lane and block,
//!   and the caller settles what is still queued once the lanes stop
//!   ([`DcScratch::pending`], the kernels' `flush_dc`).
//! - A candidate whose test matches is part of an attack; it goes to
//!   [`DcScratch::hits`] (message, block position, chaining value before
//!   it), and the caller redoes that message from that block with the
//!   one-stream detector (reporting the collision, applying the safe
//!   hash, calling back exactly as `Sha1Dc` does), in its lane or, if the
//!   message is done, to its end. Only attack data gets there.

use super::super::dc::dv_difference;
use super::lanes::{compress_block, Keep, LaneVec, K};
#[cfg(test)]
use super::{super::dc::expand, lanes::NoKeep};
use alloc::vec::Vec;

/// The most lanes a kernel has; the scratch space is sized for it.
const MAX: usize = 16;

/// Candidates waiting for their test, all with the same test step: lane
/// `c` of each array is candidate `c` (words in lanes, as the test's
/// vectors load them).
pub(crate) struct Batch {
    len: usize,
    /// The other block's message words 0..16: `W ^ DM` (the test expands
    /// the rest on vectors; the expansion is linear, so it is `W ^ DM` at
    /// every step).
    m2: [[u32; MAX]; 16],
    /// The working state before the test step.
    st: [[u32; MAX]; 5],
    ihv_in: [[u32; MAX]; 5],
    ihv_out: [[u32; MAX]; 5],
    /// Which message (its output slot), and the block's offset in it.
    slot: [usize; MAX],
    pos: [usize; MAX],
}

/// A block found to be part of an attack: the message's output slot, the
/// block's offset in the padded message, and the chaining value before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) slot: usize,
    pub(crate) pos: usize,
    pub(crate) ihv_in: [u32; 5],
}

/// The detector's working memory, allocated once per batch of messages
/// (not on the stack per kernel call: short messages make short calls).
pub(crate) struct DcScratch {
    /// Candidates of test step 58 and of 65.
    batches: [Batch; 2],
    /// The lanes whose candidates are queued (idle lanes hash a busy
    /// lane's blocks, which that lane queues already), and each lane's
    /// message and offset at the start of the kernel call.
    queue: u32,
    slot: [usize; MAX],
    base: [usize; MAX],
    /// What the tests found: at most one hit per message, its earliest.
    hits: Vec<Hit>,
}

impl DcScratch {
    pub(crate) fn new() -> alloc::boxed::Box<DcScratch> {
        let batch = || Batch {
            len: 0,
            m2: [[0; MAX]; 16],
            st: [[0; MAX]; 5],
            ihv_in: [[0; MAX]; 5],
            ihv_out: [[0; MAX]; 5],
            slot: [0; MAX],
            pos: [0; MAX],
        };
        alloc::boxed::Box::new(DcScratch {
            batches: [batch(), batch()],
            queue: 0,
            slot: [0; MAX],
            base: [0; MAX],
            hits: Vec::new(),
        })
    }

    /// Before a kernel call: candidates of lane `i` (for each bit `i` of
    /// `queue`) belong to message `slot[i]`, whose block 0 of the call is
    /// at offset `base[i]`; other lanes' are dropped.
    pub(crate) fn set_lanes<const L: usize>(
        &mut self,
        queue: u32,
        slot: [usize; L],
        base: [usize; L],
    ) {
        self.queue = queue;
        self.slot[..L].copy_from_slice(&slot);
        self.base[..L].copy_from_slice(&base);
    }

    /// Whether candidates wait for their test.
    pub(crate) fn pending(&self) -> bool {
        self.batches[0].len + self.batches[1].len > 0
    }

    /// The hits found so far, taken out.
    pub(crate) fn take_hits(&mut self) -> Vec<Hit> {
        core::mem::take(&mut self.hits)
    }

    /// Whether a test has matched since the last [`take_hits`](Self::take_hits).
    pub(crate) fn has_hits(&self) -> bool {
        !self.hits.is_empty()
    }

    fn add_hit(&mut self, slot: usize, pos: usize, ihv_in: [u32; 5]) {
        match self.hits.iter_mut().find(|h| h.slot == slot) {
            Some(h) if pos < h.pos => {
                h.pos = pos;
                h.ihv_in = ihv_in;
            }
            Some(_) => {}
            None => self.hits.push(Hit { slot, pos, ihv_in }),
        }
    }
}

/// Keeps the test-step states.
struct DcKeep<V> {
    s58: [V; 5],
    s65: [V; 5],
}

impl<V: LaneVec> Keep<V> for DcKeep<V> {
    #[inline(always)]
    fn state(&mut self, t: usize, s: [V; 5]) {
        if t == 58 {
            self.s58 = s;
        } else {
            self.s65 = s;
        }
    }
}

/// SHA-1 steps `from..to` of the messages `m` (one per lane, word `t` of
/// each in `m[t]`) from the working states `s`.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(crate) unsafe fn forward<V: LaneVec>(s: [V; 5], m: &[V; 80], from: usize, to: usize) -> [V; 5] {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let [mut a, mut b, mut c, mut d, mut e] = s;
        macro_rules! steps {
            ($lo:expr, $hi:expr, $k:expr, $f:ident) => {
                let k = V::splat($k);
                for w in &m[from.clamp($lo, $hi)..to.clamp($lo, $hi)] {
                    let n = a.rol5().add(V::$f(b, c, d)).add(e.add(w.add(k)));
                    (a, b, c, d, e) = (n, a, b.rol30(), c, d);
                }
            };
        }
        steps!(0, 20, K[0], ch);
        steps!(20, 40, K[1], parity);
        steps!(40, 60, K[2], maj);
        steps!(60, 80, K[3], parity);
        [a, b, c, d, e]
    }
}

/// The lanes whose five words are equal in `x` and `y`.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(crate) unsafe fn eq5<V: LaneVec>(x: [V; 5], y: [V; 5]) -> u32 {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        x[0].eq_lanes(y[0])
            & x[1].eq_lanes(y[1])
            & x[2].eq_lanes(y[2])
            & x[3].eq_lanes(y[3])
            & x[4].eq_lanes(y[4])
    }
}

/// The five state vectors of `s` (words in lanes).
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
unsafe fn load5<V: LaneVec>(s: &[[u32; MAX]; 5]) -> [V; 5] {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        [
            V::load(&s[0]),
            V::load(&s[1]),
            V::load(&s[2]),
            V::load(&s[3]),
            V::load(&s[4]),
        ]
    }
}

/// The test of every candidate of `b` (test step `tt`), one per lane: the
/// other block of the near-collision ends in the block's output chaining
/// value, or (with `reduced_round`) starts from its input. The
/// forward-only form of the reference's test, as `dc::check_block`
/// explains. Returns the candidates that match (bit `c` for `c`).
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(super) unsafe fn test<V: LaneVec>(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let st = load5::<V>(&b.st);
        let out = load5::<V>(&b.ihv_out);
        let mut m2 = [V::splat(0); 80];
        for (m, w) in m2.iter_mut().zip(&b.m2) {
            *m = V::load(w);
        }
        for t in 16..80 {
            m2[t] = m2[t - 3].xor4(m2[t - 8], m2[t - 14], m2[t - 16]).rol1();
        }
        let m2 = &m2;
        let f2 = forward(st, m2, tt, 80);
        let x = [
            out[0].sub(f2[0]),
            out[1].sub(f2[1]),
            out[2].sub(f2[2]),
            out[3].sub(f2[3]),
            out[4].sub(f2[4]),
        ];
        let mut hit = eq5(forward(x, m2, 0, tt), st);
        if reduced_round {
            hit |= eq5(forward(load5::<V>(&b.ihv_in), m2, 0, tt), st);
        }
        // Lanes past the queued candidates hold stale entries.
        hit & ((1u64 << b.len) - 1) as u32
    }
}

/// Tests the queued candidates of batch `k` (test step 58, or 65 for
/// `k == 1`) and empties it; matches go to the scratch's hits.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
unsafe fn flush<V: LaneVec>(scratch: &mut DcScratch, k: usize, reduced_round: bool) {
    let b = &scratch.batches[k];
    if b.len == 0 {
        return;
    }
    // SAFETY: the caller's entry point enables `V`'s features.
    let mut hit = unsafe { V::test_batch(b, [58, 65][k], reduced_round) };
    while hit != 0 {
        let c = hit.trailing_zeros() as usize;
        hit &= hit - 1;
        let b = &scratch.batches[k];
        let (slot, pos) = (b.slot[c], b.pos[c]);
        let ihv_in = core::array::from_fn(|w| b.ihv_in[w][c]);
        scratch.add_hit(slot, pos, ihv_in);
    }
    scratch.batches[k].len = 0;
}

/// Tests every queued candidate (both batches): when the caller settles
/// the queue, and before it redoes a hit (so that a message's earlier
/// candidates, queued in the other batch, are known first).
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(super) unsafe fn flush_all<V: LaneVec>(scratch: &mut DcScratch, reduced_round: bool) {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        flush::<V>(scratch, 0, reduced_round);
        flush::<V>(scratch, 1, reduced_round);
    }
}

/// Compresses block `blk` of the call, one per lane (`w`, from `data`),
/// into `s`, as [`compress_block`] with the filter, and queues the
/// candidates of the lanes [`DcScratch::set_lanes`] named for their tests
/// (which run when a batch fills, or at [`flush_all`]).
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(super) unsafe fn compress_block_dc<V: LaneVec, const L: usize>(
    s: &mut [V; 5],
    w: [V; 16],
    data: &[&[u8]; L],
    blk: usize,
    scratch: &mut DcScratch,
    reduced_round: bool,
) {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let ihv_in = *s;
        let zero = V::splat(0);
        let mut keep = DcKeep {
            s58: [zero; 5],
            s65: [zero; 5],
        };
        let kill = compress_block::<V, _, true>(s, w, &mut keep);
        let mask = kill.xor(V::splat(!0));
        let mut lanes = mask.nonzero_lanes() & scratch.queue;
        if lanes == 0 {
            return;
        }
        // Lanes are read from registers: a scalar load of a vector just
        // stored would wait for the store (no forwarding across widths).
        let out = *s;
        while lanes != 0 {
            let i = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            // The lane's message words again, from memory: cheaper than
            // keeping every block's in registers for the rare candidates.
            let block = &data[i][blk * 64..blk * 64 + 64];
            let w: [u32; 16] = core::array::from_fn(|t| {
                u32::from_be_bytes([
                    block[4 * t],
                    block[4 * t + 1],
                    block[4 * t + 2],
                    block[4 * t + 3],
                ])
            });
            let mut dvs = mask.lane(i);
            while dvs != 0 {
                let d = dvs.trailing_zeros() as usize;
                dvs &= dvs - 1;
                let (dm, tt) = dv_difference(d);
                let k = usize::from(tt == 65);
                let (slot, pos) = (scratch.slot[i], scratch.base[i] + blk * 64);
                let b = &mut scratch.batches[k];
                let c = b.len;
                for (t, m2) in b.m2.iter_mut().enumerate() {
                    m2[c] = w[t] ^ dm[t];
                }
                let st = if k == 0 { &keep.s58 } else { &keep.s65 };
                for w in 0..5 {
                    b.st[w][c] = st[w].lane(i);
                    b.ihv_in[w][c] = ihv_in[w].lane(i);
                    b.ihv_out[w][c] = out[w].lane(i);
                }
                b.slot[c] = slot;
                b.pos[c] = pos;
                b.len += 1;
                if b.len == V::LANES {
                    flush::<V>(scratch, k, reduced_round);
                }
            }
        }
    }
}

/// Tests of the lane detector's parts, generic over the vector type;
/// each kernel runs them with its features enabled.
#[cfg(test)]
pub(super) mod tests {
    use super::super::super::dc::{ubc_mask, Forward, ScalarSteps};
    use super::*;

    fn xorshift(x: &mut u64) -> u32 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x as u32
    }

    /// The filter's masks against the table's, lane by lane, on random
    /// blocks and on sparse ones (few bits set: many candidates survive,
    /// so every condition decides some lane).
    ///
    /// # Safety
    ///
    /// `V`'s kernel's features must be enabled.
    pub(in super::super) unsafe fn filter_matches_the_table<V: LaneVec>() {
        let mut x = 0x5EED_F117_u64;
        for round in 0..3000 {
            let blocks: alloc::vec::Vec<[u32; 80]> = (0..V::LANES)
                .map(|_| {
                    let block: [u8; 64] = core::array::from_fn(|_| {
                        let r = xorshift(&mut x);
                        if round % 2 == 0 {
                            r as u8
                        } else {
                            (r & r >> 8 & r >> 16 & r >> 24) as u8
                        }
                    });
                    expand(&block)
                })
                .collect();
            let mut w = [[0u32; MAX]; 16];
            for (lane, b) in blocks.iter().enumerate() {
                for t in 0..16 {
                    w[t][lane] = b[t];
                }
            }
            let mut got = [0u32; MAX];
            // SAFETY: the caller enables `V`'s features.
            unsafe {
                let wv: [V; 16] = core::array::from_fn(|t| V::load(&w[t]));
                let mut s = [V::splat(0); 5];
                let kill = compress_block::<V, _, true>(&mut s, wv, &mut NoKeep);
                kill.xor(V::splat(!0)).store(&mut got);
            }
            for (lane, b) in blocks.iter().enumerate() {
                assert_eq!(got[lane], ubc_mask(b), "round {round}, lane {lane}");
            }
        }
    }

    /// The batched test for every disturbance vector: candidates whose
    /// output chaining value was constructed to match must hit, the same
    /// with one bit flipped must not, with reduced-round detection a
    /// candidate whose input is the other block's must hit, and lanes past
    /// the batch's length never count.
    ///
    /// # Safety
    ///
    /// `V`'s kernel's features must be enabled.
    pub(in super::super) unsafe fn test_matches_the_reference<V: LaneVec>() {
        let mut x = 0x0DDC_0FFE_u64;
        let mut b = DcScratch::new();
        for d in 0..32 {
            let (dm, tt) = dv_difference(d);
            let b = &mut b.batches[0];
            let (mut want, mut want_rr) = (0u32, 0u32);
            for c in 0..V::LANES {
                let block: [u8; 64] = core::array::from_fn(|_| xorshift(&mut x) as u8);
                let w = expand(&block);
                let m2: [u32; 80] = core::array::from_fn(|t| w[t] ^ dm[t]);
                let ihv2: [u32; 5] = core::array::from_fn(|_| xorshift(&mut x));
                let st = ScalarSteps.forward(ihv2, &m2, 0, tt);
                let f2 = ScalarSteps.forward(st, &m2, tt, 80);
                let mut out: [u32; 5] = core::array::from_fn(|i| ihv2[i].wrapping_add(f2[i]));
                let mut input: [u32; 5] = core::array::from_fn(|_| xorshift(&mut x));
                match c % 3 {
                    0 => want |= 1 << c,
                    1 => out[c % 5] ^= 1 << (c % 32),
                    _ => {
                        out[0] ^= 1;
                        input = ihv2;
                        want_rr |= 1 << c;
                    }
                }
                for (col, x) in b.m2.iter_mut().zip(m2) {
                    col[c] = x;
                }
                for i in 0..5 {
                    b.st[i][c] = st[i];
                    b.ihv_in[i][c] = input[i];
                    b.ihv_out[i][c] = out[i];
                }
            }
            for len in [V::LANES, 1, 3] {
                b.len = len;
                let live = ((1u64 << len) - 1) as u32;
                // SAFETY: the caller enables `V`'s features.
                let (got, got_rr) = unsafe { (test::<V>(b, tt, false), test::<V>(b, tt, true)) };
                assert_eq!(got, want & live, "DV {d}, {len} candidates");
                assert_eq!(got_rr, (want | want_rr) & live, "DV {d} reduced, {len}");
            }
        }
    }
}
