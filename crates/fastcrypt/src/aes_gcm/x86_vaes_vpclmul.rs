//! AES-GCM with VAES and VPCLMULQDQ on 256-bit registers (AVX2 state only,
//! no AVX-512): two blocks per instruction, 16 blocks per iteration.
//!
//! Same structure as the 128-bit kernel: AES of counter blocks n..n+15
//! overlapped with GHASH of ciphertext blocks n-16..n-1 (one reduction per
//! 16 blocks, H^16..H^1 precomputed). The last < 16 blocks go through the
//! 128-bit bodies of [`super::x86`], which this token also proves.
//! Messages under 128 bytes (with at most 256 bytes of AAD) skip the
//! loop's set-up: one batch of AES pairs with constant round count
//! (`short_k`).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86::{self, by_rounds, Keys};
use crate::aes::x86_aesni as ni;
use crate::aes::RoundKeys;
use crate::cpu::VaesToken;
use crate::ghash::x86_pclmul::{self as clm, ClmulKey};
use crate::ghash::x86_vpclmul as vclm;

impl x86::Kernel for VaesToken {
    fn ghash_blocks(self, hk: &ClmulKey, acc: &mut u128, blocks: &[u8]) {
        // The 256-bit kernel's setup pays off from a few hundred bytes on.
        if blocks.len() >= 512 {
            vclm::update(self, hk, acc, blocks)
        } else {
            clm::update(self, hk, acc, blocks)
        }
    }

    fn crypt<const OPEN: bool>(
        self,
        k: &Keys<Self>,
        j0: u128,
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16] {
        crypt_with::<OPEN>(self, &k.rk, &k.hk, j0, aad, buf)
    }
}

/// [`x86::Kernel::crypt`] on this kernel with any engine's key material
/// (the zmm kernel sends its short messages here).
pub(super) fn crypt_with<const OPEN: bool>(
    t: VaesToken,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    if buf.len() < 128 && aad.len() <= x86::TAIL_AAD {
        // SAFETY: the token proves VAES, VPCLMULQDQ, AVX2 with OS-saved
        // YMM state, AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        return unsafe { by_rounds!(rk.rounds, short_k::<OPEN>(t, rk, hk, j0, aad, buf)) };
    }
    let c32 = x86::ctr32(j0);
    // SAFETY: as above.
    unsafe { crypt_k::<OPEN>(t, rk, hk, j0, c32, aad, buf) }
}

/// A message under 128 bytes with short AAD: its whole pass is
/// [`crypt_final_wide`]'s batch. Apart from [`crypt_k`] because there
/// the round count is a run-time value (see there), so the broadcast round
/// keys are an array indexed in a loop, which lives on the stack: each
/// call stored all 15 and loaded them back. Here `NR` is a constant and
/// the rounds unroll, so the keys stay in registers. Measured on an AMD
/// EPYC Zen 4 (2026-12-05, speed lab runs before and after, AES-128):
/// 16-byte seal 26.6-27.5 -> 22.2-22.5 ns, open 31.5 -> 21.3-21.4 ns;
/// 64 bytes 33.2 -> 29.7 and 36.4-36.9 -> 27.6-27.8 ns.
#[target_feature(enable = "vaes,vpclmulqdq,avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn short_k<const OPEN: bool, const NR: usize>(
    t: VaesToken,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    debug_assert_eq!(rk.rounds, NR);
    let wk = wide_keys(t, &ni::load_keys(t, rk));
    let (a, tail_aad) = x86::start_aad(t, hk, aad, buf.len());
    let j0 = x86::j0_vec(t, j0);
    let y = x86::first_ctr(t, j0);
    let lengths = x86::lengths_vec(t, aad.len(), buf.len());
    crypt_final_wide::<OPEN>(t, &wk, NR, hk, y, a, tail_aad, j0, lengths, buf)
}

/// Round keys broadcast to both lanes.
#[inline(always)]
fn wide_keys(_t: VaesToken, keys: &[__m128i; 15]) -> [__m256i; 15] {
    // SAFETY: the token proves AVX2.
    unsafe {
        // No closures in these helpers: a closure does not inherit the
        // caller's target features, so its intrinsics would become calls.
        let mut out = [_mm256_setzero_si256(); 15];
        for (o, k) in out.iter_mut().zip(keys) {
            *o = _mm256_broadcastsi128_si256(*k);
        }
        out
    }
}

/// 16 counter blocks as 8 pairs (block 2i in the low lane), round key 0
/// XORed in; `y` (byte-reversed counter) advances by 16.
///
/// When the counter's low byte cannot carry within these 16 blocks (15 times
/// in 16), the blocks are made in big-endian form directly: one `vpshufb`
/// for the base, then `vpaddd` of i << 24 on the last dword bumps byte 15.
/// That saves 7 shuffles per 16 blocks on port 5, which the GHASH
/// multiplications and byte swaps also need (OpenSSL's ctr32 trick).
/// `c32` is the counter's low word as a scalar (public: nonce and block
/// index), kept in step: reading it out of `y` would be a vector-to-scalar
/// move, which the constant-time listing (scripts/ct-static.sh) has to
/// treat as secret.
#[inline(always)]
fn counters16(_t: VaesToken, y: &mut __m128i, c32: &mut u32, k0: __m256i) -> [__m256i; 8] {
    // SAFETY: the token proves AVX2 and SSE2.
    unsafe {
        let m = _mm256_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        );
        let mut out = [_mm256_setzero_si256(); 8];
        let low = *c32 & 0xff;
        if low <= 0xf0 {
            let base = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(*y), m);
            for (i, o) in out.iter_mut().enumerate() {
                let (lo, hi) = ((2 * i as i32) << 24, (2 * i as i32 + 1) << 24);
                let inc = _mm256_set_epi32(hi, 0, 0, 0, lo, 0, 0, 0);
                *o = _mm256_xor_si256(_mm256_add_epi32(base, inc), k0);
            }
        } else {
            let base = _mm256_broadcastsi128_si256(*y);
            for (i, o) in out.iter_mut().enumerate() {
                let inc = _mm256_set_epi32(0, 0, 0, 2 * i as i32 + 1, 0, 0, 0, 2 * i as i32);
                *o = _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(base, inc), m), k0);
            }
        }
        *y = _mm_add_epi32(*y, _mm_set_epi32(0, 0, 0, 16));
        *c32 = c32.wrapping_add(16);
        out
    }
}

#[inline(always)]
fn rounds16(_t: VaesToken, keys: &[__m256i; 15], nr: usize, b: &mut [__m256i; 8]) {
    // SAFETY: the token proves VAES and AVX2.
    unsafe {
        for k in &keys[1..nr] {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm256_aesenclast_epi128(*x, keys[nr]);
        }
    }
}

/// An empty instruction that takes the AES states and the GHASH sums in
/// registers and gives them back: LLVM cannot move work across it, so the
/// rounds and multiplications stay interleaved as written (without it the
/// scheduler gathered all of GHASH after round 8: seal and open at 8-16 KiB
/// ran 6-12% slower, Xeon with VAES). 32-bit x86 has 8 vector registers,
/// too few for the 11 values: there it does nothing.
#[inline]
#[target_feature(enable = "avx")]
fn pin(b: &mut [__m256i; 8], w: &mut vclm::Wide2) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the instruction string is empty: nothing is read, written or
    // executed; the operands only constrain where values live.
    unsafe {
        let [lo, mid, hi] = w.regs_mut();
        core::arch::asm!(
            "/* {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} */",
            inout(ymm_reg) b[0], inout(ymm_reg) b[1], inout(ymm_reg) b[2],
            inout(ymm_reg) b[3], inout(ymm_reg) b[4], inout(ymm_reg) b[5],
            inout(ymm_reg) b[6], inout(ymm_reg) b[7],
            inout(ymm_reg) *lo, inout(ymm_reg) *mid, inout(ymm_reg) *hi,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    #[cfg(target_arch = "x86")]
    let _ = (b, w);
}

/// [`rounds16`] on counter blocks n..n+15 with the GHASH of the
/// ciphertext blocks `ct` folded in between the rounds, one pair of blocks
/// after each of rounds 1 to 8 (every key length has at least 9), and the
/// reduction after the last: the AES and carry-less multiply units work
/// side by side in the order the core sees them, instead of relying on
/// the out-of-order window to overlap two separate loops.
#[inline(always)]
fn rounds16_ghash16(
    t: VaesToken,
    keys: &[__m256i; 15],
    nr: usize,
    b: &mut [__m256i; 8],
    hk: &ClmulKey,
    acc: __m128i,
    ct: &[__m256i; 8],
) -> __m128i {
    // SAFETY: the token proves VAES, VPCLMULQDQ and AVX2.
    unsafe {
        // No closure for a round: it would not inherit the target features.
        for x in b.iter_mut() {
            *x = _mm256_aesenc_epi128(*x, keys[1]);
        }
        let mut w = vclm::fold_begin(t, hk, acc, ct[0], 8);
        for j in 1..8 {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, keys[j + 1]);
            }
            vclm::fold_next(t, hk, &mut w, ct[j], j, 8);
            pin(b, &mut w);
        }
        for k in &keys[9..nr] {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm256_aesenclast_epi128(*x, keys[nr]);
        }
        w.collapse(t).reduce(t)
    }
}

#[inline(always)]
fn load16(_t: VaesToken, io: &[u8]) -> [__m256i; 8] {
    assert!(io.len() >= 256);
    let p = io.as_ptr();
    // SAFETY: `io` has at least 256 bytes (checked above); unaligned loads;
    // the token proves AVX2.
    unsafe {
        let mut out = [_mm256_setzero_si256(); 8];
        for (i, o) in out.iter_mut().enumerate() {
            *o = _mm256_loadu_si256(p.add(32 * i).cast());
        }
        out
    }
}

#[inline(always)]
fn xor_store16(_t: VaesToken, io: &mut [u8], ks: &[__m256i; 8]) -> [__m256i; 8] {
    assert!(io.len() >= 256);
    let p = io.as_mut_ptr();
    // SAFETY: `io` has at least 256 bytes (checked above); unaligned loads
    // and stores; the token proves AVX2.
    unsafe {
        let mut out = [_mm256_setzero_si256(); 8];
        for (i, o) in out.iter_mut().enumerate() {
            *o = _mm256_xor_si256(_mm256_loadu_si256(p.add(32 * i).cast()), ks[i]);
            _mm256_storeu_si256(p.add(32 * i).cast(), *o);
        }
        out
    }
}

/// The last counter blocks and J0 through AES as `P` pairs, built in
/// registers (building them in memory and loading 32 bytes over narrower
/// stores cost a store-forwarding stall, measured at ~10% of a 64-byte
/// seal). Pair i holds counters y+2i, y+2i+1; the last pair's high lane is
/// J0 instead, so its encryption, the tag mask, is the high lane of the
/// last pair.
#[inline(always)]
fn tail_pairs<const P: usize>(
    _t: VaesToken,
    wk: &[__m256i; 15],
    nr: usize,
    y: __m128i,
    j0: __m128i,
) -> [__m256i; P] {
    // SAFETY: the token proves VAES and AVX2.
    unsafe {
        let m = _mm256_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        );
        let base = _mm256_broadcastsi128_si256(y);
        let mut b = [_mm256_setzero_si256(); P];
        for (i, x) in b.iter_mut().enumerate() {
            let inc = _mm256_set_epi32(0, 0, 0, 2 * i as i32 + 1, 0, 0, 0, 2 * i as i32);
            *x = _mm256_shuffle_epi8(_mm256_add_epi32(base, inc), m);
        }
        b[P - 1] = _mm256_inserti128_si256(b[P - 1], j0, 1);
        for x in b.iter_mut() {
            *x = _mm256_xor_si256(*x, wk[0]);
        }
        for k in &wk[1..nr] {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm256_aesenclast_epi128(*x, wk[nr]);
        }
        b
    }
}

/// The last < 128 bytes of a seal or open and the tag, two blocks per AES
/// instruction: the counter blocks and J0 go through AES as 1 to 5 pairs
/// (a 64-byte message costs 30 VAES instructions, not 80), and the
/// keystream, the ciphertext blocks and the lengths block (and a short
/// message's AAD, `aad`) stay in registers, hashed with one reduction:
/// `rem` is read and written in place (see `x86::crypt_tail`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn crypt_final_wide<const OPEN: bool>(
    t: VaesToken,
    wk: &[__m256i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: __m128i,
    a: __m128i,
    aad: &[u8],
    j0v: __m128i,
    lengths: __m128i,
    rem: &mut [u8],
) -> [u8; 16] {
    debug_assert!(rem.len() < 128);
    let nb = rem.len().div_ceil(16);
    match nb / 2 {
        0 => final_pairs::<OPEN, 1>(t, wk, nr, hk, y, a, aad, j0v, lengths, rem),
        1 => final_pairs::<OPEN, 2>(t, wk, nr, hk, y, a, aad, j0v, lengths, rem),
        2 => final_pairs::<OPEN, 3>(t, wk, nr, hk, y, a, aad, j0v, lengths, rem),
        3 => final_pairs::<OPEN, 4>(t, wk, nr, hk, y, a, aad, j0v, lengths, rem),
        _ => final_pairs::<OPEN, 5>(t, wk, nr, hk, y, a, aad, j0v, lengths, rem),
    }
}

/// [`crypt_final_wide`] with `P` pairs of AES blocks, `2 P - 1` of them
/// keystream (enough for `rem`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn final_pairs<const OPEN: bool, const P: usize>(
    t: VaesToken,
    wk: &[__m256i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: __m128i,
    a: __m128i,
    aad: &[u8],
    j0v: __m128i,
    lengths: __m128i,
    rem: &mut [u8],
) -> [u8; 16] {
    assert!(rem.len().div_ceil(16) < 2 * P);
    let pairs = tail_pairs::<P>(t, wk, nr, y, j0v);
    // SAFETY: the token proves AVX2.
    let (ks, e) = unsafe {
        // Block i's keystream: lane i % 2 of pair i / 2. (No closure: it
        // would not inherit the caller's target features.)
        let mut ks = [_mm_setzero_si128(); 8];
        for (i, k) in ks.iter_mut().enumerate().take(2 * P - 1) {
            *k = if i % 2 == 0 {
                _mm256_castsi256_si128(pairs[i / 2])
            } else {
                _mm256_extracti128_si256::<1>(pairs[i / 2])
            };
        }
        (ks, _mm256_extracti128_si256::<1>(pairs[P - 1]))
    };
    x86::crypt_tail::<OPEN>(t, hk, a, aad, rem, &ks, e, lengths)
}

#[target_feature(enable = "vaes,vpclmulqdq,avx2,aes,pclmulqdq,ssse3,sse4.1")]
/// The round count stays a run-time value here on purpose: with a constant
/// (fully unrolled rounds) LLVM schedules all of GHASH before the AES and
/// spills, and the loop ran at 0.6x of this form (measured on a Xeon with
/// VAES, AES-128, 8-16 KiB).
unsafe fn crypt_k<const OPEN: bool>(
    t: VaesToken,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: u128,
    c32: u32,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let mut c32 = c32;
    let keys = ni::load_keys(t, rk);
    let wk = wide_keys(t, &keys);
    let nr = rk.rounds;
    // A short message's AAD is hashed in the tail's batch.
    let (mut a, tail_aad) = x86::start_aad(t, hk, aad, buf.len());
    let j0 = x86::j0_vec(t, j0);
    let mut y = x86::first_ctr(t, j0);
    let lengths = x86::lengths_vec(t, aad.len(), buf.len());
    let mut chunks = buf.chunks_exact_mut(256);
    if OPEN {
        for chunk in &mut chunks {
            let mut b = counters16(t, &mut y, &mut c32, wk[0]);
            // GHASH of these 16 ciphertext blocks between their AES rounds.
            a = rounds16_ghash16(t, &wk, nr, &mut b, hk, a, &load16(t, chunk));
            xor_store16(t, chunk, &b);
        }
    } else if let Some(first) = chunks.next() {
        let mut b = counters16(t, &mut y, &mut c32, wk[0]);
        rounds16(t, &wk, nr, &mut b);
        let mut pending = xor_store16(t, first, &b);
        for chunk in &mut chunks {
            let mut b = counters16(t, &mut y, &mut c32, wk[0]);
            // GHASH of the previous 16 ciphertext blocks between this AES.
            a = rounds16_ghash16(t, &wk, nr, &mut b, hk, a, &pending);
            pending = xor_store16(t, chunk, &b);
        }
        a = vclm::fold16(t, hk, a, &pending);
    }
    let rem =
        x86::crypt_chunks8::<OPEN, _>(t, &keys, nr, hk, &mut y, &mut a, chunks.into_remainder());
    crypt_final_wide::<OPEN>(t, &wk, nr, hk, y, a, tail_aad, j0, lengths, rem)
}
