//! The full tests of several candidate blocks at once, one disturbance
//! vector per vector lane: 8 with AVX2, 4 with SSE2.
//!
//! About one random block in twenty passes the filter, and each vector
//! it passes costs a recompression: some 76 scalar SHA-1 steps, bound by
//! the core's integer ports rather than by latency, so no interleaving
//! of scalar code makes it cheaper. The SSSE3 and AVX2 loops instead keep
//! their candidates in a [`Batch`] and test them together in vector
//! lanes ([`hits_avx2`], [`hits_sse2`]), which their rounds leave mostly
//! idle. Only a candidate with a lane whose full test holds (a block of
//! an attack) goes on to the exact scalar check,
//! [`after_block`](super::after_block), which also does the reduced-round
//! test, the safe hash and the callback.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::many::lanes::LaneVec;
use super::super::many::lanes_dc::{eq5, forward};
use super::{Expanded, TestStates, DVS};

/// The fewest vectors worth a batch: below it, scalar recompressions
/// are cheaper. On an AMD EPYC Zen 4 one scalar check took ~90 ns and a
/// batch of eight AVX2 lanes ~250 ns (`perf`, 1 MiB messages), so the
/// break-even is near three.
pub(crate) const MIN_LANES: usize = 3;

/// A block the filter left a candidate, waiting for its recompressions.
#[derive(Clone, Copy)]
pub(crate) struct Candidate {
    /// The block's index in the call's blocks.
    pub(crate) block: usize,
    /// Its chaining values.
    pub(crate) ihv_in: [u32; 5],
    pub(crate) ihv_out: [u32; 5],
    /// Its working states before the test steps.
    pub(crate) known: TestStates,
    /// The vectors it is a candidate for (bit `n`: `DVS[n]`).
    pub(crate) mask: u32,
    /// Its expanded message.
    pub(crate) w: Expanded,
}

/// Up to `L` candidates in block order, with at most `L` vectors between
/// them: one lane each.
pub(crate) struct Batch<const L: usize> {
    /// The first `len` are written. Not zeroed: a one-block call, which
    /// rarely has a candidate, would pay for zeroing 3 KiB.
    held: [MaybeUninit<Candidate>; L],
    len: usize,
    lanes: usize,
}

impl<const L: usize> Batch<L> {
    pub(crate) fn new() -> Self {
        Batch {
            held: [const { MaybeUninit::uninit() }; L],
            len: 0,
            lanes: 0,
        }
    }

    /// Whether a candidate for the vectors of `mask` fits beside the
    /// ones held.
    pub(crate) fn fits(&self, mask: u32) -> bool {
        self.lanes + mask.count_ones() as usize <= L
    }

    /// Adds a candidate after the ones held, built in place. Its
    /// schedule is copied with 16-byte moves, not LLVM's `memcpy` call.
    ///
    /// # Panics
    ///
    /// If it does not [fit](Self::fits).
    ///
    /// # Safety
    ///
    /// The CPU must have SSE2.
    #[inline(always)]
    pub(crate) unsafe fn push(
        &mut self,
        block: usize,
        ihv_in: [u32; 5],
        ihv_out: [u32; 5],
        known: TestStates,
        mask: u32,
        w: &Expanded,
    ) {
        assert!(self.fits(mask));
        let slot = self.held[self.len].as_mut_ptr();
        // SAFETY: `slot` points to a `Candidate` in `self.held`; every
        // field is written before `len` counts it. The caller guarantees
        // SSE2, and both schedules are 80 words.
        unsafe {
            core::ptr::addr_of_mut!((*slot).block).write(block);
            core::ptr::addr_of_mut!((*slot).ihv_in).write(ihv_in);
            core::ptr::addr_of_mut!((*slot).ihv_out).write(ihv_out);
            core::ptr::addr_of_mut!((*slot).known).write(known);
            core::ptr::addr_of_mut!((*slot).mask).write(mask);
            let dst: *mut __m128i = core::ptr::addr_of_mut!((*slot).w).cast();
            let src: *const __m128i = w.as_ptr().cast();
            // Unrolled: as a loop, LLVM turns it back into `memcpy`.
            unroll!(20, |I| {
                _mm_storeu_si128(dst.add(I), _mm_loadu_si128(src.add(I)));
            });
        }
        self.len += 1;
        self.lanes += mask.count_ones() as usize;
    }

    /// The candidates held, in the order they were pushed.
    pub(crate) fn held(&self) -> &[Candidate] {
        // SAFETY: the first `len` elements were written by `push`, and
        // `MaybeUninit<Candidate>` has `Candidate`'s layout.
        unsafe { core::slice::from_raw_parts(self.held.as_ptr().cast(), self.len) }
    }

    /// How many vectors the held candidates are tested for.
    pub(crate) fn lanes(&self) -> usize {
        self.lanes
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.lanes = 0;
    }
}

/// Which held candidates have a vector whose full test holds (bit `j`:
/// candidate `j`), the reference's test in its forward-only form (see
/// `check_block`): with `F2` the steps `tt..80` of `m2` from the state `st` before the
/// test step `tt`, the steps `0..tt` of `m2` from `ihv_out - F2` must
/// reach `st`. A candidate with no bit set is clean; one with a bit set
/// needs [`after_block`](super::after_block). The multi-buffer kernels'
/// test (`many::lanes_dc`) with its vector steps, except that one batch
/// holds both test steps: a one-stream call has too few candidates to
/// fill a batch per step.
///
/// # Safety
///
/// The CPU must have `V`'s instructions, and `L` must be `V::LANES`.
#[inline(always)]
unsafe fn hits<V: LaneVec, const L: usize>(batch: &Batch<L>) -> u32 {
    debug_assert_eq!(L, V::LANES);
    // Lane `l` tests vector `dv[l]` of candidate `owner[l]`. Lanes past
    // `used` test zeros, and their answers are dropped.
    let mut w16 = [[0u32; L]; 16];
    let mut st = [[0u32; L]; 5];
    let mut out = [[0u32; L]; 5];
    let mut late = [0u32; L];
    let mut owner = [0u32; L];
    let mut used = 0;
    for (j, c) in batch.held().iter().enumerate() {
        let mut mask = c.mask;
        while mask != 0 {
            let dv = &DVS[mask.trailing_zeros() as usize];
            mask &= mask - 1;
            for (t, x) in w16.iter_mut().enumerate() {
                x[used] = c.w[t] ^ dv.dm[t];
            }
            let s = if dv.test_step == 58 {
                c.known.s58
            } else {
                late[used] = !0;
                c.known.s65
            };
            for i in 0..5 {
                st[i][used] = s[i];
                out[i][used] = c.ihv_out[i];
            }
            owner[used] = j as u32;
            used += 1;
        }
    }
    // SAFETY: the caller guarantees the instructions.
    unsafe {
        // The other message, `m2 = w ^ dm`, follows SHA-1's message
        // expansion as both `w` and `dm` do: expand it from 16 words.
        let mut m2 = [V::splat(0); 80];
        for t in 0..16 {
            m2[t] = V::load(&w16[t]);
        }
        for t in 16..80 {
            m2[t] = m2[t - 3].xor4(m2[t - 8], m2[t - 14], m2[t - 16]).rol1();
        }
        let st: [V; 5] = core::array::from_fn(|i| V::load(&st[i]));
        let late_v = V::load(&late);
        // Steps 58..80 from each lane's test state; the lanes tested at
        // step 65 take theirs there (`ch` selects by the mask).
        let s = forward(st, &m2, 58, 65);
        let s: [V; 5] = core::array::from_fn(|i| V::ch(late_v, st[i], s[i]));
        let f2 = forward(s, &m2, 65, 80);
        // The other block's input, and the steps from it to the test.
        let x: [V; 5] = core::array::from_fn(|i| V::load(&out[i]).sub(f2[i]));
        let late_bits = late_v.eq_lanes(V::splat(!0));
        let s = forward(x, &m2, 0, 58);
        let mut lanes = eq5(s, st) & !late_bits;
        if late_bits != 0 {
            lanes |= eq5(forward(s, &m2, 58, 65), st) & late_bits;
        }
        lanes &= (1u32 << used) - 1;
        let mut cands = 0;
        while lanes != 0 {
            cands |= 1 << owner[lanes.trailing_zeros() as usize];
            lanes &= lanes - 1;
        }
        cands
    }
}

/// [`hits`] in the 8 lanes of AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx,avx2")]
pub(crate) unsafe fn hits_avx2(batch: &Batch<8>) -> u32 {
    // SAFETY: the caller guarantees AVX2, which `__m256i`'s lane
    // operations use.
    unsafe { hits::<__m256i, 8>(batch) }
}

/// [`hits`] in the 4 lanes of SSE2.
///
/// # Safety
///
/// The CPU must have SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn hits_sse2(batch: &Batch<4>) -> u32 {
    // SAFETY: the caller guarantees SSE2, which `__m128i`'s lane
    // operations use.
    unsafe { hits::<__m128i, 4>(batch) }
}

#[cfg(test)]
mod tests {
    use super::super::{check_block, compress_expanded, expand, unstep, DcConfig, ScalarSteps};
    use super::super::{Forward, DVS};
    use super::*;
    use crate::cpu::{Avx2Token, Sse2Token};

    /// A random candidate, and whether the scalar check finds a match.
    /// Random blocks never match, so one in three is made to: the output
    /// of one of its vectors is set to the other block's, which the
    /// reference's backward steps give.
    fn candidate(rnd: &mut impl FnMut() -> u32, block: usize) -> (Candidate, bool) {
        let bytes: [u8; 64] = core::array::from_fn(|_| rnd() as u8);
        let w = expand(&bytes);
        let ihv_in: [u32; 5] = core::array::from_fn(|_| rnd());
        let mut ihv_out = ihv_in;
        compress_expanded(&mut ihv_out, &w);
        let known = TestStates {
            s58: ScalarSteps.forward(ihv_in, &w, 0, 58),
            s65: ScalarSteps.forward(ihv_in, &w, 0, 65),
        };
        // One to three vectors, mixing test steps 58 and 65.
        let mut mask = 0u32;
        for _ in 0..1 + rnd() % 3 {
            mask |= 1 << (rnd() % 32);
        }
        if rnd().is_multiple_of(3) {
            // One of the mask's vectors, at random.
            let pick = rnd() % mask.count_ones();
            let n = (0..32)
                .filter(|&n| mask >> n & 1 != 0)
                .nth(pick as usize)
                .unwrap();
            let dv = &DVS[n];
            let tt = dv.test_step;
            let st = if tt == 58 { known.s58 } else { known.s65 };
            let m2: Expanded = core::array::from_fn(|t| w[t] ^ dv.dm[t]);
            let ihv2 = (0..tt).rev().fold(st, |s, t| unstep(s, t, m2[t]));
            let f2 = ScalarSteps.forward(st, &m2, tt, 80);
            ihv_out = core::array::from_fn(|i| ihv2[i].wrapping_add(f2[i]));
        }
        let cfg = DcConfig::default();
        let hit = check_block(
            &cfg,
            0,
            ihv_in,
            ihv_out,
            &w,
            mask,
            Some(known),
            &ScalarSteps,
        );
        let c = Candidate {
            block,
            ihv_in,
            ihv_out,
            known,
            mask,
            w,
        };
        (c, hit.is_some())
    }

    /// Fills batches of `L` lanes with random candidates and compares the
    /// lanes' verdicts with the scalar check's.
    fn lanes_equal_the_scalar_check<const L: usize>(hits: impl Fn(&Batch<L>) -> u32) {
        let mut rand = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15 ^ L as u64);
        let mut rnd = move || rand() as u32;
        let (mut matches, mut late_and_not) = (0, 0);
        for round in 0..400 {
            let mut batch = Batch::<L>::new();
            let mut want = 0u32;
            for j in 0..L {
                let (c, hit) = candidate(&mut rnd, j);
                if !batch.fits(c.mask) {
                    break;
                }
                // SAFETY: SSE2 is in every x86 CPU this test runs on (the
                // callers check for it).
                unsafe { batch.push(c.block, c.ihv_in, c.ihv_out, c.known, c.mask, &c.w) };
                want |= u32::from(hit) << j;
            }
            let got = hits(&batch);
            assert_eq!(got, want, "round {round}");
            matches += want.count_ones();
            let tts = batch.held().iter().fold(0, |m, c| {
                let mut r = c.mask;
                let mut t = 0;
                while r != 0 {
                    t |= if DVS[r.trailing_zeros() as usize].test_step == 58 {
                        1
                    } else {
                        2
                    };
                    r &= r - 1;
                }
                m | t
            });
            late_and_not += u32::from(tts == 3);
        }
        assert!(
            matches > 200 && late_and_not > 100,
            "{matches} {late_and_not}"
        );
    }

    #[test]
    fn avx2_lanes_equal_the_scalar_check() {
        if Avx2Token::get().is_none() {
            return;
        }
        // SAFETY: the token proves AVX2.
        lanes_equal_the_scalar_check::<8>(|b| unsafe { hits_avx2(b) });
    }

    #[test]
    fn sse2_lanes_equal_the_scalar_check() {
        if Sse2Token::get().is_none() {
            return;
        }
        // SAFETY: the token proves SSE2.
        lanes_equal_the_scalar_check::<4>(|b| unsafe { hits_sse2(b) });
    }
}
