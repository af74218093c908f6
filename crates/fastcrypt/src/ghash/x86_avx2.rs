//! Constant-time GHASH for x86 CPUs without carry-less multiplication, on
//! AVX2's 256-bit byte shuffles (`vpshufb`, two blocks per register).
//!
//! The method and its constant-time argument are those of
//! [`super::x86_ssse3`], whose lane-generic kernel this backend runs with
//! two blocks per register instead of one: `vpshufb` looks bytes up within
//! each 128-bit lane, so lane 0 holds block `2i` of a step and lane 1 block
//! `2i + 1`, each with the tables of its own power of H (the key's rows are
//! laid out so that one aligned 32-byte load fetches both). The VEX
//! encoding also spares the register copies that SSSE3's destructive
//! two-operand shuffle needs. Needs AVX2 with OS-saved YMM state, nothing
//! more (no carry-less multiplication: a CPU with PCLMULQDQ uses the
//! `pclmul` backends). This replaced an AVX2 port of the `sse2` backend's
//! integer multiplications with holes, which it runs twice as fast.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86_ssse3::{update_lanes, Shuf, ShufKey, Xmm};
use super::BLOCK_LEN;
use crate::cpu::Avx2MulToken;

/// Byte rows summed per pass over a step's blocks (see `step` in
/// [`super::x86_ssse3`]), measured on Zen 3: with 16 registers one row
/// per pass is fastest, with the 8 of 32-bit x86 two.
#[cfg(target_arch = "x86_64")]
const CHUNK: usize = 1;
#[cfg(target_arch = "x86")]
const CHUNK: usize = 2;

/// The AVX2 register: two blocks, one per 128-bit lane (`vpshufb` looks up within each lane,
/// so each lane has its own block's tables).
#[derive(Clone, Copy)]
pub(crate) struct Avx2Shuf(__m256i);

impl Shuf for Avx2Shuf {
    type Token = Avx2MulToken;
    const W: usize = 2;

    #[inline(always)]
    fn xmm(_t: Avx2MulToken) -> Xmm {
        // SAFETY: the token proves AVX, whose VEX-encoded 128-bit forms
        // cover every SSE2 and SSSE3 integer instruction; the kernel is
        // compiled with AVX enabled, so those are what it emits.
        unsafe { Xmm::new() }
    }

    #[inline(always)]
    fn zero(_t: Avx2MulToken) -> Self {
        // SAFETY: the token proves AVX.
        Avx2Shuf(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    fn splat8(_t: Avx2MulToken, v: i8) -> Self {
        // SAFETY: the token proves AVX.
        Avx2Shuf(unsafe { _mm256_set1_epi8(v) })
    }

    #[inline(always)]
    fn load_row(_t: Avx2MulToken, r: &[u8]) -> Self {
        assert!(r.len() == 32);
        // SAFETY: `r` is 32 readable bytes (checked above) at a 32-byte
        // aligned address: `ShufKey` is 32-byte aligned and with two lanes
        // every row starts at a multiple of 32 bytes. The token proves
        // AVX.
        Avx2Shuf(unsafe { _mm256_load_si256(r.as_ptr().cast()) })
    }

    #[inline(always)]
    fn load_blocks(_t: Avx2MulToken, b: &[u8]) -> Self {
        assert!(b.len() == 2 * BLOCK_LEN);
        // SAFETY: `b` is 32 readable bytes (checked above); unaligned
        // load; the token proves AVX.
        Avx2Shuf(unsafe { _mm256_loadu_si256(b.as_ptr().cast()) })
    }

    #[inline(always)]
    fn at_lane(_t: Avx2MulToken, y: __m128i, lane: usize) -> Self {
        // SAFETY: the token proves AVX.
        unsafe {
            let z = _mm_setzero_si128();
            // `lane` is public (it comes from the input's length).
            Avx2Shuf(if lane == 0 {
                _mm256_set_m128i(z, y)
            } else {
                _mm256_set_m128i(y, z)
            })
        }
    }

    #[inline(always)]
    fn fold(self) -> __m128i {
        // SAFETY: AVX2 is proved by the value's existence (see `Shuf`).
        unsafe {
            _mm_xor_si128(
                _mm256_castsi256_si128(self.0),
                _mm256_extracti128_si256::<1>(self.0),
            )
        }
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: AVX2 is proved by the value's existence (see `Shuf`).
        Avx2Shuf(unsafe { _mm256_and_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Avx2Shuf(unsafe { _mm256_xor_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: as for `and`.
        Avx2Shuf(unsafe { _mm256_srli_epi16::<4>(self.0) })
    }

    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: as for `and`.
        Avx2Shuf(unsafe { _mm256_shuffle_epi8(self.0, idx.0) })
    }

    #[inline(always)]
    fn shl_bytes<const N: i32>(self) -> Self {
        // SAFETY: as for `and`.
        Avx2Shuf(unsafe { _mm256_bslli_epi128::<N>(self.0) })
    }

    #[inline(always)]
    fn shr_bytes<const N: i32>(self) -> Self {
        // SAFETY: as for `and`.
        Avx2Shuf(unsafe { _mm256_bsrli_epi128::<N>(self.0) })
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline]
pub(crate) fn update(t: Avx2MulToken, key: &ShufKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: the token proves AVX2, AVX and OS-saved YMM state, all
    // `update_avx2` enables.
    unsafe { update_avx2(t, key, acc, data) }
}

/// The kernel: 8 blocks per step (four registers of two), the
/// last 1..7 in a step of their own.
#[target_feature(enable = "avx2,avx")]
unsafe fn update_avx2(t: Avx2MulToken, key: &ShufKey, acc: &mut u128, data: &[u8]) {
    update_lanes::<Avx2Shuf, CHUNK>(t, key, acc, data);
}

/// The key for this backend.
pub(crate) fn new_key(h: &[u8; BLOCK_LEN]) -> ShufKey {
    ShufKey::new(h, Avx2Shuf::W)
}
