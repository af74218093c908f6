//! Multi-buffer SHA-1 on 512-bit registers: sixteen messages, one per
//! 32-bit lane. AVX-512 makes each round short: `vprold` rotates in one
//! instruction (AVX2 needs a shift, a shift and an OR) and `vpternlogd`
//! computes any of the three round functions of three inputs in one (ISA-L
//! `sha1_mb` x16, and the AVX-512 form of OpenSSL's `sha1-mb`).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::lanes::{compress_block, each, LaneVec, NoKeep};
use super::lanes_dc::{compress_block_dc, flush_all, test, Batch, DcScratch};
use super::Lanes;
use crate::cpu::Avx512Token;

impl LaneVec for __m512i {
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn load(p: &[u32]) -> Self {
        assert!(p.len() >= Self::LANES);
        // SAFETY: `p` has the 16 words read (checked); the kernel's entry
        // point enables the load's features.
        unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: &mut [u32]) {
        assert!(p.len() >= Self::LANES);
        // SAFETY: as for `load`, writing.
        unsafe { _mm512_storeu_si512(p.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the kernel's entry point enables AVX-512F.
        unsafe { _mm512_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_add_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor4(self, b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_xor_si512(_mm512_ternarylogic_epi32::<0x96>(self, b, c), d) }
    }
    #[inline(always)]
    unsafe fn ch(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. 0xCA is the truth table of `b ? c : d`.
        unsafe { _mm512_ternarylogic_epi32::<0xCA>(b, c, d) }
    }
    #[inline(always)]
    unsafe fn parity(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. 0x96: `b ^ c ^ d`.
        unsafe { _mm512_ternarylogic_epi32::<0x96>(b, c, d) }
    }
    #[inline(always)]
    unsafe fn maj(b: Self, c: Self, d: Self) -> Self {
        // SAFETY: as above. 0xE8: the majority of `b`, `c`, `d`.
        unsafe { _mm512_ternarylogic_epi32::<0xE8>(b, c, d) }
    }
    #[inline(always)]
    unsafe fn rol1(self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_rol_epi32::<1>(self) }
    }
    #[inline(always)]
    unsafe fn rol5(self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_rol_epi32::<5>(self) }
    }
    #[inline(always)]
    unsafe fn rol30(self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_rol_epi32::<30>(self) }
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_sub_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_xor_si512(self, o) }
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
        // SAFETY: as above. The three-way XOR and the bit test give the
        // failing lanes as a mask register, and a masked OR adds the
        // vectors they rule out: four instructions per condition.
        unsafe {
            let y = if SHL > 0 {
                _mm512_slli_epi32::<SHL>(wb)
            } else {
                _mm512_srli_epi32::<SHR>(wb)
            };
            let t = _mm512_ternarylogic_epi32::<0x96>(wa, y, Self::splat(expect));
            let fail = _mm512_test_epi32_mask(t, Self::splat(bit));
            _mm512_mask_or_epi32(kill, fail, kill, Self::splat(dvs))
        }
    }
    #[inline(always)]
    unsafe fn nonzero_lanes(self) -> u32 {
        // SAFETY: as above.
        unsafe { u32::from(_mm512_test_epi32_mask(self, self)) }
    }
    #[inline(always)]
    unsafe fn lane(self, i: usize) -> u32 {
        // SAFETY: as above. The lane moved to lane 0, then to a register.
        unsafe {
            let v = _mm512_permutexvar_epi32(_mm512_set1_epi32(i as i32), self);
            _mm_cvtsi128_si32(_mm512_castsi512_si128(v)) as u32
        }
    }
    #[inline(always)]
    unsafe fn test_batch(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
        // SAFETY: as above.
        unsafe { test_batch16(b, tt, reduced_round) }
    }
    #[inline(always)]
    unsafe fn eq_lanes(self, o: Self) -> u32 {
        // SAFETY: as above.
        unsafe { u32::from(_mm512_cmpeq_epi32_mask(self, o)) }
    }
}

impl Lanes<16> for Avx512Token {
    #[inline]
    fn compress(self, state: &mut [[u32; 16]; 5], data: &[&[u8]; 16], blocks: usize) {
        assert!(data.iter().all(|d| d.len() >= blocks * 64));
        // SAFETY: the token proves AVX-512F/BW with OS-saved ZMM state;
        // every lane has `blocks` whole blocks (checked above).
        unsafe { compress16(state, data, blocks) }
    }
}

impl super::DcLanes<16> for Avx512Token {
    #[inline]
    fn compress_dc(
        self,
        state: &mut [[u32; 16]; 5],
        data: &[&[u8]; 16],
        blocks: usize,
        reduced_round: bool,
        scratch: &mut DcScratch,
    ) {
        assert!(data.iter().all(|d| d.len() >= blocks * 64));
        // SAFETY: as for `compress`.
        unsafe { compress16_dc(state, data, blocks, reduced_round, scratch) }
    }
    #[inline]
    fn flush_dc(self, reduced_round: bool, scratch: &mut DcScratch) {
        // SAFETY: as for `compress`.
        unsafe { compress16_flush(reduced_round, scratch) }
    }
}

/// The 16x16 transpose of 32-bit words: `r[i]` holds message `i`'s 16
/// words, the result's `w[t]` word `t` of every message. Four stages of
/// sixteen two-source shuffles: 32-bit and 64-bit interleaves within
/// 128-bit lanes, then two 128-bit lane shuffles.
/// (A safe function with target features, so its closures have them too:
/// only code that enables AVX-512F can call it without `unsafe`.)
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose16(r: [__m512i; 16]) -> [__m512i; 16] {
    {
        // t[2i] / t[2i+1]: words (4k, 4k+1) / (4k+2, 4k+3) of rows 2i and
        // 2i+1 interleaved, in each 128-bit lane k.
        let t: [__m512i; 16] = each(|j| {
            let (x, y) = (r[j & !1], r[j | 1]);
            if j & 1 == 0 {
                _mm512_unpacklo_epi32(x, y)
            } else {
                _mm512_unpackhi_epi32(x, y)
            }
        });
        // u[4q + m]: word 4k + m of rows 4q..4q+3, in 128-bit lane k.
        let u: [__m512i; 16] = each(|j| {
            let (q, m) = (j / 4, j % 4);
            let (x, y) = (t[4 * q + m / 2], t[4 * q + 2 + m / 2]);
            if m % 2 == 0 {
                _mm512_unpacklo_epi64(x, y)
            } else {
                _mm512_unpackhi_epi64(x, y)
            }
        });
        // v: 128-bit lanes (0, 1) or (2, 3) of u[m] and u[4 + m] (v[4m],
        // v[4m + 1]), and of u[8 + m] and u[12 + m] (v[4m + 2], v[4m + 3]).
        let v: [__m512i; 16] = each(|j| {
            let (m, h) = (j / 4, j % 4);
            let (x, y) = (u[m + 8 * (h / 2)], u[m + 4 + 8 * (h / 2)]);
            if h % 2 == 0 {
                _mm512_shuffle_i32x4::<0x44>(x, y)
            } else {
                _mm512_shuffle_i32x4::<0xEE>(x, y)
            }
        });
        // w[4k + m]: lane k of u[m], u[4 + m], u[8 + m], u[12 + m].
        each(|j| {
            let (k, m) = (j / 4, j % 4);
            let (x, y) = (v[4 * m + k / 2], v[4 * m + 2 + k / 2]);
            if k % 2 == 0 {
                _mm512_shuffle_i32x4::<0x88>(x, y)
            } else {
                _mm512_shuffle_i32x4::<0xDD>(x, y)
            }
        })
    }
}

/// Block `blk` of every lane, as words in lanes.
///
/// # Safety
///
/// Every `data[i]` must hold at least `blk + 1` blocks.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn load16(data: &[&[u8]; 16], blk: usize) -> [__m512i; 16] {
    // Big-endian words: reverse the bytes of each 32-bit word.
    let bswap = _mm512_set4_epi32(0x0C0D_0E0F, 0x0809_0A0B, 0x0405_0607, 0x0001_0203);
    let rows: [__m512i; 16] = each(|i| {
        // SAFETY: `data[i]` holds block `blk` (the caller's contract).
        let row = unsafe { _mm512_loadu_si512(data[i].as_ptr().add(blk * 64).cast()) };
        _mm512_shuffle_epi8(row, bswap)
    });
    transpose16(rows)
}

/// The lanes' state as vectors: word `w` of every lane in `s[w]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_state(state: &[[u32; 16]; 5]) -> [__m512i; 5] {
    // SAFETY: the features `__m512i` needs are enabled here.
    each(|w| unsafe { __m512i::load(&state[w]) })
}

/// The inverse of [`load_state`].
#[inline]
#[target_feature(enable = "avx512f")]
fn store_state(s: &[__m512i; 5], state: &mut [[u32; 16]; 5]) {
    for (w, v) in s.iter().enumerate() {
        // SAFETY: as in `load_state`.
        unsafe { v.store(&mut state[w]) };
    }
}

/// # Safety
///
/// The CPU must have AVX-512F and AVX-512BW with OS-saved ZMM state, and
/// every `data[i]` must hold `blocks * 64` bytes.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress16(state: &mut [[u32; 16]; 5], data: &[&[u8]; 16], blocks: usize) {
    let mut s = load_state(state);
    for blk in 0..blocks {
        // SAFETY: `data` holds `blocks` blocks (the caller's contract);
        // AVX-512F/BW, `__m512i`'s features, are enabled here.
        unsafe { compress_block::<_, _, false>(&mut s, load16(data, blk), &mut NoKeep) };
    }
    store_state(&s, state);
}

/// [`compress16`] with collision detection (see `lanes_dc.rs`): the
/// lanes' candidates are queued in `scratch`, and tested when a batch
/// fills.
///
/// # Safety
///
/// As [`compress16`].
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress16_dc(
    state: &mut [[u32; 16]; 5],
    data: &[&[u8]; 16],
    blocks: usize,
    reduced_round: bool,
    scratch: &mut DcScratch,
) {
    let mut s = load_state(state);
    for blk in 0..blocks {
        // SAFETY: as in `compress16`.
        unsafe {
            let w = load16(data, blk);
            compress_block_dc::<__m512i, 16>(&mut s, w, data, blk, scratch, reduced_round);
        }
    }
    store_state(&s, state);
}

/// Tests every candidate queued in `scratch` (see `lanes_dc::flush_all`).
///
/// # Safety
///
/// As [`compress16`]'s features.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress16_flush(reduced_round: bool, scratch: &mut DcScratch) {
    // SAFETY: the features `__m512i` needs are enabled here.
    unsafe { flush_all::<__m512i>(scratch, reduced_round) };
}

/// # Safety
///
/// As [`compress16`]'s features.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn test_batch16(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
    // SAFETY: the features `__m512i` needs are enabled here.
    unsafe { test::<__m512i>(b, tt, reduced_round) }
}

/// Batch PBKDF2 (`many/pbkdf2.rs`): sixteen chains, one per lane.
impl super::pbkdf2::Pbkdf2Lanes<16> for Avx512Token {
    #[inline]
    fn iterate(self, chains: &mut super::pbkdf2::Pbkdf2Chains<16>, n: u32) {
        // SAFETY: the token proves AVX-512F/BW with OS-saved ZMM state,
        // everything `pbkdf2_16` enables.
        unsafe { pbkdf2_16(chains, n) }
    }
}

/// `n` PBKDF2 iterations on sixteen chains (see
/// `lanes::pbkdf2_iterations`), every chain's state in registers
/// throughout.
///
/// # Safety
///
/// The CPU must have AVX-512F and AVX-512BW with OS-saved ZMM state.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pbkdf2_16(chains: &mut super::pbkdf2::Pbkdf2Chains<16>, n: u32) {
    let inner = load_state(&chains.inner);
    let outer = load_state(&chains.outer);
    let mut u = load_state(&chains.u);
    let mut t = load_state(&chains.t);
    // SAFETY: AVX-512F/BW, `__m512i`'s features, are enabled here.
    unsafe { super::lanes::pbkdf2_iterations(&inner, &outer, &mut u, &mut t, n) };
    store_state(&u, &mut chains.u);
    store_state(&t, &mut chains.t);
}

#[cfg(test)]
mod tests {
    use super::super::lanes_dc::tests;
    use super::*;

    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn filter() {
        // SAFETY: the features of `__m512i` are enabled.
        unsafe { tests::filter_matches_the_table::<__m512i>() }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn check() {
        // SAFETY: as above.
        unsafe { tests::test_matches_the_reference::<__m512i>() }
    }

    #[test]
    fn filter_matches_the_table() {
        if Avx512Token::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { filter() }
        }
    }

    #[test]
    fn test_matches_the_reference() {
        if Avx512Token::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { check() }
        }
    }
}
