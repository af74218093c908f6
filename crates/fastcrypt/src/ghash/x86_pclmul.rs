//! GHASH with PCLMULQDQ on 128-bit registers, and the 128-bit building
//! blocks the 256-bit kernel and the AES-GCM kernels share.
//!
//! Eight blocks are absorbed per step as
//! `(acc ^ X1) * H^8 ^ X2 * H^7 ^ ... ^ X8 * H`: each product is three
//! PCLMULQDQ (Karatsuba, with `lo ^ hi` of every power precomputed), the
//! 256-bit products are XORed unreduced, and one reduction (two more
//! PCLMULQDQ) ends the step: the "aggregated reduction" of Gueron and
//! Kounavis (Intel's carry-less multiplication white paper, rev. 2.02,
//! section "Aggregated reduction"), as in OpenSSL's `gcm_ghash_avx`. Only
//! the first product depends on the previous step, so the other seven
//! overlap the reduction of the previous step.
//!
//! Blocks are byte-reversed on load, which makes GHASH a POLYVAL (see the
//! module docs of [`super`]): no bit reflection and no shift of the
//! product, and the reduction is the Montgomery form described at
//! [`reduce`].

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{portable, BLOCK_LEN};
pub(crate) use crate::cpu::Clmul;
use zeroize::Zeroize;

/// How many powers of H the key holds (the 512-bit kernel uses them all,
/// the 256-bit one the last 16, this one the last 8).
pub(crate) const POWERS: usize = 32;

/// H expanded for the x86 kernels, POLYVAL representation.
///
/// `pows[i]` is H^(32 - i): a run of n blocks meets `pows[32 - n..]`, and
/// two consecutive entries load as one 256-bit register whose low lane
/// holds the higher power, matching two consecutive blocks.
/// `mids[i]` holds `lo ^ hi` of `pows[i]` in both 64-bit halves (the
/// Karatsuba middle operand, ready for either lane order).
#[derive(Clone)]
pub(crate) struct ClmulKey {
    pub(crate) pows: [u128; POWERS],
    pub(crate) mids: [u128; POWERS],
}

impl ClmulKey {
    /// Expands `h` (GCM byte order: H = E(K, 0^128) as AES outputs it).
    pub(crate) fn new(t: impl Clmul, h: &[u8; BLOCK_LEN]) -> ClmulKey {
        let mut k = ClmulKey {
            pows: [0; POWERS],
            mids: [0; POWERS],
        };
        // SAFETY: a `Clmul` token proves every feature `expand` enables.
        unsafe { expand(t, &mut k, portable::key_to_polyval(h)) };
        k
    }

    /// Overwrites the key material with zeros.
    pub(crate) fn zeroize(&mut self) {
        self.pows.zeroize();
        self.mids.zeroize();
    }
}

#[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
unsafe fn expand(t: impl Clmul, k: &mut ClmulKey, h1: u128) {
    let h = load_acc(t, &h1);
    let mut p = h;
    for i in (0..POWERS).rev() {
        store_acc(t, p, &mut k.pows[i]);
        let v = k.pows[i];
        let m = (v ^ (v >> 64)) as u64;
        k.mids[i] = u128::from(m) | (u128::from(m) << 64);
        p = mul(t, p, h);
    }
}

/// Loads a `u128` accumulator (or key power) into a register.
#[inline(always)]
pub(crate) fn load_acc(_t: impl Clmul, acc: &u128) -> __m128i {
    // SAFETY: `acc` is 16 readable bytes; the load has no alignment need.
    unsafe { _mm_loadu_si128((acc as *const u128).cast()) }
}

/// Stores an accumulator register back into its `u128` form.
#[inline(always)]
pub(crate) fn store_acc(_t: impl Clmul, x: __m128i, acc: &mut u128) {
    // SAFETY: `acc` is 16 writable bytes; the store has no alignment need.
    unsafe { _mm_storeu_si128((acc as *mut u128).cast(), x) }
}

/// Loads one block as it sits in memory (GCM byte order).
#[inline(always)]
pub(crate) fn load_block(_t: impl Clmul, b: &[u8; BLOCK_LEN]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes; the load has no alignment need.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Byte reversal: GCM byte order to POLYVAL representation and back.
#[inline(always)]
pub(crate) fn bswap(_t: impl Clmul, x: __m128i) -> __m128i {
    // SAFETY: `Clmul` tokens prove SSSE3 (`pshufb`).
    unsafe {
        _mm_shuffle_epi8(
            x,
            _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f),
        )
    }
}

/// An unreduced 256-bit sum of products in Karatsuba form: the value is
/// `lo + (mid ^ lo ^ hi) x^64 + hi x^128`.
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    pub(crate) lo: __m128i,
    pub(crate) mid: __m128i,
    pub(crate) hi: __m128i,
}

impl Wide {
    /// `x * p`, where `pm` is `p`'s Karatsuba middle operand.
    #[inline(always)]
    pub(crate) fn mul(_t: impl Clmul, x: __m128i, p: __m128i, pm: __m128i) -> Wide {
        // SAFETY: `Clmul` tokens prove PCLMULQDQ and SSE2.
        unsafe {
            let xm = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
            Wide {
                lo: _mm_clmulepi64_si128::<0x00>(x, p),
                hi: _mm_clmulepi64_si128::<0x11>(x, p),
                mid: _mm_clmulepi64_si128::<0x00>(xm, pm),
            }
        }
    }

    /// Adds `x * p`.
    #[inline(always)]
    pub(crate) fn mul_add(&mut self, t: impl Clmul, x: __m128i, p: __m128i, pm: __m128i) {
        let w = Wide::mul(t, x, p, pm);
        self.add(t, w);
    }

    /// Adds another unreduced sum.
    #[inline(always)]
    pub(crate) fn add(&mut self, _t: impl Clmul, w: Wide) {
        // SAFETY: `Clmul` tokens prove SSE2.
        unsafe {
            self.lo = _mm_xor_si128(self.lo, w.lo);
            self.mid = _mm_xor_si128(self.mid, w.mid);
            self.hi = _mm_xor_si128(self.hi, w.hi);
        }
    }

    /// The reduced field element `value * x^-128 mod P`.
    #[inline(always)]
    pub(crate) fn reduce(self, t: impl Clmul) -> __m128i {
        // SAFETY: `Clmul` tokens prove SSE2.
        let mid = unsafe { _mm_xor_si128(self.mid, _mm_xor_si128(self.lo, self.hi)) };
        reduce(t, self.lo, mid, self.hi)
    }
}

/// `(lo + mid x^64 + hi x^128) * x^-128 mod P` with
/// `P = x^128 + x^127 + x^126 + x^121 + 1`: twice, the low 64 bits `a` are
/// cancelled by adding `a * P`, which moves `a` up by 128 bits (a swap of
/// halves, since the next word up overlaps it) and adds
/// `x^64 * (a * c)`, `c = x^63 + x^62 + x^57` (one PCLMULQDQ by the
/// constant 0xc2 << 56). Two dependent multiplications, no shifts.
#[inline(always)]
pub(crate) fn reduce(_t: impl Clmul, lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: `Clmul` tokens prove PCLMULQDQ and SSE2.
    unsafe {
        let c = _mm_set_epi64x(0, 0xc200_0000_0000_0000_u64 as i64);
        let t0 = _mm_clmulepi64_si128::<0x00>(lo, c);
        let mid = _mm_xor_si128(mid, _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t0));
        let t1 = _mm_clmulepi64_si128::<0x00>(mid, c);
        _mm_xor_si128(hi, _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(mid), t1))
    }
}

/// POLYVAL's field product `a * b * x^-128 mod P` (key setup).
#[inline(always)]
fn mul(t: impl Clmul, a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: `Clmul` tokens prove SSE2.
    let bm = unsafe { _mm_xor_si128(b, _mm_shuffle_epi32::<0x4e>(b)) };
    Wide::mul(t, a, b, bm).reduce(t)
}

/// `pows[i]` and `mids[i]` of the key, as registers.
#[inline(always)]
pub(crate) fn power(t: impl Clmul, key: &ClmulKey, i: usize) -> (__m128i, __m128i) {
    (load_acc(t, &key.pows[i]), load_acc(t, &key.mids[i]))
}

/// Absorbs 8 blocks, given *in GCM byte order* (as loaded from memory or
/// produced by AES-CTR), into the accumulator `acc`: one reduction.
#[inline(always)]
pub(crate) fn fold8(t: impl Clmul, key: &ClmulKey, acc: __m128i, blocks: &[__m128i; 8]) -> __m128i {
    // SAFETY: `Clmul` tokens prove SSE2.
    let x0 = unsafe { _mm_xor_si128(bswap(t, blocks[0]), acc) };
    let (p, pm) = power(t, key, POWERS - 8);
    let mut w = Wide::mul(t, x0, p, pm);
    for (i, &b) in blocks.iter().enumerate().skip(1) {
        let (p, pm) = power(t, key, POWERS - 8 + i);
        w.mul_add(t, bswap(t, b), p, pm);
    }
    w.reduce(t)
}

/// Absorbs `rest` (1 to 7 whole blocks, GCM byte order) with one
/// reduction: the last n blocks meet H^n..H^1.
#[inline(always)]
fn fold_short(t: impl Clmul, key: &ClmulKey, acc: __m128i, rest: &[u8]) -> __m128i {
    let n = rest.len() / BLOCK_LEN;
    debug_assert!((1..8).contains(&n));
    debug_assert_eq!(rest.len() % BLOCK_LEN, 0);
    let first = POWERS - n;
    let mut w: Option<Wide> = None;
    for (i, b) in rest.chunks_exact(BLOCK_LEN).enumerate() {
        let mut x = bswap(t, load_block(t, b.try_into().unwrap()));
        if i == 0 {
            // SAFETY: `Clmul` tokens prove SSE2.
            let y = unsafe { _mm_xor_si128(x, acc) };
            x = y;
        }
        let (p, pm) = power(t, key, first + i);
        match &mut w {
            None => w = Some(Wide::mul(t, x, p, pm)),
            Some(w) => w.mul_add(t, x, p, pm),
        }
    }
    match w {
        Some(w) => w.reduce(t),
        None => acc,
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
/// Generic over the token so that AES-GCM can call it with its own.
#[inline]
pub(crate) fn update(t: impl Clmul, key: &ClmulKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: a `Clmul` token proves PCLMULQDQ, SSSE3 and SSE4.1,
    // everything `update_pclmul` enables.
    unsafe { update_pclmul(t, key, acc, data) }
}

/// The kernel: 8 blocks per step, then the 0..7 left with one reduction.
#[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
unsafe fn update_pclmul(t: impl Clmul, key: &ClmulKey, acc: &mut u128, data: &[u8]) {
    let mut y = load_acc(t, acc);
    let mut chunks = data.chunks_exact(8 * BLOCK_LEN);
    for c in &mut chunks {
        let blocks: [__m128i; 8] = core::array::from_fn(|i| {
            load_block(t, c[i * BLOCK_LEN..(i + 1) * BLOCK_LEN].try_into().unwrap())
        });
        y = fold8(t, key, y, &blocks);
    }
    let rest = chunks.remainder();
    if rest.len() >= BLOCK_LEN {
        y = fold_short(t, key, y, rest);
    }
    store_acc(t, y, acc);
}
