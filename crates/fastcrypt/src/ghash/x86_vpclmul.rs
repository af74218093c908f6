//! GHASH with VPCLMULQDQ on 256-bit registers: two blocks per instruction.
//!
//! Needs VPCLMULQDQ and AVX2 with the YMM state saved by the OS, and
//! nothing of AVX-512 (the token checks exactly that). The scheme is the
//! 128-bit kernel's (see [`super::x86_pclmul`]) with each register holding
//! two consecutive blocks, the earlier in the low lane: sixteen blocks per
//! step, `(acc ^ X1) * H^16 ^ X2 * H^15 ^ ... ^ X16 * H`, Karatsuba
//! products summed lane-wise, the two lanes XORed together, and one
//! 128-bit reduction. Sixteen rather than eight blocks per reduction
//! because one step's dependency chain (XOR of the accumulator, one
//! multiplication, the reduction's two) is about as long as eight blocks'
//! worth of multiplications: with sixteen, throughput rather than latency
//! sets the pace.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86_pclmul::{self as x128, ClmulKey, Wide, POWERS};
use super::BLOCK_LEN;
pub(crate) use crate::cpu::Vclmul;

/// Loads two consecutive blocks as they sit in memory.
#[inline(always)]
pub(crate) fn load_pair(_t: impl Vclmul, b: &[u8; 2 * BLOCK_LEN]) -> __m256i {
    // SAFETY: `b` is 32 readable bytes; the load has no alignment need;
    // the token proves AVX.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// Byte reversal of each 128-bit lane (GCM order <-> POLYVAL).
#[inline(always)]
pub(crate) fn bswap2(_t: impl Vclmul, x: __m256i) -> __m256i {
    // SAFETY: the token proves AVX2 (`vpshufb` works lane by lane, which
    // is what reverses each block).
    unsafe {
        let m = _mm256_set_epi64x(
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
            0x0001_0203_0405_0607,
            0x0809_0a0b_0c0d_0e0f,
        );
        _mm256_shuffle_epi8(x, m)
    }
}

/// `pows[i..i + 2]` and `mids[i..i + 2]` of the key as registers:
/// H^(POWERS - i) in the low lane, H^(POWERS - i - 1) in the high one.
#[inline(always)]
fn power_pair(_t: impl Vclmul, key: &ClmulKey, i: usize) -> (__m256i, __m256i) {
    let p = &key.pows[i..i + 2];
    let m = &key.mids[i..i + 2];
    // SAFETY: both slices are 32 readable bytes (the indexing above checked
    // it); unaligned loads; the token proves AVX.
    unsafe {
        (
            _mm256_loadu_si256(p.as_ptr().cast()),
            _mm256_loadu_si256(m.as_ptr().cast()),
        )
    }
}

/// Two unreduced 256-bit sums in Karatsuba form, one per lane (see
/// [`Wide`]).
#[derive(Clone, Copy)]
pub(crate) struct Wide2 {
    lo: __m256i,
    mid: __m256i,
    hi: __m256i,
}

impl Wide2 {
    /// Lane-wise `x * p`, `pm` holding `p`'s Karatsuba middle operands.
    // `_mm256_clmulepi64_epi128` (and the `vpclmulqdq` target feature) are
    // stable since Rust 1.89: the workspace's rust-version must say so.
    #[allow(clippy::incompatible_msrv)]
    #[inline(always)]
    pub(crate) fn mul(_t: impl Vclmul, x: __m256i, p: __m256i, pm: __m256i) -> Wide2 {
        // SAFETY: the token proves VPCLMULQDQ and AVX2.
        unsafe {
            let xm = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
            Wide2 {
                lo: _mm256_clmulepi64_epi128::<0x00>(x, p),
                hi: _mm256_clmulepi64_epi128::<0x11>(x, p),
                mid: _mm256_clmulepi64_epi128::<0x00>(xm, pm),
            }
        }
    }

    /// Adds lane-wise `x * p`.
    #[inline(always)]
    pub(crate) fn mul_add(&mut self, t: impl Vclmul, x: __m256i, p: __m256i, pm: __m256i) {
        let w = Wide2::mul(t, x, p, pm);
        // SAFETY: the token proves AVX2.
        unsafe {
            self.lo = _mm256_xor_si256(self.lo, w.lo);
            self.mid = _mm256_xor_si256(self.mid, w.mid);
            self.hi = _mm256_xor_si256(self.hi, w.hi);
        }
    }

    /// The three sums, for a caller that pins them in registers (on
    /// x86-64: 32-bit x86 has too few).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn regs_mut(&mut self) -> [&mut __m256i; 3] {
        [&mut self.lo, &mut self.mid, &mut self.hi]
    }

    /// The sum of the two lanes, as one 128-bit unreduced sum.
    #[inline(always)]
    pub(crate) fn collapse(self, _t: impl Vclmul) -> Wide {
        // SAFETY: the token proves AVX2.
        unsafe {
            let fold = |v: __m256i| {
                _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
            };
            Wide {
                lo: fold(self.lo),
                mid: fold(self.mid),
                hi: fold(self.hi),
            }
        }
    }
}

/// `acc` XORed into the low lane (the first block) of `x`.
#[inline(always)]
fn xor_low(_t: impl Vclmul, x: __m256i, acc: __m128i) -> __m256i {
    // SAFETY: the token proves AVX2.
    unsafe { _mm256_xor_si256(x, _mm256_zextsi128_si256(acc)) }
}

/// [`fold_pairs`] of `2 n` blocks one register at a time, for a caller
/// that interleaves it with other work (AES-GCM's rounds): `fold_begin`
/// with register 0, `fold_next` with registers 1.. in order, then
/// `collapse` and `reduce`.
#[inline(always)]
pub(crate) fn fold_begin(
    t: impl Vclmul,
    key: &ClmulKey,
    acc: __m128i,
    x: __m256i,
    n: usize,
) -> Wide2 {
    let (p, pm) = power_pair(t, key, POWERS - 2 * n);
    Wide2::mul(t, xor_low(t, bswap2(t, x), acc), p, pm)
}

/// See [`fold_begin`]: register `i` (of `n`).
#[inline(always)]
pub(crate) fn fold_next(
    t: impl Vclmul,
    key: &ClmulKey,
    w: &mut Wide2,
    x: __m256i,
    i: usize,
    n: usize,
) {
    let (p, pm) = power_pair(t, key, POWERS - 2 * n + 2 * i);
    w.mul_add(t, bswap2(t, x), p, pm);
}

/// Absorbs `N` registers of two blocks each (GCM byte order, block 2i in
/// the low lane of register i) with one reduction.
#[inline(always)]
fn fold_pairs<const N: usize>(
    t: impl Vclmul,
    key: &ClmulKey,
    acc: __m128i,
    pairs: &[__m256i; N],
) -> __m128i {
    let mut w = fold_begin(t, key, acc, pairs[0], N);
    for (i, &x) in pairs.iter().enumerate().skip(1) {
        fold_next(t, key, &mut w, x, i, N);
    }
    w.collapse(t).reduce(t)
}

/// Absorbs 16 blocks (GCM byte order, two per register, block 2i in the
/// low lane of register i) into the accumulator: one reduction.
#[inline(always)]
pub(crate) fn fold16(
    t: impl Vclmul,
    key: &ClmulKey,
    acc: __m128i,
    pairs: &[__m256i; 8],
) -> __m128i {
    fold_pairs(t, key, acc, pairs)
}

/// Absorbs `rest` (1 to 15 whole blocks) with one reduction: the last n
/// blocks meet H^n..H^1, two per instruction, an odd last one alone.
#[inline(always)]
fn fold_short(t: impl Vclmul, key: &ClmulKey, acc: __m128i, rest: &[u8]) -> __m128i {
    let n = rest.len() / BLOCK_LEN;
    debug_assert!((1..16).contains(&n));
    debug_assert_eq!(rest.len() % BLOCK_LEN, 0);
    let first = POWERS - n;
    let mut pairs = rest.chunks_exact(2 * BLOCK_LEN);
    let mut wide: Option<Wide> = None;
    let mut acc = Some(acc);
    let mut w2: Option<Wide2> = None;
    for (i, c) in (&mut pairs).enumerate() {
        let mut x = bswap2(t, load_pair(t, c.try_into().unwrap()));
        if let Some(a) = acc.take() {
            x = xor_low(t, x, a);
        }
        let (p, pm) = power_pair(t, key, first + 2 * i);
        match &mut w2 {
            None => w2 = Some(Wide2::mul(t, x, p, pm)),
            Some(w) => w.mul_add(t, x, p, pm),
        }
    }
    if let Some(w) = w2 {
        wide = Some(w.collapse(t));
    }
    let last = pairs.remainder();
    if !last.is_empty() {
        let mut x = x128::bswap(t, x128::load_block(t, last.try_into().unwrap()));
        if let Some(a) = acc.take() {
            // SAFETY: the token proves SSE2.
            let y = unsafe { _mm_xor_si128(x, a) };
            x = y;
        }
        let (p, pm) = x128::power(t, key, POWERS - 1);
        match &mut wide {
            None => wide = Some(Wide::mul(t, x, p, pm)),
            Some(w) => w.mul_add(t, x, p, pm),
        }
    }
    match wide {
        Some(w) => w.reduce(t),
        None => acc.unwrap_or_else(|| unreachable!()),
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
/// Generic over the token so that AES-GCM can call it with its own.
#[inline]
pub(crate) fn update(t: impl Vclmul, key: &ClmulKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: a `Vclmul` token proves VPCLMULQDQ, PCLMULQDQ and AVX2 with
    // OS-saved YMM state, everything `update_vpclmul` enables.
    unsafe { update_vpclmul(t, key, acc, data) }
}

/// The kernel: 16 blocks per step, then the 0..15 left with one reduction.
#[target_feature(enable = "vpclmulqdq,pclmulqdq,avx2")]
unsafe fn update_vpclmul(t: impl Vclmul, key: &ClmulKey, acc: &mut u128, data: &[u8]) {
    let mut y = x128::load_acc(t, acc);
    let mut chunks = data.chunks_exact(16 * BLOCK_LEN);
    for c in &mut chunks {
        let pairs: [__m256i; 8] =
            core::array::from_fn(|i| load_pair(t, c[i * 32..(i + 1) * 32].try_into().unwrap()));
        y = fold16(t, key, y, &pairs);
    }
    let rest = chunks.remainder();
    if rest.len() >= BLOCK_LEN {
        y = fold_short(t, key, y, rest);
    }
    x128::store_acc(t, y, acc);
}
