//! AES-NI pieces shared by the AES-GCM kernels: the key schedule and the
//! `#[inline(always)]` round helpers that compile into each kernel.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::RoundKeys;

pub(crate) use crate::cpu::AesToken;

/// Expands a 16-, 24- or 32-byte key (other lengths panic: callers take
/// fixed-size arrays).
pub(crate) fn expand(_token: impl AesToken, key: &[u8]) -> RoundKeys {
    let mut out = RoundKeys {
        rk: [[0; 16]; 15],
        rounds: 0,
    };
    // SAFETY: the token proves AES-NI and SSE2 are present.
    unsafe { expand_words(key, &mut out) };
    out
}

/// FIPS 197 section 5.2, word by word, for every key size. SubWord comes
/// from AESKEYGENASSIST: with the word in dword 1 of the source, dword 0
/// of the result is SubWord(word) (Intel SDM, AESKEYGENASSIST). So the
/// S-box is never a memory lookup indexed by key bytes. This is slower
/// than the shuffle-based schedules (one instruction chain per word), but
/// it runs once per key and one routine serves all three key sizes.
#[target_feature(enable = "aes,sse2")]
unsafe fn expand_words(key: &[u8], out: &mut RoundKeys) {
    const RCON: [u32; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];
    assert!(
        matches!(key.len(), 16 | 24 | 32),
        "AES key must be 16, 24 or 32 bytes"
    );
    let nk = key.len() / 4;
    let rounds = nk + 6;
    let total = 4 * (rounds + 1);
    // Words are little-endian u32s: byte 0 of the FIPS word is the low byte,
    // so RotWord is a rotate right by 8 and Rcon lands in the low byte.
    let mut w = [0u32; 60];
    for (wi, c) in w.iter_mut().zip(key.chunks_exact(4)) {
        *wi = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    // The closure inherits this function's `aes` and `sse2`, which makes
    // the intrinsics safe to call.
    let sub_word = |x: u32| -> u32 {
        let v = _mm_aeskeygenassist_si128(_mm_set_epi32(0, 0, x as i32, 0), 0);
        _mm_cvtsi128_si32(v) as u32
    };
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t.rotate_right(8)) ^ RCON[i / nk - 1];
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    for (r, words) in out.rk.iter_mut().zip(w[..total].chunks_exact(4)) {
        for (dst, word) in r.chunks_exact_mut(4).zip(words) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
    }
    out.rounds = rounds;
    zeroize::Zeroize::zeroize(&mut w);
}

/// Loads the round keys into registers (the kernels keep them there).
#[inline(always)]
pub(crate) fn load_keys(_t: impl AesToken, k: &RoundKeys) -> [__m128i; 15] {
    // (Loops, not closures, in these helpers: a closure does not inherit the
    // caller's target features, so its intrinsics would become calls.)
    // SAFETY: each `rk[i]` is 16 readable bytes (unaligned load); the token
    // proves SSE2.
    unsafe {
        let mut out = [_mm_setzero_si128(); 15];
        for (o, r) in out.iter_mut().zip(&k.rk) {
            *o = _mm_loadu_si128(r.as_ptr().cast());
        }
        out
    }
}

/// Encrypts one block (used for E(K, J0) and the hash key H).
#[inline(always)]
pub(crate) fn encrypt1(
    _t: impl AesToken,
    rk: &[__m128i; 15],
    rounds: usize,
    block: __m128i,
) -> __m128i {
    // SAFETY: the token proves AES-NI and SSE2.
    unsafe {
        let mut b = _mm_xor_si128(block, rk[0]);
        for k in &rk[1..rounds] {
            b = _mm_aesenc_si128(b, *k);
        }
        _mm_aesenclast_si128(b, rk[rounds])
    }
}
