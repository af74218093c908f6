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

use super::lanes::{compress_block, each, LaneVec, NoKeep};
use super::lanes_dc::{compress_block_dc, flush_all, test, Batch, DcScratch};
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
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn load(p: &[u32]) -> Self {
        assert!(p.len() >= Self::LANES);
        // SAFETY: `p` has the 8 words read (checked); the kernel's entry
        // point enables the load's features.
        unsafe { _mm256_loadu_si256(p.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: &mut [u32]) {
        assert!(p.len() >= Self::LANES);
        // SAFETY: as for `load`, writing.
        unsafe { _mm256_storeu_si256(p.as_mut_ptr().cast(), self) }
    }
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
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_sub_epi32(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_xor_si256(self, o) }
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
        // `expect` (which has no other bit set); the others get `dvs`.
        unsafe {
            // (The count is a constant, so this is the immediate form.)
            let y = if SHL > 0 {
                _mm256_sll_epi32(wb, _mm_cvtsi32_si128(SHL as i32))
            } else {
                _mm256_srl_epi32(wb, _mm_cvtsi32_si128(SHR as i32))
            };
            let t = _mm256_and_si256(_mm256_xor_si256(wa, y), Self::splat(bit));
            let ok = _mm256_cmpeq_epi32(t, Self::splat(expect));
            _mm256_or_si256(kill, _mm256_andnot_si256(ok, Self::splat(dvs)))
        }
    }
    #[inline(always)]
    unsafe fn nonzero_lanes(self) -> u32 {
        // SAFETY: as above.
        unsafe { !self.eq_lanes(_mm256_setzero_si256()) & 0xFF }
    }
    #[inline(always)]
    unsafe fn lane(self, i: usize) -> u32 {
        // SAFETY: as above. The lane moved to lane 0, then to a register.
        unsafe {
            let v = _mm256_permutevar8x32_epi32(self, _mm256_set1_epi32(i as i32));
            _mm256_cvtsi256_si32(v) as u32
        }
    }
    #[inline(always)]
    unsafe fn test_batch(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
        // SAFETY: as above.
        unsafe { test_batch8(b, tt, reduced_round) }
    }
    #[inline(always)]
    unsafe fn eq_lanes(self, o: Self) -> u32 {
        // SAFETY: as above. The sign bits of the compare, one per lane.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(self, o))) as u32 }
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

impl super::DcLanes<8> for Avx2MulToken {
    #[inline]
    fn compress_dc(
        self,
        state: &mut [[u32; 8]; 5],
        data: &[&[u8]; 8],
        blocks: usize,
        reduced_round: bool,
        scratch: &mut DcScratch,
    ) {
        assert!(data.iter().all(|d| d.len() >= blocks * 64));
        // SAFETY: as for `compress`.
        unsafe { compress8_dc(state, data, blocks, reduced_round, scratch) }
    }
    #[inline]
    fn flush_dc(self, reduced_round: bool, scratch: &mut DcScratch) {
        // SAFETY: as for `compress`.
        unsafe { compress8_flush(reduced_round, scratch) }
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
    let t: [__m256i; 8] = each(|j| {
        let (x, y) = (r[j & !1], r[j | 1]);
        if j & 1 == 0 {
            _mm256_unpacklo_epi32(x, y)
        } else {
            _mm256_unpackhi_epi32(x, y)
        }
    });
    // u[4q + m]: word 4h + m of rows 4q..4q+3, in half h.
    let u: [__m256i; 8] = each(|j| {
        let (q, m) = (j / 4, j % 4);
        let (x, y) = (t[4 * q + m / 2], t[4 * q + 2 + m / 2]);
        if m % 2 == 0 {
            _mm256_unpacklo_epi64(x, y)
        } else {
            _mm256_unpackhi_epi64(x, y)
        }
    });
    // w[4h + m]: half h of u[m] (rows 0-3) and of u[4 + m] (rows 4-7).
    each(|j| {
        let (h, m) = (j / 4, j % 4);
        if h == 0 {
            _mm256_permute2x128_si256::<0x20>(u[m], u[4 + m])
        } else {
            _mm256_permute2x128_si256::<0x31>(u[m], u[4 + m])
        }
    })
}

/// Block `blk` of every lane, as words in lanes.
///
/// # Safety
///
/// Every `data[i]` must hold at least `blk + 1` blocks.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load8(data: &[&[u8]; 8], blk: usize) -> [__m256i; 16] {
    // Big-endian words: reverse the bytes of each 32-bit word.
    let bswap = _mm256_setr_epi8(
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
    );
    let half = |h: usize| -> [__m256i; 8] {
        transpose8(each(|i| {
            // SAFETY: `data[i]` holds block `blk` (the caller's
            // contract); this reads its half `h`.
            let p = unsafe { data[i].as_ptr().add(blk * 64 + 32 * h) };
            // SAFETY: `p` has 32 readable bytes (above).
            _mm256_shuffle_epi8(unsafe { _mm256_loadu_si256(p.cast()) }, bswap)
        }))
    };
    let (lo, hi) = (half(0), half(1));
    each(|t| if t < 8 { lo[t] } else { hi[t - 8] })
}

/// The lanes' state as vectors: word `w` of every lane in `s[w]`.
#[inline]
#[target_feature(enable = "avx2")]
fn load_state(state: &[[u32; 8]; 5]) -> [__m256i; 5] {
    // SAFETY: the features `__m256i` needs are enabled here.
    each(|w| unsafe { __m256i::load(&state[w]) })
}

/// The inverse of [`load_state`].
#[inline]
#[target_feature(enable = "avx2")]
fn store_state(s: &[__m256i; 5], state: &mut [[u32; 8]; 5]) {
    for (w, v) in s.iter().enumerate() {
        // SAFETY: as in `load_state`.
        unsafe { v.store(&mut state[w]) };
    }
}

/// # Safety
///
/// The CPU must have AVX2 with OS-saved YMM state, and every `data[i]`
/// must hold `blocks * 64` bytes.
#[target_feature(enable = "avx2")]
unsafe fn compress8(state: &mut [[u32; 8]; 5], data: &[&[u8]; 8], blocks: usize) {
    let mut s = load_state(state);
    for blk in 0..blocks {
        // SAFETY: `data` holds `blocks` blocks (the caller's contract);
        // AVX2, `__m256i`'s feature, is enabled here.
        unsafe { compress_block::<_, _, false>(&mut s, load8(data, blk), &mut NoKeep) };
    }
    store_state(&s, state);
}

/// [`compress8`] with collision detection (see `lanes_dc.rs`): the
/// lanes' candidates are queued in `scratch`, and tested when a batch
/// fills.
///
/// # Safety
///
/// As [`compress8`].
#[target_feature(enable = "avx2")]
unsafe fn compress8_dc(
    state: &mut [[u32; 8]; 5],
    data: &[&[u8]; 8],
    blocks: usize,
    reduced_round: bool,
    scratch: &mut DcScratch,
) {
    let mut s = load_state(state);
    for blk in 0..blocks {
        // SAFETY: as in `compress8`.
        unsafe {
            let w = load8(data, blk);
            compress_block_dc::<__m256i, 8>(&mut s, w, data, blk, scratch, reduced_round);
        }
    }
    store_state(&s, state);
}

/// Tests every candidate queued in `scratch` (see `lanes_dc::flush_all`).
///
/// # Safety
///
/// As [`compress8`]'s features.
#[target_feature(enable = "avx2")]
unsafe fn compress8_flush(reduced_round: bool, scratch: &mut DcScratch) {
    // SAFETY: the features `__m256i` needs are enabled here.
    unsafe { flush_all::<__m256i>(scratch, reduced_round) };
}

/// # Safety
///
/// As [`compress8`]'s features.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn test_batch8(b: &Batch, tt: usize, reduced_round: bool) -> u32 {
    // SAFETY: the features `__m256i` needs are enabled here.
    unsafe { test::<__m256i>(b, tt, reduced_round) }
}

/// Batch PBKDF2 (`many/pbkdf2.rs`): eight chains, one per lane.
impl super::pbkdf2::Pbkdf2Lanes<8> for Avx2MulToken {
    #[inline]
    fn iterate(self, chains: &mut super::pbkdf2::Pbkdf2Chains<8>, n: u32) {
        // SAFETY: the token proves AVX2 with OS-saved YMM state, everything
        // `pbkdf2_8` enables.
        unsafe { pbkdf2_8(chains, n) }
    }
}

/// `n` PBKDF2 iterations on eight chains (see
/// `lanes::pbkdf2_iterations`).
///
/// # Safety
///
/// The CPU must have AVX2 with OS-saved YMM state.
#[target_feature(enable = "avx2")]
unsafe fn pbkdf2_8(chains: &mut super::pbkdf2::Pbkdf2Chains<8>, n: u32) {
    let inner = load_state(&chains.inner);
    let outer = load_state(&chains.outer);
    let mut u = load_state(&chains.u);
    let mut t = load_state(&chains.t);
    // SAFETY: AVX2, `__m256i`'s feature, is enabled here.
    unsafe { super::lanes::pbkdf2_iterations(&inner, &outer, &mut u, &mut t, n) };
    store_state(&u, &mut chains.u);
    store_state(&t, &mut chains.t);
}

#[cfg(test)]
mod tests {
    use super::super::lanes_dc::tests;
    use super::*;

    #[target_feature(enable = "avx2")]
    unsafe fn filter() {
        // SAFETY: the features of `__m256i` are enabled.
        unsafe { tests::filter_matches_the_table::<__m256i>() }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn check() {
        // SAFETY: as above.
        unsafe { tests::test_matches_the_reference::<__m256i>() }
    }

    #[test]
    fn filter_matches_the_table() {
        if Avx2MulToken::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { filter() }
        }
    }

    #[test]
    fn test_matches_the_reference() {
        if Avx2MulToken::get().is_some() {
            // SAFETY: the token proves the features.
            unsafe { check() }
        }
    }
}
