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
/// the tag). 4 or 8 blocks in parallel cost about what 1 costs in latency,
/// so short messages pay for no loop and no second AES call. The
/// ciphertext tail and the lengths block (and a short message's AAD,
/// `aad`) then go through one GHASH batch.
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
    let nb = rem.len().div_ceil(16);
    // SAFETY: the token proves SSE2.
    let (j0b, j0x) = (j0, unsafe { _mm_xor_si128(j0, keys[0]) });
    let (ks, e) = if nb < 4 {
        let mut b = counters::<4>(t, y, keys[0], nb as i32);
        b[nb] = j0x;
        rounds(t, keys, nr, &mut b);
        let e = b[nb];
        let mut ks = [e; 8];
        ks[..4].copy_from_slice(&b);
        (ks, e)
    } else if nb < 8 {
        let mut b = counters::<8>(t, y, keys[0], nb as i32);
        b[nb] = j0x;
        rounds(t, keys, nr, &mut b);
        (b, b[nb])
    } else {
        // 113..=127 bytes: 8 counter blocks fill the batch; J0 goes alone.
        let mut b = counters::<8>(t, y, keys[0], nb as i32);
        rounds(t, keys, nr, &mut b);
        (b, ni::encrypt1(t, keys, nr, j0b))
    };
    x86::crypt_tail::<OPEN>(t, hk, a, aad, rem, &ks, e, lengths)
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
    let mut y = x86::ctr_from(t, j0);
    y = _mm_add_epi32(y, _mm_set_epi32(0, 0, 0, 1));
    let lengths = x86::lengths_vec(t, aad.len(), buf.len());
    let rem = x86::crypt_chunks8::<OPEN, _>(t, &keys, NR, hk, &mut y, &mut a, buf);
    crypt_final::<OPEN, _>(t, &keys, NR, hk, &mut y, a, tail_aad, j0, lengths, rem)
}
