//! AES-GCM with AES-NI and PCLMULQDQ on 128-bit registers.
//!
//! Sealing and opening are one pass each: each iteration runs AES on
//! counter blocks n..n+7 while it hashes ciphertext (blocks n-8..n-1 when
//! sealing, blocks n..n+7 themselves when opening) (one reduction per 8
//! blocks, H^8..H^1 precomputed). The two dependency chains are
//! independent, so the out-of-order core overlaps the CLMUL work with the
//! AESENC latency (Gueron and Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", rev. 2.02,
//! section on aggregated reduction; the stitching idea of OpenSSL's
//! aesni-gcm-x86_64). The loop bodies live in [`super::x86`], which the
//! VAES kernel shares for its last < 16 blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86::{self, by_rounds, counters, rounds, Keys};
use crate::aes::x86_aesni as ni;
use crate::aes::RoundKeys;
use crate::cpu::{AesNiToken, GcmToken};
use crate::ghash::x86_pclmul::{self as clm, ClmulKey};

impl x86::Kernel for AesNiToken {
    fn ghash_blocks(self, hk: &ClmulKey, acc: &mut u128, blocks: &[u8]) {
        clm::update(self, hk, acc, blocks);
    }

    fn crypt<const OPEN: bool>(
        self,
        k: &Keys<Self>,
        j0: u128,
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16] {
        // SAFETY: the token proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        unsafe {
            by_rounds!(
                k.rk.rounds,
                crypt_k::<OPEN>(self, &k.rk, &k.hk, j0, aad, buf)
            )
        }
    }
}

/// The last < 128 bytes of a seal or open, and the tag, in one batch of AES
/// blocks: the remaining counter blocks plus J0 (whose encryption masks
/// the tag). Blocks in parallel cost about what 1 costs in latency, so
/// short messages pay for no loop and no second AES call. The ciphertext
/// tail and the lengths block (and a short message's AAD, `aad`) then go
/// through one GHASH batch.
///
/// The batch has exactly one block per counter plus J0 (see [`batch`]).
/// It used to be 4 or 8 blocks with J0 stored at a run-time index, which
/// kept the batch in memory and ran 4 blocks through AES for a 16-byte
/// message. Measured on an AMD EPYC Zen 4 (2026-12-05, speed lab runs
/// before and after): 16-byte seal 25.8 -> 22.4-23.4 ns (AES-128), open
/// 29.3-31.9 -> 22.3 ns (AES-128) and 44.9-45.6 -> 32.5-32.8 ns
/// (AES-256).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn crypt_final<const OPEN: bool, T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: &mut __m128i,
    a: __m128i,
    aad: &[u8],
    j0: __m128i,
    lengths: __m128i,
    rem: &mut [u8],
) -> [u8; 16] {
    debug_assert!(rem.len() < 128);
    let (ks, e) = match rem.len().div_ceil(16) {
        0 => batch::<1, T>(t, keys, nr, y, j0),
        1 => batch::<2, T>(t, keys, nr, y, j0),
        2 => batch::<3, T>(t, keys, nr, y, j0),
        3 => batch::<4, T>(t, keys, nr, y, j0),
        4 => batch::<5, T>(t, keys, nr, y, j0),
        5 => batch::<6, T>(t, keys, nr, y, j0),
        6 => batch::<7, T>(t, keys, nr, y, j0),
        7 => batch::<8, T>(t, keys, nr, y, j0),
        _ => {
            // 113..=127 bytes: 8 counter blocks fill the batch; J0 goes alone.
            let mut b = counters::<8>(t, y, keys[0], 8);
            rounds(t, keys, nr, &mut b);
            (b, ni::encrypt1(t, keys, nr, j0))
        }
    };
    x86::crypt_tail::<OPEN>(t, hk, a, aad, rem, &ks, e, lengths)
}

/// `N - 1` counter blocks from `y` and J0 last, through AES together:
/// the keystream (blocks past `N - 1` are never read) and E(K, J0). Every
/// index is a constant, so the blocks stay in registers.
#[inline(always)]
fn batch<const N: usize, T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    y: &mut __m128i,
    j0: __m128i,
) -> ([__m128i; 8], __m128i) {
    let mut b = counters::<N>(t, y, keys[0], N as i32 - 1);
    // SAFETY: the token proves SSE2.
    b[N - 1] = unsafe { _mm_xor_si128(j0, keys[0]) };
    rounds(t, keys, nr, &mut b);
    let e = b[N - 1];
    let mut ks = [e; 8];
    ks[..N].copy_from_slice(&b);
    (ks, e)
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
/// `NR` (the number of rounds) is a constant so the round loops unroll
/// fully and the AES and GHASH instructions can be scheduled together.
unsafe fn crypt_k<const OPEN: bool, const NR: usize>(
    t: AesNiToken,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    debug_assert_eq!(rk.rounds, NR);
    let keys = ni::load_keys(t, rk);
    // A short message's AAD is hashed in the tail's batch.
    let (mut a, tail_aad) = x86::start_aad(t, hk, aad, buf.len());
    let j0 = x86::j0_vec(t, j0);
    let mut y = x86::first_ctr(t, j0);
    let lengths = x86::lengths_vec(t, aad.len(), buf.len());
    let rem = x86::crypt_chunks8::<OPEN, _>(t, &keys, NR, hk, &mut y, &mut a, buf);
    crypt_final::<OPEN, _>(t, &keys, NR, hk, &mut y, a, tail_aad, j0, lengths, rem)
}
