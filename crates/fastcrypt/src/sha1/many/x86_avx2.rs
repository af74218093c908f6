//! Multi-buffer SHA-1 on 256-bit registers: eight messages, one per
//! 32-bit lane (the layout of OpenSSL's `sha1-mb` AVX2 path and ISA-L's
//! `sha1_mb` x8). AVX2 has no rotate and no three-input logic, so a
//! rotate is two shifts and an OR, and the round functions take two to
//! four operations; the lanes still hash about three times as many bytes
//! per cycle as one scalar stream.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::lanes::{compress_block, LaneVec};
use super::Lanes;
use crate::cpu::Avx2MulToken;

/// `x` rotated left by `$n` (`$m` = 32 - `$n`: const generics cannot be
/// computed from another).
macro_rules! rol {
    ($x:expr, $n:literal, $m:literal) => {
        _mm256_or_si256(_mm256_slli_epi32::<$n>($x), _mm256_srli_epi32::<$m>($x))
    };
}

impl LaneVec for __m256i {
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the kernel's entry point enables AVX2.
        unsafe { _mm256_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_add_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor4(self, b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_xor_si256(_mm256_xor_si256(self, b), _mm256_xor_si256(c, d)) }
    }
    #[inline(always)]
    unsafe fn ch(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. `d ^ (b & (c ^ d))`: one operation fewer than
        // the definition.
        unsafe { _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d))) }
    }
    #[inline(always)]
    unsafe fn parity(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_xor_si256(_mm256_xor_si256(b, c), d) }
    }
    #[inline(always)]
    unsafe fn maj(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. `(b & c) | (d & (b | c))`.
        unsafe {
            _mm256_or_si256(
                _mm256_and_si256(b, c),
                _mm256_and_si256(d, _mm256_or_si256(b, c)),
            )
        }
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
}

impl Lanes<8> for Avx2MulToken {
    #[inline]
    fn compress(self, state: &mut [[u32; 8]; 5], data: &[&[u8]; 8], blocks: usize) {
        assert!(data.iter().all(|d| d.len() >= blocks * 64));
        // SAFETY: the token proves AVX2 with OS-saved YMM state; every
        // lane has `blocks` whole blocks (checked above).
        unsafe { compress8(state, data, blocks) }
    }
}

/// The 8x8 transpose of 32-bit words: `r[i]` holds eight words of message
/// `i`, the result's `w[t]` word `t` of every message. 32-bit and 64-bit
/// interleaves within 128-bit lanes, then one 128-bit lane swap.
/// (A safe function with target features, so its closures have them too.)
#[inline]
#[target_feature(enable = "avx2")]
fn transpose8(r: [__m256i; 8]) -> [__m256i; 8] {
    // t[2i] / t[2i+1]: words (4h, 4h+1) / (4h+2, 4h+3) of rows 2i and
    // 2i+1 interleaved, in each 128-bit half h.
    let t: [__m256i; 8] = core::array::from_fn(|j| {
        let (x, y) = (r[j & !1], r[j | 1]);
        if j & 1 == 0 {
            _mm256_unpacklo_epi32(x, y)
        } else {
            _mm256_unpackhi_epi32(x, y)
        }
    });
    // u[4q + m]: word 4h + m of rows 4q..4q+3, in half h.
    let u: [__m256i; 8] = core::array::from_fn(|j| {
        let (q, m) = (j / 4, j % 4);
        let (x, y) = (t[4 * q + m / 2], t[4 * q + 2 + m / 2]);
        if m % 2 == 0 {
            _mm256_unpacklo_epi64(x, y)
        } else {
            _mm256_unpackhi_epi64(x, y)
        }
    });
    // w[4h + m]: half h of u[m] (rows 0-3) and of u[4 + m] (rows 4-7).
    core::array::from_fn(|j| {
        let (h, m) = (j / 4, j % 4);
        if h == 0 {
            _mm256_permute2x128_si256::<0x20>(u[m], u[4 + m])
        } else {
            _mm256_permute2x128_si256::<0x31>(u[m], u[4 + m])
        }
    })
}

/// # Safety
///
/// The CPU must have AVX2 with OS-saved YMM state, and every `data[i]`
/// must hold `blocks * 64` bytes.
#[target_feature(enable = "avx2")]
unsafe fn compress8(state: &mut [[u32; 8]; 5], data: &[&[u8]; 8], blocks: usize) {
    // Big-endian words: reverse the bytes of each 32-bit word.
    let bswap = _mm256_setr_epi8(
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
    );
    // SAFETY: each row of `state` is 8 u32s, 32 bytes.
    let mut s: [__m256i; 5] =
        core::array::from_fn(|w| unsafe { _mm256_loadu_si256(state[w].as_ptr().cast()) });
    for blk in 0..blocks {
        let half = |h: usize| -> [__m256i; 8] {
            transpose8(core::array::from_fn(|i| {
                // SAFETY: `data[i]` holds `blocks` blocks (the caller's
                // contract); this reads half `h` of block `blk`.
                let p = unsafe { data[i].as_ptr().add(blk * 64 + 32 * h) };
                // SAFETY: `p` has 32 readable bytes (above).
                _mm256_shuffle_epi8(unsafe { _mm256_loadu_si256(p.cast()) }, bswap)
            }))
        };
        let (lo, hi) = (half(0), half(1));
        let w: [__m256i; 16] = core::array::from_fn(|t| if t < 8 { lo[t] } else { hi[t - 8] });
        // SAFETY: AVX2, `__m256i`'s feature, is enabled here.
        unsafe { compress_block(&mut s, w) };
    }
    for (w, v) in s.iter().enumerate() {
        // SAFETY: each row of `state` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(state[w].as_mut_ptr().cast(), *v) };
    }
}
