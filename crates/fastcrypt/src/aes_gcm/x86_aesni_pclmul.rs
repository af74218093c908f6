//! AES-GCM with AES-NI and PCLMULQDQ on 128-bit registers.
//!
//! Sealing is one pass: each iteration runs AES on counter blocks n..n+7
//! while it hashes the ciphertext of blocks n-8..n-1 (one reduction per 8
//! blocks, H^8..H^1 precomputed). The two dependency chains are
//! independent, so the out-of-order core overlaps the CLMUL work with the
//! AESENC latency (Gueron and Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", rev. 2.02,
//! section on aggregated reduction; the stitching idea of OpenSSL's
//! aesni-gcm-x86_64).
//!
//! The counter lives in a register in byte-reversed form, where GCM's
//! inc32 (the last four bytes, big-endian, mod 2^32) is `paddd` on dword 0;
//! `pshufb` turns it back into a counter block.
//!
//! The generic `#[inline(always)]` bodies also serve the VAES kernel for
//! its last < 16 blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::aes::x86_aesni::{self as ni, AesToken};
use crate::aes::RoundKeys;
use crate::cpu::AesNiToken;
use crate::ghash::x86_pclmul::{self as clm, Clmul, ClmulKey};

/// The key material of both x86 engines: AES round keys and the powers of
/// H, expanded once per key with the engine's token, zeroized on drop.
pub(super) struct Keys<T: GcmToken> {
    pub(super) t: T,
    pub(super) rk: RoundKeys,
    pub(super) hk: ClmulKey,
}

impl<T: GcmToken> Keys<T> {
    pub(super) fn new(t: T, key: &[u8]) -> Keys<T> {
        let rk = ni::expand(t, key);
        let mut h = [0u8; 16];
        encrypt_block(t, &rk, &mut h);
        let hk = ClmulKey::new(t, &h);
        zeroize::Zeroize::zeroize(&mut h);
        Keys { t, rk, hk }
    }
}

impl<T: GcmToken> Drop for Keys<T> {
    fn drop(&mut self) {
        // `rk` zeroizes itself.
        self.hk.zeroize();
    }
}

pub(super) struct Engine {
    k: Keys<AesNiToken>,
}

impl Engine {
    pub(super) fn new(t: AesNiToken, key: &[u8]) -> Engine {
        Engine {
            k: Keys::new(t, key),
        }
    }

    pub(super) fn ghash_padded(&self, acc: &mut u128, data: &[u8]) {
        ghash_padded(self.k.t, &self.k.hk, acc, data);
    }

    pub(super) fn seal(&self, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        // SAFETY: the token proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        unsafe {
            match self.k.rk.rounds {
                10 => seal_k::<10>(self.k.t, &self.k.rk, &self.k.hk, j0, aad, buf),
                12 => seal_k::<12>(self.k.t, &self.k.rk, &self.k.hk, j0, aad, buf),
                _ => seal_k::<14>(self.k.t, &self.k.rk, &self.k.hk, j0, aad, buf),
            }
        }
    }

    pub(super) fn tag(&self, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        tag(
            self.k.t,
            &self.k.rk,
            &self.k.hk,
            j0,
            aad,
            ct,
            |acc, blocks| clm::update(self.k.t, &self.k.hk, acc, blocks),
        )
    }

    pub(super) fn ctr(&self, ctr: &mut [u8; 16], buf: &mut [u8]) {
        // SAFETY: the token proves AES-NI, SSSE3 and SSE4.1.
        unsafe {
            match self.k.rk.rounds {
                10 => ctr_k::<10>(self.k.t, &self.k.rk, ctr, buf),
                12 => ctr_k::<12>(self.k.t, &self.k.rk, ctr, buf),
                _ => ctr_k::<14>(self.k.t, &self.k.rk, ctr, buf),
            }
        }
    }

    pub(super) fn tag_short(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        ct: &[u8],
    ) -> ([u8; 16], [[u8; 16]; 8]) {
        tag_short(self.k.t, &self.k.rk, &self.k.hk, j0, aad, ct)
    }
}

/// Open's short path (ciphertext of at most `SHORT_MAX` bytes): one AES
/// batch yields E(K, J0) and the keystream together, one GHASH call covers
/// ciphertext and lengths. The caller compares the tag and applies the
/// keystream only if it matches, then wipes it.
pub(super) fn tag_short<T: GcmToken>(
    t: T,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: &[u8; 16],
    aad: &[u8],
    ct: &[u8],
) -> ([u8; 16], [[u8; 16]; 8]) {
    assert!(ct.len() <= super::SHORT_MAX);
    // SAFETY: the token proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
    unsafe { tag_short_k(t, rk, hk, j0, aad, ct) }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tag_short_k<T: GcmToken>(
    t: T,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: &[u8; 16],
    aad: &[u8],
    ct: &[u8],
) -> ([u8; 16], [[u8; 16]; 8]) {
    let keys = ni::load_keys(t, rk);
    let nr = rk.rounds;
    let nb = ct.len().div_ceil(16);
    let mut ks = [[0u8; 16]; 8];
    let mut y = ctr_load(t, j0);
    y = _mm_add_epi32(y, _mm_set_epi32(0, 0, 0, 1));
    // SAFETY: `j0` is 16 readable bytes.
    let j0x = _mm_xor_si128(unsafe { _mm_loadu_si128(j0.as_ptr().cast()) }, keys[0]);
    if nb < 4 {
        let mut b = counters::<4>(t, &mut y, keys[0], 0);
        b[nb] = j0x;
        rounds(t, &keys, nr, &mut b);
        store_blocks(t, &b, &mut ks);
    } else {
        let mut b = counters::<8>(t, &mut y, keys[0], 0);
        b[nb] = j0x;
        rounds(t, &keys, nr, &mut b);
        store_blocks(t, &b, &mut ks);
    }
    let mut acc = 0u128;
    ghash_padded(t, hk, &mut acc, aad);
    let mut tmp_blocks = [[0u8; 16]; 8];
    let tmp = tmp_blocks.as_flattened_mut();
    tmp[..ct.len()].copy_from_slice(ct);
    tmp[nb * 16..nb * 16 + 16].copy_from_slice(&super::lengths_block(aad.len(), ct.len()));
    clm::update(t, hk, &mut acc, &tmp[..nb * 16 + 16]);
    let s = acc.to_be_bytes();
    let tag = core::array::from_fn(|i| s[i] ^ ks[nb][i]);
    (tag, ks)
}

/// Open's first pass: GHASH over AAD, ciphertext and lengths (whole
/// ciphertext blocks through `bulk`, the widest GHASH kernel the token
/// allows), then the tag S xor E(K, J0).
pub(super) fn tag<T: GcmToken>(
    t: T,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: &[u8; 16],
    aad: &[u8],
    ct: &[u8],
    bulk: impl Fn(&mut u128, &[u8]),
) -> [u8; 16] {
    let mut acc = 0u128;
    ghash_padded(t, hk, &mut acc, aad);
    let whole = ct.len() / 16 * 16;
    if whole > 0 {
        bulk(&mut acc, &ct[..whole]);
    }
    // Last partial block and the lengths block in one call.
    let mut last = [0u8; 32];
    let part = ct.len() - whole;
    last[..part].copy_from_slice(&ct[whole..]);
    let n = if part > 0 { 32 } else { 16 };
    last[n - 16..n].copy_from_slice(&super::lengths_block(aad.len(), ct.len()));
    clm::update(t, hk, &mut acc, &last[..n]);
    let mut ek = *j0;
    encrypt_block(t, rk, &mut ek);
    let s = acc.to_be_bytes();
    core::array::from_fn(|i| s[i] ^ ek[i])
}

use crate::cpu::GcmToken;

pub(super) fn encrypt_block(t: impl AesToken, rk: &RoundKeys, block: &mut [u8; 16]) {
    // SAFETY: the token proves AES-NI and SSE2.
    unsafe { encrypt_block_k(t, rk, block) }
}

#[target_feature(enable = "aes,sse2")]
unsafe fn encrypt_block_k(t: impl AesToken, rk: &RoundKeys, block: &mut [u8; 16]) {
    let keys = ni::load_keys(t, rk);
    // SAFETY: `block` is 16 readable and writable bytes.
    unsafe {
        let b = ni::encrypt1(t, &keys, rk.rounds, _mm_loadu_si128(block.as_ptr().cast()));
        _mm_storeu_si128(block.as_mut_ptr().cast(), b);
    }
}

/// GHASH of `data`, the final partial block zero-padded.
pub(super) fn ghash_padded(t: impl Clmul, hk: &ClmulKey, acc: &mut u128, data: &[u8]) {
    let whole = data.len() / 16 * 16;
    if whole > 0 {
        clm::update(t, hk, acc, &data[..whole]);
    }
    if whole < data.len() {
        let mut last = [0u8; 16];
        last[..data.len() - whole].copy_from_slice(&data[whole..]);
        clm::update(t, hk, acc, &last);
    }
}

/// Reverses the 16 bytes of a block.
#[inline(always)]
fn rev_mask(_t: impl GcmToken) -> __m128i {
    // SAFETY: the token proves SSE2.
    #[allow(unused_unsafe)]
    unsafe {
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    }
}

/// The counter block in byte-reversed form (inc32 = add to dword 0).
#[inline(always)]
pub(super) fn ctr_load(t: impl GcmToken, ctr: &[u8; 16]) -> __m128i {
    // SAFETY: `ctr` is 16 readable bytes; the token proves SSSE3.
    unsafe { _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), rev_mask(t)) }
}

#[inline(always)]
pub(super) fn ctr_store(t: impl GcmToken, y: __m128i, ctr: &mut [u8; 16]) {
    // SAFETY: `ctr` is 16 writable bytes; the token proves SSSE3.
    unsafe { _mm_storeu_si128(ctr.as_mut_ptr().cast(), _mm_shuffle_epi8(y, rev_mask(t))) }
}

/// Counter blocks y, y+1, .., y+N-1 (memory order), round key 0 already
/// XORed in; advances `y` by `advance`.
#[inline(always)]
fn counters<const N: usize>(
    t: impl GcmToken,
    y: &mut __m128i,
    k0: __m128i,
    advance: i32,
) -> [__m128i; N] {
    // SAFETY: the token proves SSE2 and SSSE3.
    #[allow(unused_unsafe)]
    unsafe {
        let m = rev_mask(t);
        // No closures in these helpers: a closure does not inherit the
        // caller's target features, so its intrinsics would become calls.
        let mut out = [_mm_setzero_si128(); N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = _mm_xor_si128(
                _mm_shuffle_epi8(_mm_add_epi32(*y, _mm_set_epi32(0, 0, 0, i as i32)), m),
                k0,
            );
        }
        *y = _mm_add_epi32(*y, _mm_set_epi32(0, 0, 0, advance));
        out
    }
}

/// AES rounds 1..=nr on N blocks (round 0 was done by `counters`).
#[inline(always)]
fn rounds<const N: usize>(
    _t: impl GcmToken,
    keys: &[__m128i; 15],
    nr: usize,
    b: &mut [__m128i; N],
) {
    // SAFETY: the token proves AES-NI.
    #[allow(unused_unsafe)]
    unsafe {
        for k in &keys[1..nr] {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm_aesenclast_si128(*x, keys[nr]);
        }
    }
}

/// XORs the keystream `ks` into 16 * N bytes at `io` and returns the result.
#[inline(always)]
fn xor_store<const N: usize>(_t: impl GcmToken, io: &mut [u8], ks: &[__m128i; N]) -> [__m128i; N] {
    assert!(io.len() >= 16 * N);
    let p = io.as_mut_ptr();
    // SAFETY: `io` has at least 16 * N bytes (checked above); unaligned
    // loads and stores; the token proves SSE2.
    unsafe {
        let mut out = [_mm_setzero_si128(); N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = _mm_xor_si128(_mm_loadu_si128(p.add(16 * i).cast()), ks[i]);
            _mm_storeu_si128(p.add(16 * i).cast(), *o);
        }
        out
    }
}

/// Wipes stack temporaries (keystream, message tails) with 16-byte
/// stores: 16 times fewer stores than `zeroize`'s volatile byte loop,
/// which matters for short messages. `black_box` makes the stores
/// observable, so they are not removed as dead.
#[inline(always)]
pub(super) fn wipe(_t: impl GcmToken, buf: &mut [[u8; 16]]) {
    for b in buf.iter_mut() {
        // SAFETY: `b` is 16 writable bytes; unaligned store; the token
        // proves SSE2.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), _mm_setzero_si128()) };
    }
    core::hint::black_box(buf);
}

/// Stores registers into the first `N` 16-byte slots of `out`.
#[inline(always)]
fn store_blocks<const N: usize>(_t: impl GcmToken, b: &[__m128i; N], out: &mut [[u8; 16]]) {
    for (x, o) in b.iter().zip(out.iter_mut()) {
        // SAFETY: `o` is 16 writable bytes; unaligned store; the token
        // proves SSE2.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), *x) };
    }
}

/// The last < 128 bytes of a seal, and the tag, in one batch of AES
/// blocks: the remaining counter blocks plus J0 (whose encryption masks
/// the tag). 4 or 8 blocks in parallel cost about what 1 costs in latency,
/// so short messages pay for no loop and no second AES call. The
/// ciphertext tail and the lengths block then go through one GHASH call.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn seal_final<T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: &mut __m128i,
    a: __m128i,
    j0: &[u8; 16],
    lengths: [u8; 16],
    rem: &mut [u8],
) -> [u8; 16] {
    debug_assert!(rem.len() < 128);
    let nb = rem.len().div_ceil(16);
    let mut tmp_blocks = [[0u8; 16]; 9];
    let tmp = tmp_blocks.as_flattened_mut();
    tmp[..rem.len()].copy_from_slice(rem);
    let mut ks = [[0u8; 16]; 9];
    // SAFETY: the token proves SSE2; `j0` is 16 readable bytes.
    let (j0b, j0x) = unsafe {
        let j = _mm_loadu_si128(j0.as_ptr().cast());
        (j, _mm_xor_si128(j, keys[0]))
    };
    if nb < 4 {
        let mut b = counters::<4>(t, y, keys[0], nb as i32);
        b[nb] = j0x;
        rounds(t, keys, nr, &mut b);
        store_blocks(t, &b, &mut ks);
    } else if nb < 8 {
        let mut b = counters::<8>(t, y, keys[0], nb as i32);
        b[nb] = j0x;
        rounds(t, keys, nr, &mut b);
        store_blocks(t, &b, &mut ks);
    } else {
        // 113..=127 bytes: 8 counter blocks fill the batch; J0 goes alone.
        let mut b = counters::<8>(t, y, keys[0], nb as i32);
        rounds(t, keys, nr, &mut b);
        store_blocks(t, &b, &mut ks);
        store_blocks(t, &[ni::encrypt1(t, keys, nr, j0b)], &mut ks[8..]);
    }
    for (c, k) in tmp[..rem.len()].iter_mut().zip(ks.as_flattened()) {
        *c ^= k;
    }
    rem.copy_from_slice(&tmp[..rem.len()]);
    tmp[nb * 16..nb * 16 + 16].copy_from_slice(&lengths);
    let mut acc = 0u128;
    clm::store_acc(t, a, &mut acc);
    clm::update(t, hk, &mut acc, &tmp[..nb * 16 + 16]);
    let s = acc.to_be_bytes();
    let tag = core::array::from_fn(|i| s[i] ^ ks[nb][i]);
    wipe(t, &mut tmp_blocks);
    wipe(t, &mut ks);
    tag
}

/// CTR over the last < 128 bytes.
#[inline(always)]
pub(super) fn ctr_tail<T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    y: &mut __m128i,
    rem: &mut [u8],
) {
    if rem.is_empty() {
        return;
    }
    let nb = rem.len().div_ceil(16);
    let mut tmp_blocks = [[0u8; 16]; 8];
    let tmp = tmp_blocks.as_flattened_mut();
    tmp[..rem.len()].copy_from_slice(rem);
    let mut b = counters::<8>(t, y, keys[0], nb as i32);
    rounds(t, keys, nr, &mut b);
    xor_store(t, tmp, &b);
    rem.copy_from_slice(&tmp[..rem.len()]);
    wipe(t, &mut tmp_blocks);
}

/// The fused body over whole 128-byte chunks of `buf`; returns the
/// unprocessed remainder (< 128 bytes).
#[inline(always)]
pub(super) fn seal_chunks8<'a, T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: &mut __m128i,
    a: &mut __m128i,
    buf: &'a mut [u8],
) -> &'a mut [u8] {
    let mut chunks = buf.chunks_exact_mut(128);
    if let Some(first) = chunks.next() {
        let mut b = counters::<8>(t, y, keys[0], 8);
        rounds(t, keys, nr, &mut b);
        let mut pending = xor_store(t, first, &b);
        for chunk in &mut chunks {
            let mut b = counters::<8>(t, y, keys[0], 8);
            // Hash the previous 8 ciphertext blocks while these 8 go through
            // AES: two independent chains for the out-of-order core.
            *a = clm::fold8(t, hk, *a, &pending);
            rounds(t, keys, nr, &mut b);
            pending = xor_store(t, chunk, &b);
        }
        *a = clm::fold8(t, hk, *a, &pending);
    }
    chunks.into_remainder()
}

/// CTR over whole 128-byte chunks; returns the remainder.
#[inline(always)]
pub(super) fn ctr_chunks8<'a, T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    y: &mut __m128i,
    buf: &'a mut [u8],
) -> &'a mut [u8] {
    let mut chunks = buf.chunks_exact_mut(128);
    for chunk in &mut chunks {
        let mut b = counters::<8>(t, y, keys[0], 8);
        rounds(t, keys, nr, &mut b);
        xor_store(t, chunk, &b);
    }
    chunks.into_remainder()
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
/// `NR` (the number of rounds) is a constant so the round loops unroll
/// fully and the AES and GHASH instructions can be scheduled together.
unsafe fn seal_k<const NR: usize>(
    t: AesNiToken,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    debug_assert_eq!(rk.rounds, NR);
    let keys = ni::load_keys(t, rk);
    let mut acc = 0u128;
    ghash_padded(t, hk, &mut acc, aad);
    let mut a = clm::load_acc(t, &acc);
    let mut y = ctr_load(t, j0);
    y = _mm_add_epi32(y, _mm_set_epi32(0, 0, 0, 1));
    let lengths = super::lengths_block(aad.len(), buf.len());
    let rem = seal_chunks8(t, &keys, NR, hk, &mut y, &mut a, buf);
    seal_final(t, &keys, NR, hk, &mut y, a, j0, lengths, rem)
}

#[target_feature(enable = "aes,ssse3,sse4.1")]
unsafe fn ctr_k<const NR: usize>(
    t: AesNiToken,
    rk: &RoundKeys,
    ctr: &mut [u8; 16],
    buf: &mut [u8],
) {
    debug_assert_eq!(rk.rounds, NR);
    let keys = ni::load_keys(t, rk);
    let mut y = ctr_load(t, ctr);
    let rem = ctr_chunks8(t, &keys, NR, &mut y, buf);
    ctr_tail(t, &keys, NR, &mut y, rem);
    ctr_store(t, y, ctr);
}
