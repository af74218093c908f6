//! The lane operations on 128-bit registers: four 32-bit lanes with SSE2
//! only. No multi-buffer kernel uses them (four lanes of SSE2 hash no
//! faster than the one-stream SSSE3 kernel); the one-stream SSSE3
//! detector tests its candidates in them (`dc::x86_batch`), with the
//! multi-buffer detector's vector steps.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::lanes::LaneVec;
use super::lanes_dc::{test, Batch};

/// `x` rotated left by `$n` (`$m` = 32 - `$n`).
macro_rules! rol {
    ($x:expr, $n:literal, $m:literal) => {
        _mm_or_si128(_mm_slli_epi32::<$n>($x), _mm_srli_epi32::<$m>($x))
    };
}

impl LaneVec for __m128i {
    const LANES: usize = 4;
    #[inline(always)]
    unsafe fn load(p: &[u32]) -> Self {
        assert!(p.len() >= Self::LANES);
        // SAFETY: `p` has the 4 words read (checked); the caller's entry
        // point enables SSE2.
        unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: &mut [u32]) {
        assert!(p.len() >= Self::LANES);
        // SAFETY: as for `load`, writing.
        unsafe { _mm_storeu_si128(p.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the caller's entry point enables SSE2.
        unsafe { _mm_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_add_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor4(self, b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_xor_si128(_mm_xor_si128(self, b), _mm_xor_si128(c, d)) }
    }
    #[inline(always)]
    unsafe fn ch(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. `d ^ (b & (c ^ d))`.
        unsafe { _mm_xor_si128(d, _mm_and_si128(b, _mm_xor_si128(c, d))) }
    }
    #[inline(always)]
    unsafe fn parity(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_xor_si128(_mm_xor_si128(b, c), d) }
    }
    #[inline(always)]
    unsafe fn maj(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. `(b & c) | (d & (b | c))`.
        unsafe { _mm_or_si128(_mm_and_si128(b, c), _mm_and_si128(d, _mm_or_si128(b, c))) }
    }
    #[inline(always)]
    unsafe fn rol1(self) -> Self {
        // SAFETY: as above.
        unsafe { rol!(self, 1, 31) }
    }
    #[inline(always)]
    unsafe fn rol5(self) -> Self {
        // SAFETY: as above.
        unsafe { rol!(self, 5, 27) }
    }
    #[inline(always)]
    unsafe fn rol30(self) -> Self {
        // SAFETY: as above.
        unsafe { rol!(self, 30, 2) }
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_sub_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_xor_si128(self, o) }
    }
    #[inline(always)]
    unsafe fn kill_if<const SHL: u32, const SHR: u32>(
        kill: Self,
        wa: Self,
        wb: Self,
        bit: u32,
        expect: u32,
        dvs: u32,
    ) -> Self {
        // SAFETY: as above. A lane passes when its tested bit equals
        // `expect`; the others get `dvs`.
        unsafe {
            let y = if SHL > 0 {
                _mm_sll_epi32(wb, _mm_cvtsi32_si128(SHL as i32))
            } else {
                _mm_srl_epi32(wb, _mm_cvtsi32_si128(SHR as i32))
            };
            let t = _mm_and_si128(_mm_xor_si128(wa, y), Self::splat(bit));
            let ok = _mm_cmpeq_epi32(t, Self::splat(expect));
            _mm_or_si128(kill, _mm_andnot_si128(ok, Self::splat(dvs)))
        }
    }
    #[inline(always)]
    unsafe fn nonzero_lanes(self) -> u32 {
        // SAFETY: as above.
        unsafe { !self.eq_lanes(_mm_setzero_si128()) & 0xF }
    }
    #[inline(always)]
    unsafe fn lane(self, i: usize) -> u32 {
        assert!(i < Self::LANES);
        let mut x = [0u32; 4];
        // SAFETY: as above.
        unsafe { self.store(&mut x) };
        x[i]
    }
    #[inline(always)]
    unsafe fn test_batch(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
        // SAFETY: as above.
        unsafe { test_batch4(b, tt, reduced_round) }
    }
    #[inline(always)]
    unsafe fn eq_lanes(self, o: Self) -> u32 {
        // SAFETY: as above. The sign bits of the compare, one per lane.
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(self, o))) as u32 }
    }
}

/// # Safety
///
/// The CPU must have SSE2.
#[inline(never)]
#[target_feature(enable = "sse2")]
unsafe fn test_batch4(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
    // SAFETY: SSE2, `__m128i`'s feature, is enabled here.
    unsafe { test::<__m128i>(b, tt, reduced_round) }
}

#[cfg(test)]
mod tests {
    use super::super::lanes_dc::tests;
    use super::*;
    use crate::cpu::Sse2Token;

    #[target_feature(enable = "sse2")]
    unsafe fn filter() {
        // SAFETY: the features of `__m128i` are enabled.
        unsafe { tests::filter_matches_the_table::<__m128i>() }
    }

    #[target_feature(enable = "sse2")]
    unsafe fn check() {
        // SAFETY: as above.
        unsafe { tests::test_matches_the_reference::<__m128i>() }
    }

    #[test]
    fn filter_matches_the_table() {
        if Sse2Token::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { filter() }
        }
    }

    #[test]
    fn test_matches_the_reference() {
        if Sse2Token::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { check() }
        }
    }
}
