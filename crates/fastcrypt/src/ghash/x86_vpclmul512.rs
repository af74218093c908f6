//! GHASH with VPCLMULQDQ on 512-bit registers: four blocks per instruction.
//!
//! Needs AVX-512 F/BW/VL and VPCLMULQDQ with the opmask and ZMM state saved
//! by the OS (the token checks exactly that). Each register holds four
//! consecutive blocks, the earliest in lane 0; a step absorbs 32 blocks
//! (eight registers) as `(acc ^ X1) * H^32 ^ X2 * H^31 ^ ... ^ X32 * H`,
//! products (Karatsuba or schoolbook, per CPU: [`karatsuba`]) summed
//! lane-wise, then reduced lane-wise (the
//! reduction is linear, so reducing each lane and XORing the four results
//! equals reducing their sum) and only then folded to one block.
//!
//! Why this shape: on Intel cores a 512-bit carry-less multiply, a byte
//! shuffle and a lane extract all issue on the same port (port 5), so
//! what bounds the loop is that port's count per block, not latency.
//! Reducing before the lane fold costs two zmm multiplies instead of six
//! extracts; XORing the accumulator into the first block costs nothing
//! where a separate product would cost four port-5 operations; and 32
//! blocks per step give the accumulator's chain (one product, the
//! reduction, the lane fold: ~35 cycles) 64 cycles of independent work to
//! hide behind. 16 blocks per step with a separate accumulator product
//! measured 1.16x the 256-bit kernel; this shape is what reaches the
//! multiplier's limit (see BENCHMARKS.md for figures).
//!
//! Tails need no copies: a run of `n < 32` blocks is loaded with byte masks
//! (zeros past the end) and meets `H^n..H^1` loaded with lane masks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86_pclmul::{self as x128, ClmulKey, POWERS};
use super::BLOCK_LEN;
pub(crate) use crate::cpu::Vclmul512;

/// Blocks per 512-bit register.
const LANES: usize = 4;

/// Bytes per step of [`absorb`]: 32 blocks, one reduction. Shorter input
/// takes [`absorb_short`] alone.
pub(crate) const STEP_BYTES: usize = 32 * BLOCK_LEN;

#[inline(always)]
fn zero(_t: impl Vclmul512) -> __m512i {
    // SAFETY: the token proves AVX-512F.
    unsafe { _mm512_setzero_si512() }
}

/// Byte reversal of each 128-bit lane (GCM order <-> POLYVAL).
#[inline(always)]
pub(crate) fn bswap4(_t: impl Vclmul512, x: __m512i) -> __m512i {
    // SAFETY: the token proves AVX-512BW (`vpshufb` on zmm works lane by
    // lane, which is what reverses each block).
    unsafe {
        let m =
            _mm512_broadcast_i32x4(_mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f));
        _mm512_shuffle_epi8(x, m)
    }
}

/// The byte mask of the part of a `len`-byte run that falls in its
/// `j`-th 64-byte register.
#[inline(always)]
pub(crate) fn byte_mask(len: usize, j: usize) -> u64 {
    match len.saturating_sub(64 * j) {
        0 => 0,
        n if n >= 64 => u64::MAX,
        n => u64::MAX >> (64 - n),
    }
}

/// Loads the first `len` bytes at `p + 64 j` (zeros past `len`). No byte
/// past `len` is read.
///
/// # Safety
///
/// `p` must be valid for reading `len` bytes.
#[inline(always)]
pub(crate) unsafe fn load_masked(
    _t: impl Vclmul512,
    p: *const u8,
    len: usize,
    j: usize,
) -> __m512i {
    // SAFETY: the mask selects only bytes below `len` (the caller's
    // bound); masked-off bytes are neither read nor faulted on; the token
    // proves AVX-512BW.
    unsafe { _mm512_maskz_loadu_epi8(byte_mask(len, j), p.wrapping_add(64 * j).cast()) }
}

/// The operands of `pows[first..first + 4]` as registers: the powers
/// and, for Karatsuba (`K`), their `lo ^ hi` halves (`mids`); lanes past
/// the first `count` blocks zero (and not read: `first + count` may be the
/// end of the table, with `first + 4` past it).
#[inline(always)]
fn power4<const K: bool>(_t: impl Vclmul512, key: &ClmulKey, first: usize, count: usize) -> Pow4 {
    assert!(first + count.min(LANES) <= POWERS);
    // Two 64-bit lanes per block. Arithmetic, not a `match`: a jump table
    // here is one the constant-time listing (scripts/ct-static.sh) cannot
    // always resolve, and a branch costs more than the shift.
    let m: u8 = !(0xff_u8
        .checked_shl(2 * count.min(LANES) as u32)
        .unwrap_or(0));
    let p = key.pows.as_ptr().wrapping_add(first);
    let q = key.mids.as_ptr().wrapping_add(first);
    // SAFETY: the mask selects `count.min(4)` entries from `first`, all in
    // both tables (checked above); masked-off lanes are neither read nor
    // faulted on; the token proves AVX-512F.
    unsafe {
        Pow4 {
            p: _mm512_maskz_loadu_epi64(m, p.cast()),
            m: if K {
                _mm512_maskz_loadu_epi64(m, q.cast())
            } else {
                _mm512_setzero_si512()
            },
        }
    }
}

/// Four powers of H, one per lane, with their Karatsuba middle operands
/// (zero, unused, for schoolbook products).
#[derive(Clone, Copy)]
struct Pow4 {
    p: __m512i,
    m: __m512i,
}

/// Whether the zmm kernels multiply with Karatsuba's three products per
/// register instead of schoolbook's four. A tuning hint between equivalent
/// code paths (both are tested on any CPU that runs either).
///
/// Measured on an AMD EPYC Zen 5 (family 1Ah, model 02h) with runs of
/// independent instructions: a `vpclmulqdq` issues once per ~2 cycles on
/// zmm and on ymm alike, and it takes issue slots from `vaesenc` (8 zmm
/// `vaesenc` and 2 `vpclmulqdq` took ~7 cycles, the `vaesenc` alone 4), so
/// the product count bounds GHASH and AES-GCM there. Karatsuba against
/// schoolbook on that CPU, medians of 301 paired rounds: GHASH 1.30x at
/// 8 and 16 KiB, AES-128-GCM seal 1.15x at 16 KiB, AES-256-GCM 1.02x.
/// On an AMD EPYC Zen 4 (family 19h, model 11h; 2026-12-05), two builds
/// differing only in this choice, linked into one harness, medians of
/// 15-21 paired rounds: GHASH 1.06-1.09x faster with Karatsuba from 512
/// bytes to 16 KiB, AES-GCM 1.02-1.07x at 4 and 16 KiB; short AES-GCM
/// seals (128-512 bytes) were 3-8% faster with schoolbook, which giving
/// only the tail's fold schoolbook products did not reproduce (so not a
/// matter of the tail's latency), and Zen 4 keeps Karatsuba. On Intel's
/// Sapphire Rapids-class Xeons the multiply, the shuffle and the lane
/// extract share port 5, the port count per block is
/// the same for both forms, and schoolbook (no operand XOR, no middle-term
/// correction) measured 1.05x Karatsuba.
#[inline]
pub(crate) fn karatsuba() -> bool {
    !crate::cpu::is_intel()
}

/// Four unreduced 256-bit sums, one per lane: `lo + mid x^64 + hi x^128`.
///
/// Two forms, chosen by `K` (see [`karatsuba`]): schoolbook (four
/// multiplies per register; `mid` is the middle term) or Karatsuba (three
/// multiplies, `(x_lo ^ x_hi)(p_lo ^ p_hi)` summed into `mid`, which then
/// still holds `lo ^ hi` on top of the middle term: [`Wide4::reduce`]
/// removes it once per reduction, not once per product). Two registers'
/// products are summed at a time with three-way XORs (`vpternlogq`).
#[derive(Clone, Copy)]
pub(crate) struct Wide4 {
    lo: __m512i,
    mid: __m512i,
    hi: __m512i,
}

impl Wide4 {
    /// The middle products of `x * w`: schoolbook's two cross products,
    /// or Karatsuba's one (the second is zero).
    #[inline(always)]
    fn mids<const K: bool>(_t: impl Vclmul512, x: __m512i, w: Pow4) -> (__m512i, __m512i) {
        // SAFETY: the token proves VPCLMULQDQ and AVX-512F.
        unsafe {
            if K {
                // x_lo ^ x_hi in the low half of each lane.
                let xm = _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x));
                (
                    _mm512_clmulepi64_epi128::<0x00>(xm, w.m),
                    _mm512_setzero_si512(),
                )
            } else {
                (
                    _mm512_clmulepi64_epi128::<0x01>(x, w.p),
                    _mm512_clmulepi64_epi128::<0x10>(x, w.p),
                )
            }
        }
    }

    /// The three sums, for a caller that pins them in registers (on
    /// x86-64: 32-bit x86 has too few).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn regs_mut(&mut self) -> [&mut __m512i; 3] {
        [&mut self.lo, &mut self.mid, &mut self.hi]
    }

    /// Lane-wise `x * w`.
    #[inline(always)]
    fn mul<const K: bool>(t: impl Vclmul512, x: __m512i, w: Pow4) -> Wide4 {
        let (m1, m2) = Self::mids::<K>(t, x, w);
        // SAFETY: the token proves VPCLMULQDQ and AVX-512F.
        unsafe {
            Wide4 {
                lo: _mm512_clmulepi64_epi128::<0x00>(x, w.p),
                hi: _mm512_clmulepi64_epi128::<0x11>(x, w.p),
                mid: if K { m1 } else { _mm512_xor_si512(m1, m2) },
            }
        }
    }

    /// Adds lane-wise `x * v + y * w`.
    #[inline(always)]
    fn mul_add2<const K: bool>(
        &mut self,
        t: impl Vclmul512,
        x: __m512i,
        v: Pow4,
        y: __m512i,
        w: Pow4,
    ) {
        let (a1, a2) = Self::mids::<K>(t, x, v);
        let (b1, b2) = Self::mids::<K>(t, y, w);
        // SAFETY: the token proves VPCLMULQDQ and AVX-512F.
        unsafe {
            self.lo = _mm512_ternarylogic_epi64::<0x96>(
                self.lo,
                _mm512_clmulepi64_epi128::<0x00>(x, v.p),
                _mm512_clmulepi64_epi128::<0x00>(y, w.p),
            );
            self.hi = _mm512_ternarylogic_epi64::<0x96>(
                self.hi,
                _mm512_clmulepi64_epi128::<0x11>(x, v.p),
                _mm512_clmulepi64_epi128::<0x11>(y, w.p),
            );
            if K {
                self.mid = _mm512_ternarylogic_epi64::<0x96>(self.mid, a1, b1);
            } else {
                let m = _mm512_ternarylogic_epi64::<0x96>(self.mid, a1, a2);
                self.mid = _mm512_ternarylogic_epi64::<0x96>(m, b1, b2);
            }
        }
    }

    /// Adds lane-wise `x * w`.
    #[inline(always)]
    fn mul_add<const K: bool>(&mut self, t: impl Vclmul512, x: __m512i, w: Pow4) {
        let (m1, m2) = Self::mids::<K>(t, x, w);
        // SAFETY: the token proves VPCLMULQDQ and AVX-512F.
        unsafe {
            self.lo = _mm512_xor_si512(self.lo, _mm512_clmulepi64_epi128::<0x00>(x, w.p));
            self.hi = _mm512_xor_si512(self.hi, _mm512_clmulepi64_epi128::<0x11>(x, w.p));
            self.mid = if K {
                _mm512_xor_si512(self.mid, m1)
            } else {
                _mm512_ternarylogic_epi64::<0x96>(self.mid, m1, m2)
            };
        }
    }

    /// Each lane reduced as [`super::x86_pclmul::reduce`] does, then the
    /// four lanes XORed: the reduced sum (the reduction is linear).
    #[inline(always)]
    fn reduce<const K: bool>(self, t: impl Vclmul512) -> __m128i {
        // SAFETY: the token proves VPCLMULQDQ and AVX-512F.
        unsafe {
            // Karatsuba's middle sum still holds lo ^ hi of every product.
            let mid = if K {
                _mm512_ternarylogic_epi64::<0x96>(self.mid, self.lo, self.hi)
            } else {
                self.mid
            };
            let c = _mm512_broadcast_i32x4(_mm_set_epi64x(0, 0xc200_0000_0000_0000_u64 as i64));
            let t0 = _mm512_clmulepi64_epi128::<0x00>(self.lo, c);
            let mid =
                _mm512_ternarylogic_epi64::<0x96>(mid, _mm512_shuffle_epi32::<0x4e>(self.lo), t0);
            let t1 = _mm512_clmulepi64_epi128::<0x00>(mid, c);
            let r =
                _mm512_ternarylogic_epi64::<0x96>(self.hi, _mm512_shuffle_epi32::<0x4e>(mid), t1);
            sum_lanes(t, r)
        }
    }
}

/// XOR of the four 128-bit lanes.
#[inline(always)]
fn sum_lanes(_t: impl Vclmul512, v: __m512i) -> __m128i {
    // SAFETY: the token proves AVX-512F and AVX2.
    unsafe {
        let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
    }
}

/// Absorbs `n` blocks (1 to `4 N`, at most 32), given four to a register
/// *in GCM byte order* (block `4 j + l` in lane `l` of `blocks[j]`; lanes
/// past `n` are ignored), into the accumulator: `acc` is XORed into the
/// first block, block i meets H^(n - i), one reduction. With `n` a
/// constant the masks fold away. `K`: Karatsuba products ([`karatsuba`]).
#[inline(always)]
pub(crate) fn fold<const K: bool, const N: usize>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: __m128i,
    blocks: &[__m512i; N],
    n: usize,
) -> __m128i {
    debug_assert!(N >= 1 && n >= 1 && n <= LANES * N && n <= POWERS);
    let first = POWERS - n;
    let mut w = fold_begin::<K>(t, key, acc, blocks[0], n);
    let mut j = 1;
    while j < N && LANES * j < n {
        if j + 1 < N && LANES * (j + 1) < n {
            let x = bswap4(t, blocks[j]);
            let p = power4::<K>(t, key, first + LANES * j, n - LANES * j);
            let y = bswap4(t, blocks[j + 1]);
            let q = power4::<K>(t, key, first + LANES * (j + 1), n - LANES * (j + 1));
            w.mul_add2::<K>(t, x, p, y, q);
            j += 2;
        } else {
            fold_next::<K>(t, key, &mut w, blocks[j], j, n);
            j += 1;
        }
    }
    w.reduce::<K>(t)
}

/// [`fold`] of `n` blocks one register at a time, for a caller that
/// interleaves it with other work (AES-GCM's rounds): `fold_begin` with
/// register 0, `fold_next` with registers 1.. in order, `fold_end`.
#[inline(always)]
pub(crate) fn fold_begin<const K: bool>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: __m128i,
    x: __m512i,
    n: usize,
) -> Wide4 {
    debug_assert!((1..=POWERS).contains(&n));
    // SAFETY: the token proves AVX-512F.
    let x0 = unsafe { _mm512_xor_si512(bswap4(t, x), _mm512_zextsi128_si512(acc)) };
    Wide4::mul::<K>(t, x0, power4::<K>(t, key, POWERS - n, n))
}

/// See [`fold_begin`]: register `j` (of `n` blocks).
#[inline(always)]
pub(crate) fn fold_next<const K: bool>(
    t: impl Vclmul512,
    key: &ClmulKey,
    w: &mut Wide4,
    x: __m512i,
    j: usize,
    n: usize,
) {
    debug_assert!(LANES * j < n);
    let p = power4::<K>(t, key, POWERS - n + LANES * j, n - LANES * j);
    w.mul_add::<K>(t, bswap4(t, x), p);
}

/// See [`fold_begin`]: the reduced sum.
#[inline(always)]
pub(crate) fn fold_end<const K: bool>(t: impl Vclmul512, w: Wide4) -> __m128i {
    w.reduce::<K>(t)
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
/// Generic over the token so that AES-GCM can call it with its own.
#[inline]
pub(crate) fn update(t: impl Vclmul512, key: &ClmulKey, acc: &mut u128, data: &[u8]) {
    // Short input goes to the narrower kernels, whose chains are shorter
    // (no four-lane sum): measured on a Sapphire Rapids-class Xeon, 16
    // bytes took 11.6 ns here and 8.3 on the 256-bit kernel; from 4 to 7
    // blocks the 256-bit kernel was also ahead, and from 8 on this one.
    if data.len() < 128 {
        return super::x86_vpclmul::update(t, key, acc, data);
    }
    update_as(t, key, acc, data, karatsuba())
}

/// [`update`] for input of 128 bytes and more, with the product form
/// chosen by the caller (the tests run both on any CPU).
#[inline]
pub(crate) fn update_as(t: impl Vclmul512, key: &ClmulKey, acc: &mut u128, data: &[u8], k: bool) {
    // SAFETY: a `Vclmul512` token proves VPCLMULQDQ, AVX-512 F/BW/VL with
    // OS-saved ZMM state, PCLMULQDQ, AVX2, SSSE3 and SSE4.1: everything
    // `update_512` enables.
    unsafe {
        if k {
            update_512::<true>(t, key, acc, data)
        } else {
            update_512::<false>(t, key, acc, data)
        }
    }
}

/// Loads 4 N consecutive blocks at `p`.
///
/// # Safety
///
/// `p` must be valid for reading `64 N` bytes.
#[inline(always)]
pub(crate) unsafe fn load_blocks<const N: usize>(_t: impl Vclmul512, p: *const u8) -> [__m512i; N] {
    // SAFETY: the token proves AVX-512F; `p` has `64 N` readable bytes
    // (the caller's bound); unaligned loads.
    unsafe {
        let mut out = [_mm512_setzero_si512(); N];
        for (j, o) in out.iter_mut().enumerate() {
            *o = _mm512_loadu_si512(p.add(64 * j).cast());
        }
        out
    }
}

/// Absorbs `rest` (1 to 511 bytes, at most `64 N`; a final partial block
/// zero-padded) loaded into `N` registers with byte masks, one reduction.
#[inline(always)]
fn fold_rest<const K: bool, const N: usize>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: __m128i,
    rest: &[u8],
) -> __m128i {
    let (p, len) = (rest.as_ptr(), rest.len());
    debug_assert!(len <= 64 * N && len > 0);
    let mut b = [zero(t); N];
    for (j, o) in b.iter_mut().enumerate() {
        // SAFETY: `rest` is `len` readable bytes.
        *o = unsafe { load_masked(t, p, len, j) };
    }
    fold::<K, N>(t, key, acc, &b, len.div_ceil(BLOCK_LEN))
}

/// Absorbs `data` into the accumulator register `acc`, its final partial
/// block zero-padded (GCM's padding of AAD): 32 blocks per step, then the
/// rest with masked loads and one reduction. No copy and no round trip
/// through memory, so AES-GCM's AAD costs no store-to-load stall.
#[inline(always)]
pub(crate) fn absorb<const K: bool>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: __m128i,
    data: &[u8],
) -> __m128i {
    let mut y = acc;
    let mut chunks = data.chunks_exact(STEP_BYTES);
    for c in &mut chunks {
        // SAFETY: `c` is 512 readable bytes.
        let b = unsafe { load_blocks::<8>(t, c.as_ptr()) };
        y = fold::<K, 8>(t, key, y, &b, 32);
    }
    absorb_short::<K>(t, key, y, chunks.remainder())
}

/// [`absorb`] of fewer than [`STEP_BYTES`]: one reduction, as many
/// registers as `data` fills (a short message must not pay for eight
/// loads and products), no 32-block step in the code.
#[inline(always)]
pub(crate) fn absorb_short<const K: bool>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: __m128i,
    data: &[u8],
) -> __m128i {
    assert!(data.len() < STEP_BYTES);
    match data.len().div_ceil(64) {
        0 => acc,
        1 => fold_rest::<K, 1>(t, key, acc, data),
        2 => fold_rest::<K, 2>(t, key, acc, data),
        3 => fold_rest::<K, 3>(t, key, acc, data),
        4 => fold_rest::<K, 4>(t, key, acc, data),
        _ => fold_rest::<K, 8>(t, key, acc, data),
    }
}

/// The kernel: [`absorb`] on the accumulator in memory.
#[target_feature(enable = "vpclmulqdq,avx512f,avx512bw,avx512vl,pclmulqdq,avx2,ssse3,sse4.1")]
unsafe fn update_512<const K: bool>(
    t: impl Vclmul512,
    key: &ClmulKey,
    acc: &mut u128,
    data: &[u8],
) {
    debug_assert_eq!(data.len() % BLOCK_LEN, 0);
    let y = absorb::<K>(t, key, x128::load_acc(t, acc), data);
    x128::store_acc(t, y, acc);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Vpclmul512Token;
    use crate::ghash::portable;

    /// Both product forms (Karatsuba and schoolbook), whichever one this
    /// CPU's [`karatsuba`] picks, against the portable code at every block
    /// count through two 32-block steps and the masked rest, from a
    /// nonzero accumulator.
    #[test]
    fn both_product_forms_equal_portable() {
        let Some(t) = Vpclmul512Token::get() else {
            return;
        };
        let mut rng = crate::test_rng::xorshift(0x9E37_79B9);
        let mut rand = move || rng() as u8;
        let h: [u8; 16] = core::array::from_fn(|_| rand());
        let data: [u8; 16 * 80] = core::array::from_fn(|_| rand());
        let pk = portable::Key::new(&h);
        let key = ClmulKey::new(t, &h);
        let acc0 = u128::from_le_bytes(core::array::from_fn(|_| rand()));
        for blocks in 8..=80 {
            let d = &data[..16 * blocks];
            let mut want = acc0;
            portable::update(&pk, &mut want, d);
            for k in [false, true] {
                let mut got = acc0;
                update_as(t, &key, &mut got, d, k);
                assert_eq!(got, want, "{blocks} blocks, Karatsuba {k}");
            }
        }
    }
}
