//! Constant-time GHASH for x86 CPUs without carry-less multiplication, on
//! AVX2's 256-bit integer multipliers (`vpmuludq`, four lanes).
//!
//! The method and its constant-time argument are those of
//! [`super::x86_sse2`], whose lane-generic kernel this backend runs with
//! four blocks per register instead of two; the VEX encoding also spares
//! the register copies that SSE2's destructive two-operand multiply needs.
//! Needs AVX2 with OS-saved YMM state, nothing more (no carry-less
//! multiplication: a CPU with PCLMULQDQ uses the `pclmul` backends).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86_sse2::{update_lanes, Lanes, MulKey};
use super::BLOCK_LEN;
use crate::cpu::Avx2MulToken;

/// The AVX2 register: four lanes. Loading two blocks per 128-bit half
/// and unpacking within halves puts blocks 0, 2, 1, 3 in lanes 0..3.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(__m256i);

impl Lanes for Avx2 {
    type Token = Avx2MulToken;
    const W: usize = 4;
    const ORDER: &'static [usize] = &[0, 2, 1, 3];

    #[inline(always)]
    fn zero(_t: Avx2MulToken) -> Self {
        // SAFETY: the token proves AVX.
        Avx2(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    fn load_key(_t: Avx2MulToken, k: &[u64]) -> Self {
        assert!(k.len() == 4);
        // SAFETY: `k` is 32 readable bytes (checked above) at a 32-byte
        // aligned address: `MulKey` is 32-byte aligned and every slice the
        // kernel takes starts at a multiple of 4 words. The token proves
        // AVX.
        Avx2(unsafe { _mm256_load_si256(k.as_ptr().cast()) })
    }

    #[inline(always)]
    fn splat(_t: Avx2MulToken, m: u64) -> Self {
        // SAFETY: the token proves AVX.
        Avx2(unsafe { _mm256_set1_epi64x(m as i64) })
    }

    #[inline(always)]
    fn first(_t: Avx2MulToken, x: u64) -> Self {
        // SAFETY: the token proves AVX.
        Avx2(unsafe { _mm256_set_epi64x(0, 0, 0, x as i64) })
    }

    #[inline(always)]
    fn load_blocks(_t: Avx2MulToken, b: &[u8]) -> (Self, Self) {
        assert!(b.len() == 4 * BLOCK_LEN);
        // SAFETY: `b` is 64 readable bytes (checked above); unaligned
        // loads; the token proves AVX2.
        unsafe {
            // Reverses the bytes of each 64-bit lane.
            let m = _mm256_set_epi64x(
                0x0809_0a0b_0c0d_0e0f,
                0x0001_0203_0405_0607,
                0x0809_0a0b_0c0d_0e0f,
                0x0001_0203_0405_0607,
            );
            let a = _mm256_shuffle_epi8(_mm256_loadu_si256(b.as_ptr().cast()), m);
            let c = _mm256_shuffle_epi8(_mm256_loadu_si256(b.as_ptr().add(32).cast()), m);
            // A block's first 8 bytes, reversed, are its high 64 bits.
            (
                Avx2(_mm256_unpackhi_epi64(a, c)),
                Avx2(_mm256_unpacklo_epi64(a, c)),
            )
        }
    }

    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        assert!(out.len() == 4);
        // SAFETY: `out` is 32 writable bytes (checked above); unaligned
        // store; AVX is proved by the value's existence (see `Lanes`).
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: AVX2 is proved by the value's existence (see `Lanes`).
        Avx2(unsafe { _mm256_and_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Avx2(unsafe { _mm256_or_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Avx2(unsafe { _mm256_xor_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn shr32(self) -> Self {
        // SAFETY: as for `and`.
        Avx2(unsafe { _mm256_srli_epi64::<32>(self.0) })
    }

    #[inline(always)]
    fn mul32(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Avx2(unsafe { _mm256_mul_epu32(self.0, o.0) })
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline]
pub(crate) fn update(t: Avx2MulToken, key: &MulKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: the token proves AVX2, AVX and OS-saved YMM state, all
    // `update_avx2` enables.
    unsafe { update_avx2(t, key, acc, data) }
}

/// The kernel: 8 blocks per step (two registers of four), the last 1..7
/// in a step of their own.
#[target_feature(enable = "avx2,avx")]
unsafe fn update_avx2(t: Avx2MulToken, key: &MulKey, acc: &mut u128, data: &[u8]) {
    update_lanes::<Avx2>(t, key, acc, data);
}

/// The key for this backend.
pub(crate) fn new_key(h: &[u8; BLOCK_LEN]) -> MulKey {
    MulKey::new(h, Avx2::W, Avx2::ORDER)
}
