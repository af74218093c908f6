//! The unavoidable-bit-condition filter with SSE2 (4 lanes) and AVX2
//! (8 lanes): each step tests one condition per lane for consecutive
//! schedule words (see [`Chunk`]), so the filter is a short branch-free
//! sequence of loads, shifts and compares that the core can overlap with
//! the round chain of the next block. Only a prefix of the steps runs on
//! every block, the ones that rule out the most (see [`plan`]); for the
//! blocks they leave a candidate (about one in eight), [`Tail`] tests the
//! rest of the conditions of those candidates only.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{plan, Chunk, Expanded, Tail};

/// Every step of the SSE2 and AVX2 filters (52 and 35), in the order
/// they run. A kernel runs a prefix of them on every block, as many as
/// its spare issue slots pay for, and the tail of that prefix for the
/// blocks it leaves a candidate.
const N4: usize = plan::<4, 0>().0;
const N8: usize = plan::<8, 0>().0;
const PLAN4: [Chunk<4>; N4] = plan::<4, N4>().1;
const PLAN8: [Chunk<8>; N8] = plan::<8, N8>().1;

/// The end of steps `..x` of a filter that runs its first `p` steps.
pub(crate) const fn cap(x: usize, p: usize) -> usize {
    if x < p {
        x
    } else {
        p
    }
}

/// The tails of the prefixes of `L`-lane plans.
struct Tails<const L: usize, const P: usize>;

impl<const L: usize, const P: usize> Tails<L, P> {
    const TAIL: &'static Tail = &Tail::new::<L, P>();
}

/// Prefix lengths of the kernels that filter between their rounds (the
/// rest of each filter is a scalar [`Tail`] for the blocks the prefix
/// leaves a candidate; chosen by measurement, see the kernels).
pub(crate) const SSE2_PREFIX: usize = 24;
pub(crate) const AVX2_PREFIX: usize = 15;

/// Prefix lengths of the whole-block filters, which run after a call's
/// last rounds with nothing to hide behind: after the prefix, a block that
/// still has a candidate runs the remaining steps in SIMD too, not the
/// scalar tail. A message's last block is mostly padding, and on such
/// sparse blocks many conditions hold, so the scalar tail tested dozens
/// of them one by one. Measured on an AMD EPYC Zen 4 (2026-12-05), one-shot
/// detection over sliding windows of random data, per message, against
/// the previous filters (AVX2 15 steps, SSE2 24, then the scalar tail):
/// SHA-NI 8 / 64 / 128 / 1024 B 68.2 -> 66.8, 117.7 -> 104.4,
/// 153.3 -> 139.8, 671 -> 657 ns (AVX2 prefixes of 10, 15 and 25 steps
/// were slower: 70.4, 67.2 and 70.3 ns at 8 B; 111.6, 111.1 and 105.8
/// at 64 B); the AVX2 backend's hasher at 64 / 128 B 234.5 -> 216.3,
/// 305.6 -> 287.5 ns; the SSSE3 backend's at 64 / 128 B 248.2 -> 243.9,
/// 350.6 -> 343.4 ns (SSE2 prefixes of 16, 24 and 40 steps no better).
const SSE2_WHOLE: usize = 32;
const AVX2_WHOLE: usize = 20;

/// Steps `LO..HI` of the SSE2 filter on `w`, or-ed into `kill`.
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_steps<const LO: usize, const HI: usize>(
    kill: __m128i,
    w: &Expanded,
) -> __m128i {
    // SAFETY: the caller guarantees SSE2.
    unsafe { sse2_range::<false>(kill, w, LO, HI) }
}

/// Share `G` (0..20) of steps `0..P` of the SSE2 filter on `w`, or-ed
/// into `kill`: kernels spread the filter of one block over the 20 round
/// groups of the next, `P.div_ceil(20)` steps after each group until the
/// `P` are done. The kernel's prefix `P` is a parameter so that one
/// kernel body serves prefixes measured on different cores.
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_share<const P: usize, const G: usize>(
    kill: __m128i,
    w: &Expanded,
) -> __m128i {
    // SAFETY: the caller guarantees SSE2.
    unsafe { sse2_range::<false>(kill, w, share_lo(P, G), share_lo(P, G + 1)) }
}

/// A share that tests nothing: the filter beside a call's first block,
/// which has no block before it. Running [`sse2_share`] over a dummy
/// schedule there instead cost 5-7% of a one- or two-block message's
/// time on an AMD EPYC Zen 4 (2026-12-05).
///
/// # Safety
///
/// None needed; `unsafe` only to match [`sse2_share`]'s signature.
#[inline(always)]
pub(crate) unsafe fn no_share<const P: usize, const G: usize>(
    kill: __m128i,
    _: &Expanded,
) -> __m128i {
    kill
}

/// Where share `g` of a `p`-step prefix starts (and share `g - 1` ends).
const fn share_lo(p: usize, g: usize) -> usize {
    cap(g * p.div_ceil(20), p)
}

/// [`sse2_share`] for code compiled with AVX-512VL. There LLVM turns
/// each step's compare and mask into a `vptestmd` or `vpcmpneqd` to an
/// opmask register and a masked move; on Intel those run on port 5,
/// beside `sha1rnds4`. This form keeps the compare in a vector register
/// (`vpcmpeqd`, then one `vpternlogd` for the or-not-and), with which
/// the SHA-NI kernel's EVEX form ran 1.03x faster than with the opmask
/// form (measured as `sha1::x86_shani::compress_dc_evex` says).
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_share_vec<const P: usize, const G: usize>(
    kill: __m128i,
    w: &Expanded,
) -> __m128i {
    // SAFETY: the caller guarantees SSE2.
    unsafe { sse2_range::<true>(kill, w, share_lo(P, G), share_lo(P, G + 1)) }
}

/// Steps `lo..hi` of the SSE2 filter; inlined with constant bounds, the
/// steps outside them fold away. With `VEC`, each compare's result goes
/// through an empty asm, so that it stays a vector (see
/// [`sse2_share_vec`]).
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
unsafe fn sse2_range<const VEC: bool>(
    mut kill: __m128i,
    w: &Expanded,
    lo: usize,
    hi: usize,
) -> __m128i {
    let p = w.as_ptr();
    unroll!(N4, |I| {
        if (lo..hi).contains(&I) {
            let ch = &PLAN4[I];
            // SAFETY: `plan` asserts a + delta + 4 <= 80, the length of
            // `w`; the constant vectors are [u32; 4] fields; the caller
            // guarantees SSE2.
            unsafe {
                let x = _mm_loadu_si128(p.add(ch.a).cast());
                let y = _mm_loadu_si128(p.add(ch.a + ch.delta).cast());
                let y = if ch.shl > 0 {
                    _mm_sll_epi32(y, _mm_cvtsi32_si128(ch.shl as i32))
                } else {
                    _mm_srl_epi32(y, _mm_cvtsi32_si128(ch.shr as i32))
                };
                let t = _mm_and_si128(_mm_xor_si128(x, y), _mm_loadu_si128(ch.bit.as_ptr().cast()));
                let mut ok = _mm_cmpeq_epi32(t, _mm_loadu_si128(ch.expect.as_ptr().cast()));
                if VEC {
                    // The asm emits no instruction; it only names the
                    // register.
                    core::arch::asm!(
                        "/* {0} */",
                        inout(xmm_reg) ok,
                        options(pure, nomem, nostack, preserves_flags)
                    );
                }
                kill = _mm_or_si128(
                    kill,
                    _mm_andnot_si128(ok, _mm_loadu_si128(ch.dvs.as_ptr().cast())),
                );
            }
        }
    });
    kill
}

/// The mask of the candidates the accumulated failures `kill` leave.
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
unsafe fn survivors(kill: __m128i) -> u32 {
    // SAFETY: the caller guarantees SSE2.
    unsafe {
        let k = _mm_or_si128(kill, _mm_shuffle_epi32(kill, 0x4E));
        let k = _mm_or_si128(k, _mm_shuffle_epi32(k, 0xB1));
        !(_mm_cvtsi128_si32(k) as u32)
    }
}

/// The candidate mask of `w` from the failures `kill` accumulated by
/// steps `0..P` of [`sse2_steps`].
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_finish<const P: usize>(kill: __m128i, w: &Expanded) -> u32 {
    // SAFETY: the caller guarantees SSE2.
    match unsafe { survivors(kill) } {
        0 => 0,
        mask => Tails::<4, P>::TAIL.finish(w, mask),
    }
}

/// The candidate mask of `w` from the failures `kill` accumulated by
/// steps `0..P` of [`avx2_steps`].
///
/// # Safety
///
/// The CPU must have AVX2 and the OS must save ymm state.
#[inline(always)]
pub(crate) unsafe fn avx2_finish<const P: usize>(kill: __m256i, w: &Expanded) -> u32 {
    // SAFETY: the caller guarantees AVX2.
    let half = unsafe {
        _mm_or_si128(
            _mm256_castsi256_si128(kill),
            _mm256_extracti128_si256(kill, 1),
        )
    };
    // SAFETY: AVX2 implies SSE2.
    match unsafe { survivors(half) } {
        0 => 0,
        mask => Tails::<8, P>::TAIL.finish(w, mask),
    }
}

/// The candidate mask of `w`, with SSE2. Equal to [`super::ubc_mask`].
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn ubc_mask_sse2(w: &Expanded) -> u32 {
    // SAFETY: SSE2 is enabled here.
    unsafe { whole_sse2::<SSE2_WHOLE, false>(w) }
}

/// [`ubc_mask_sse2`] for the SHA-NI kernel compiled with AVX-512VL
/// (`sha1::x86_shani::compress_dc_evex`, Intel): inlined there, with the
/// prefix measured there and the compares kept in vector registers (see
/// [`sse2_share_vec`]). Measured on an Intel Xeon (Sapphire Rapids class,
/// family 6, model 167, 2026-12-05), detection / plain SHA-1 in the same
/// run, medians of 7-11 runs, 8 B / 64 B / 200 B / 1 KiB / 8 KiB / 1 MiB:
///
/// - before, [`ubc_mask_sse2`] (32 steps) called out of line, in legacy
///   SSE: 0.75-0.76 / 0.64 / 0.67 / 0.72 / 0.75 / 0.76x;
/// - that form with other prefixes, at 8 / 64 / 200 B: 16 steps 0.73 /
///   0.65 / 0.66x, 20 0.77 / 0.65 / 0.67x, 24 0.78 / 0.65 / 0.67x, 28
///   0.76 / 0.66 / 0.67x, 40 0.72 / 0.65 / 0.64x, 52 0.68 / 0.65 /
///   0.62x;
/// - inlined, 24 steps, compares on opmask registers: 0.81 / 0.70 / 0.70
///   / 0.75x (8 B to 1 KiB); in vector registers (shipped): 0.82 /
///   0.65-0.70 / 0.71 / 0.75-0.76 / 0.78 / 0.79x.
///
/// This filter runs once per message, so the 8 KiB and 1 MiB gains come
/// from the kernel's code as a whole, which inlining changed, not from
/// the filter's own time.
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn ubc_mask_sse2_evex(w: &Expanded) -> u32 {
    // SAFETY: SSE2 is enabled here.
    unsafe { whole_sse2::<SSE2_WHOLE_EVEX, true>(w) }
}

/// The prefix of [`ubc_mask_sse2_evex`] (measured there).
const SSE2_WHOLE_EVEX: usize = 24;

/// The whole-block SSE2 filter: steps `..P`, then the rest in SIMD for
/// what they leave (`VEC`: see [`sse2_share_vec`]).
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
unsafe fn whole_sse2<const P: usize, const VEC: bool>(w: &Expanded) -> u32 {
    // SAFETY: the caller guarantees SSE2.
    unsafe {
        let kill = sse2_range::<VEC>(_mm_setzero_si128(), w, 0, P);
        match survivors(kill) {
            0 => 0,
            _ => survivors(sse2_range::<VEC>(kill, w, P, N4)),
        }
    }
}

/// Steps `LO..HI` of the AVX2 filter on `w`, or-ed into `kill`. No
/// `vzeroupper`: the AVX2 kernel is VEX-encoded throughout, and an
/// explicit one inside its loop made the compiler spill every vector
/// register around it. Code that goes on to legacy-SSE instructions (the
/// SHA extensions have no VEX form) must clear the upper halves itself,
/// as [`ubc_mask_avx2`] does.
///
/// # Safety
///
/// The CPU must have AVX2 and the OS must save ymm state.
#[inline(always)]
pub(crate) unsafe fn avx2_steps<const LO: usize, const HI: usize>(
    mut kill: __m256i,
    w: &Expanded,
) -> __m256i {
    let p = w.as_ptr();
    unroll!(N8, |I| {
        if (LO..HI).contains(&I) {
            let ch = &PLAN8[I];
            // SAFETY: `plan` asserts a + delta + 8 <= 80, the length of
            // `w`; the constant vectors are [u32; 8] fields; the caller
            // guarantees AVX2.
            unsafe {
                let x = _mm256_loadu_si256(p.add(ch.a).cast());
                let y = _mm256_loadu_si256(p.add(ch.a + ch.delta).cast());
                let y = if ch.shl > 0 {
                    _mm256_sll_epi32(y, _mm_cvtsi32_si128(ch.shl as i32))
                } else {
                    _mm256_srl_epi32(y, _mm_cvtsi32_si128(ch.shr as i32))
                };
                let t = _mm256_and_si256(
                    _mm256_xor_si256(x, y),
                    _mm256_loadu_si256(ch.bit.as_ptr().cast()),
                );
                let ok = _mm256_cmpeq_epi32(t, _mm256_loadu_si256(ch.expect.as_ptr().cast()));
                kill = _mm256_or_si256(
                    kill,
                    _mm256_andnot_si256(ok, _mm256_loadu_si256(ch.dvs.as_ptr().cast())),
                );
            }
        }
    });
    kill
}

/// The candidate mask of `w`, with AVX2. Equal to [`super::ubc_mask`].
///
/// # Safety
///
/// The CPU must have AVX2 and the OS must save ymm state.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn ubc_mask_avx2(w: &Expanded) -> u32 {
    // SAFETY: AVX2 is enabled here.
    unsafe {
        let half = |kill: __m256i| {
            _mm_or_si128(
                _mm256_castsi256_si128(kill),
                _mm256_extracti128_si256(kill, 1),
            )
        };
        let kill = avx2_steps::<0, AVX2_WHOLE>(_mm256_setzero_si256(), w);
        let mask = match survivors(half(kill)) {
            0 => 0,
            _ => survivors(half(avx2_steps::<AVX2_WHOLE, N8>(kill, w))),
        };
        // Callers may go on to legacy-SSE code (the SHA-NI kernel).
        _mm256_zeroupper();
        mask
    }
}

/// Number of SIMD steps of each filter.
#[cfg(test)]
const STEPS: (usize, usize) = (N4, N8);

#[cfg(test)]
mod tests {
    use super::super::{expand, ubc_mask};
    use super::*;

    #[test]
    fn filters_equal_the_table() {
        // About one random block in twenty has candidates, so both
        // outcomes of every step are exercised.
        let mut rand = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15);
        let (mut nonzero, mut past_whole) = (0, 0);
        for i in 0..100_000 {
            // Every fourth block sparse, as a message's padded last block
            // is: a few random bytes at the start, then zeros, a random
            // bit length. Those run every step of the whole-block filters.
            let mut block: [u8; 64] = core::array::from_fn(|_| rand() as u8);
            if i % 4 == 0 {
                let n = (rand() % 57) as usize;
                block[n..56].fill(0);
                block[56..61].fill(0);
            }
            let w = expand(&block);
            let want = ubc_mask(&w);
            nonzero += usize::from(want != 0);
            if crate::cpu::Sse2Token::get().is_some() {
                // SAFETY: SSE2 was just detected.
                assert_eq!(unsafe { ubc_mask_sse2(&w) }, want);
                // SAFETY: as above.
                assert_eq!(unsafe { ubc_mask_sse2_evex(&w) }, want);
                // SAFETY: as above.
                let kill = unsafe { sse2_steps::<0, SSE2_WHOLE>(_mm_setzero_si128(), &w) };
                // SAFETY: as above.
                past_whole += usize::from(unsafe { survivors(kill) } != 0);
                // Other prefixes: the SHA-NI kernel's, none, all.
                // SAFETY: as above.
                unsafe {
                    let z = _mm_setzero_si128();
                    assert_eq!(sse2_finish::<16>(sse2_steps::<0, 16>(z, &w), &w), want);
                    assert_eq!(sse2_finish::<0>(z, &w), want);
                    assert_eq!(sse2_finish::<N4>(sse2_steps::<0, N4>(z, &w), &w), want);
                }
            }
            if crate::cpu::Avx2MulToken::get().is_some() {
                // SAFETY: AVX2 and OS ymm support were just detected.
                assert_eq!(unsafe { ubc_mask_avx2(&w) }, want);
            }
        }
        assert!(nonzero > 3000, "{nonzero}");
        // Both outcomes of the whole-block filters' SIMD rest, too: blocks
        // it clears, and the candidates.
        assert!(past_whole > nonzero + 1000, "{nonzero} {past_whole}");
        assert!(STEPS.0 > STEPS.1 && STEPS.1 > 20, "{STEPS:?}");
    }
}
