//! What the two x86 AES-GCM engines share: the key material, the engine
//! built on a [`Kernel`], and the 128-bit `#[inline(always)]` bodies that
//! the AES-NI kernel runs whole and the VAES kernel runs for its last
//! < 16 blocks and for open's tag pass.
//!
//! The counter lives in a register in byte-reversed form, where GCM's
//! inc32 (the last four bytes, big-endian, mod 2^32) is `paddd` on dword 0;
//! `pshufb` turns it back into a counter block.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{lengths_block, GcmEngine, SHORT_MAX};
use crate::aes::x86_aesni as ni;
use crate::aes::RoundKeys;
use crate::cpu::GcmToken;
use crate::ghash::x86_pclmul::{self as clm, ClmulKey};

/// Calls `$f::<NR>(args)` with the key's round count as a constant, so the
/// kernel's round loops unroll.
macro_rules! by_rounds {
    ($rounds:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $rounds {
            10 => $f::<10>($($arg),*),
            12 => $f::<12>($($arg),*),
            _ => $f::<14>($($arg),*),
        }
    };
}
pub(super) use by_rounds;

/// What an x86 kernel adds to the shared bodies: its bulk GHASH, its
/// fused seal and its CTR pass. Implemented by the kernel's token.
pub(super) trait Kernel: GcmToken {
    /// GHASH of whole blocks (`blocks.len()` a multiple of 16) with the
    /// widest multiplier that pays off at that length.
    fn ghash_blocks(self, hk: &ClmulKey, acc: &mut u128, blocks: &[u8]);

    /// [`GcmEngine::seal`] on this kernel.
    fn seal(self, k: &Keys<Self>, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16];

    /// [`GcmEngine::ctr`] on this kernel.
    fn ctr(self, rk: &RoundKeys, ctr: &mut [u8; 16], buf: &mut [u8]);
}

/// The key material of an x86 engine: AES round keys and the powers of H,
/// expanded once per key with the engine's token, zeroized on drop.
pub(super) struct Keys<T: GcmToken> {
    pub(super) t: T,
    pub(super) rk: RoundKeys,
    pub(super) hk: ClmulKey,
}

impl<T: GcmToken> Keys<T> {
    fn new(t: T, key: &[u8]) -> Keys<T> {
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

/// An x86 AES-GCM engine: the keys and the kernel their token selects.
pub(super) struct Engine<T: Kernel> {
    k: Keys<T>,
}

impl<T: Kernel> Engine<T> {
    pub(super) fn new(t: T, key: &[u8]) -> Engine<T> {
        Engine {
            k: Keys::new(t, key),
        }
    }
}

impl<T: Kernel> GcmEngine for Engine<T> {
    fn ghash_padded(&self, acc: &mut u128, data: &[u8]) {
        ghash_padded(self.k.t, &self.k.hk, acc, data);
    }

    fn seal(&self, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.k.t.seal(&self.k, j0, aad, buf)
    }

    fn tag(&self, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let Keys { t, rk, hk } = &self.k;
        let mut acc = 0u128;
        ghash_padded(*t, hk, &mut acc, aad);
        let whole = ct.len() / 16 * 16;
        if whole > 0 {
            t.ghash_blocks(hk, &mut acc, &ct[..whole]);
        }
        let mut ek = *j0;
        encrypt_block(*t, rk, &mut ek);
        let lengths = lengths_block(aad.len(), ct.len());
        let tag = tail_tag(*t, hk, acc, &ct[whole..], &lengths, &ek);
        wipe(*t, core::slice::from_mut(&mut ek));
        tag
    }

    fn ctr(&self, ctr: &mut [u8; 16], buf: &mut [u8]) {
        self.k.t.ctr(&self.k.rk, ctr, buf);
    }

    fn tag_short(&self, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> ([u8; 16], [[u8; 16]; 8]) {
        assert!(ct.len() <= SHORT_MAX);
        // SAFETY: the token proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        unsafe { tag_short_k(self.k.t, &self.k.rk, &self.k.hk, j0, aad, ct) }
    }
}

/// Open's short path: one AES batch yields E(K, J0) and the keystream
/// together, one GHASH call covers ciphertext and lengths. The caller
/// compares the tag and applies the keystream only if it matches, then
/// wipes it.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tag_short_k<T: Kernel>(
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
    let lengths = lengths_block(aad.len(), ct.len());
    let tag = tail_tag(t, hk, acc, ct, &lengths, &ks[nb]);
    (tag, ks)
}

/// GHASH of `tail` (under 128 bytes, the last block zero-padded) and the
/// lengths block, continuing `acc`, in one call; returns the tag, S xor
/// `mask` (`mask` = E(K, J0)). `tail` is ciphertext: nothing here needs
/// wiping.
#[inline(always)]
fn tail_tag(
    t: impl GcmToken,
    hk: &ClmulKey,
    mut acc: u128,
    tail: &[u8],
    lengths: &[u8; 16],
    mask: &[u8; 16],
) -> [u8; 16] {
    assert!(tail.len() < 128);
    let nb = tail.len().div_ceil(16);
    let mut blocks = [[0u8; 16]; 9];
    blocks.as_flattened_mut()[..tail.len()].copy_from_slice(tail);
    blocks[nb] = *lengths;
    clm::update(t, hk, &mut acc, blocks[..=nb].as_flattened());
    let s = acc.to_be_bytes();
    core::array::from_fn(|i| s[i] ^ mask[i])
}

/// The end of every x86 seal: XORs the keystream `ks` into the last
/// < 128 bytes `rem`, hashes them and the lengths block on top of the
/// accumulator register `a`, masks the result with `ks[mask_slot]` (where
/// the caller's AES batch put E(K, J0)) and wipes `ks`.
#[inline(always)]
pub(super) fn seal_tail(
    t: impl GcmToken,
    hk: &ClmulKey,
    a: __m128i,
    rem: &mut [u8],
    ks: &mut [[u8; 16]],
    mask_slot: usize,
    lengths: &[u8; 16],
) -> [u8; 16] {
    for (c, k) in rem.iter_mut().zip(ks.as_flattened()) {
        *c ^= k;
    }
    let mut acc = 0u128;
    clm::store_acc(t, a, &mut acc);
    let tag = tail_tag(t, hk, acc, rem, lengths, &ks[mask_slot]);
    wipe(t, ks);
    tag
}

/// One block through AES (H and E(K, J0)).
pub(super) fn encrypt_block(t: impl GcmToken, rk: &RoundKeys, block: &mut [u8; 16]) {
    // SAFETY: the token proves AES-NI and SSE2.
    unsafe { encrypt_block_k(t, rk, block) }
}

#[target_feature(enable = "aes,sse2")]
unsafe fn encrypt_block_k(t: impl GcmToken, rk: &RoundKeys, block: &mut [u8; 16]) {
    let keys = ni::load_keys(t, rk);
    // SAFETY: `block` is 16 readable and writable bytes.
    unsafe {
        let b = ni::encrypt1(t, &keys, rk.rounds, _mm_loadu_si128(block.as_ptr().cast()));
        _mm_storeu_si128(block.as_mut_ptr().cast(), b);
    }
}

/// GHASH of `data`, the final partial block zero-padded: whole blocks
/// through the kernel's bulk GHASH, the rest through the 128-bit one.
pub(super) fn ghash_padded<T: Kernel>(t: T, hk: &ClmulKey, acc: &mut u128, data: &[u8]) {
    let whole = data.len() / 16 * 16;
    if whole > 0 {
        t.ghash_blocks(hk, acc, &data[..whole]);
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
    unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
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
pub(super) fn counters<const N: usize>(
    t: impl GcmToken,
    y: &mut __m128i,
    k0: __m128i,
    advance: i32,
) -> [__m128i; N] {
    // SAFETY: the token proves SSE2 and SSSE3.
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
pub(super) fn rounds<const N: usize>(
    _t: impl GcmToken,
    keys: &[__m128i; 15],
    nr: usize,
    b: &mut [__m128i; N],
) {
    // SAFETY: the token proves AES-NI.
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
pub(super) fn store_blocks<const N: usize>(
    _t: impl GcmToken,
    b: &[__m128i; N],
    out: &mut [[u8; 16]],
) {
    for (x, o) in b.iter().zip(out.iter_mut()) {
        // SAFETY: `o` is 16 writable bytes; unaligned store; the token
        // proves SSE2.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), *x) };
    }
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

/// The fused body over whole 128-byte chunks of `buf`: AES of counter
/// blocks n..n+7 while the ciphertext of blocks n-8..n-1 is hashed (one
/// reduction per 8 blocks); returns the unprocessed remainder
/// (< 128 bytes).
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
