//! The unavoidable-bit-condition filter with SSE2 (4 lanes) and AVX2
//! (8 lanes): each step tests one condition per lane for consecutive
//! schedule words (see [`Chunk`]), so the whole filter is a short
//! branch-free sequence of loads, shifts and compares that the core can
//! overlap with the round chain of the next block.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{plan, Chunk, Expanded};

/// Runs `$body` with `$i` bound to each constant index below `$n` (at
/// most 64), so every step's shift counts and lane constants are
/// immediates rather than loads from a table.
macro_rules! unroll {
    ($n:expr, |$i:ident| $body:block) => {
        unroll!(@ $n, $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
            24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50
            51 52 53 54 55 56 57 58 59 60 61 62 63)
    };
    (@ $n:expr, $i:ident, $body:block, $($k:literal)*) => {
        const _: () = assert!($n <= 64);
        $(
            if $k < $n {
                const $i: usize = if $k < $n { $k } else { 0 };
                $body
            }
        )*
    };
}

const N4: usize = plan::<4, 0>().1;
const PLAN4: [Chunk<4>; N4] = plan::<4, N4>().0;
const N8: usize = plan::<8, 0>().1;
const PLAN8: [Chunk<8>; N8] = plan::<8, N8>().0;

/// Steps `LO..HI` of the SSE2 filter on `w`, or-ed into `kill`: kernels
/// spread the filter of one block over the rounds of the next.
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_steps<const LO: usize, const HI: usize>(
    mut kill: __m128i,
    w: &Expanded,
) -> __m128i {
    let p = w.as_ptr();
    unroll!(N4, |I| {
        if (LO..HI).contains(&I) {
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
                let ok = _mm_cmpeq_epi32(t, _mm_loadu_si128(ch.expect.as_ptr().cast()));
                kill = _mm_or_si128(
                    kill,
                    _mm_andnot_si128(ok, _mm_loadu_si128(ch.dvs.as_ptr().cast())),
                );
            }
        }
    });
    kill
}

/// The candidate mask from the accumulated failures of [`sse2_steps`].
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline(always)]
pub(crate) unsafe fn sse2_finish(kill: __m128i) -> u32 {
    // SAFETY: the caller guarantees SSE2.
    unsafe {
        let k = _mm_or_si128(kill, _mm_shuffle_epi32(kill, 0x4E));
        let k = _mm_or_si128(k, _mm_shuffle_epi32(k, 0xB1));
        !(_mm_cvtsi128_si32(k) as u32)
    }
}

/// The number of steps of the SSE2 filter.
pub(crate) const SSE2_STEPS: usize = N4;

/// The candidate mask of `w`, with SSE2. Equal to [`super::ubc_mask`].
///
/// # Safety
///
/// The CPU must have SSE2.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn ubc_mask_sse2(w: &Expanded) -> u32 {
    // SAFETY: SSE2 is enabled here.
    unsafe { sse2_finish(sse2_steps::<0, N4>(_mm_setzero_si128(), w)) }
}

/// Steps `LO..HI` of the AVX2 filter on `w`, or-ed into `kill` (folded
/// to 128 bits). Ends with `vzeroupper`: the SHA extensions have no VEX
/// form, and legacy-SSE code after 256-bit code with dirty upper halves
/// ran ~80x slower on the Zen 3 measured.
///
/// # Safety
///
/// The CPU must have AVX2 and the OS must save ymm state.
#[inline(always)]
pub(crate) unsafe fn avx2_steps<const LO: usize, const HI: usize>(
    kill: __m128i,
    w: &Expanded,
) -> __m128i {
    let p = w.as_ptr();
    // SAFETY: the caller guarantees AVX2.
    let mut acc = unsafe { _mm256_setzero_si256() };
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
                acc = _mm256_or_si256(
                    acc,
                    _mm256_andnot_si256(ok, _mm256_loadu_si256(ch.dvs.as_ptr().cast())),
                );
            }
        }
    });
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let k = _mm_or_si128(
            kill,
            _mm_or_si128(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256(acc, 1),
            ),
        );
        _mm256_zeroupper();
        k
    }
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
    unsafe { sse2_finish(avx2_steps::<0, N8>(_mm_setzero_si128(), w)) }
}

/// The expanded message of a 64-byte block, four words per step: the
/// schedule of the kernels whose rounds do not hand theirs out.
///
/// # Safety
///
/// The CPU must have SSSE3; `block` must be 64 bytes long.
#[inline(always)]
pub(crate) unsafe fn expand_ssse3(block: &[u8], w: &mut Expanded) {
    debug_assert_eq!(block.len(), 64);
    // SAFETY: the caller guarantees SSSE3 (and so SSE2) and 64 bytes.
    unsafe {
        let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        let mut v = [_mm_setzero_si128(); 20];
        let p = block.as_ptr();
        for (i, vi) in v.iter_mut().take(4).enumerate() {
            *vi = _mm_shuffle_epi8(_mm_loadu_si128(p.add(16 * i).cast()), bswap);
        }
        for k in 4..20 {
            // Words 4k..4k+4: W[t-16] ^ W[t-14] ^ W[t-8] ^ W[t-3], rotated;
            // the last lane's W[t-3] is this vector's first word, patched in.
            let a = v[k - 4];
            let b = _mm_alignr_epi8(v[k - 3], v[k - 4], 8);
            let c = v[k - 2];
            let d = _mm_srli_si128(v[k - 1], 4);
            let x = _mm_xor_si128(_mm_xor_si128(a, b), _mm_xor_si128(c, d));
            let r = _mm_or_si128(_mm_slli_epi32(x, 1), _mm_srli_epi32(x, 31));
            let f = _mm_slli_si128(r, 12);
            let f = _mm_or_si128(_mm_slli_epi32(f, 1), _mm_srli_epi32(f, 31));
            v[k] = _mm_xor_si128(r, f);
        }
        for (k, vk) in v.iter().enumerate() {
            _mm_storeu_si128(w.as_mut_ptr().add(4 * k).cast(), *vk);
        }
    }
}

/// Expands `block` into `w` and returns its candidate mask, with SSSE3
/// and SSE2.
///
/// # Safety
///
/// The CPU must have SSSE3; `block` must be 64 bytes long.
#[target_feature(enable = "ssse3")]
pub(crate) unsafe fn expand_and_mask_ssse3(block: &[u8], w: &mut Expanded) -> u32 {
    // SAFETY: SSSE3 is enabled; the caller guarantees the length.
    unsafe {
        expand_ssse3(block, w);
        sse2_finish(sse2_steps::<0, N4>(_mm_setzero_si128(), w))
    }
}

/// Expands `block` into `w` and returns its candidate mask, with SSSE3
/// and AVX2.
///
/// # Safety
///
/// The CPU must have AVX2 (and so SSSE3) with OS ymm support; `block` must
/// be 64 bytes long.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn expand_and_mask_avx2(block: &[u8], w: &mut Expanded) -> u32 {
    // SAFETY: AVX2 (with SSSE3) is enabled; the caller guarantees the
    // length.
    unsafe {
        expand_ssse3(block, w);
        sse2_finish(avx2_steps::<0, N8>(_mm_setzero_si128(), w))
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
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut nonzero = 0;
        for _ in 0..100_000 {
            let block: [u8; 64] = core::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            });
            let w = expand(&block);
            let want = ubc_mask(&w);
            nonzero += usize::from(want != 0);
            if crate::cpu::Sse2Token::get().is_some() {
                // SAFETY: SSE2 was just detected.
                assert_eq!(unsafe { ubc_mask_sse2(&w) }, want);
            }
            if crate::cpu::Ssse3Token::get().is_some() {
                let mut v = [0; 80];
                // SAFETY: SSSE3 was just detected; the block is 64 bytes.
                assert_eq!(unsafe { expand_and_mask_ssse3(&block, &mut v) }, want);
                assert_eq!(v, w);
            }
            if crate::cpu::Avx2MulToken::get().is_some() {
                let mut v = [0; 80];
                // SAFETY: AVX2 and OS ymm support were just detected.
                assert_eq!(unsafe { expand_and_mask_avx2(&block, &mut v) }, want);
                assert_eq!(v, w);
            }
            if crate::cpu::Avx2MulToken::get().is_some() {
                // SAFETY: AVX2 and OS ymm support were just detected.
                assert_eq!(unsafe { ubc_mask_avx2(&w) }, want);
            }
        }
        assert!(nonzero > 3000, "{nonzero}");
        assert!(STEPS.0 > STEPS.1 && STEPS.1 > 20, "{STEPS:?}");
    }
}
