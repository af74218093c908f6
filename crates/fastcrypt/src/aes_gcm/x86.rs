//! What the x86 AES-GCM engines share: the key material, the engine
//! built on a [`Kernel`], and the 128-bit `#[inline(always)]` bodies that
//! the AES-NI kernel runs whole and the VAES kernel runs for its last
//! < 16 blocks.
//!
//! The counter lives in a register in byte-reversed form, where GCM's
//! inc32 (the last four bytes, big-endian, mod 2^32) is `paddd` on dword 0;
//! `pshufb` turns it back into a counter block.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::GcmEngine;
use crate::aes::x86_aesni as ni;
use crate::aes::RoundKeys;
use crate::cpu::GcmToken;
use crate::ghash::x86_pclmul::{self as clm, ClmulKey};

/// Calls `$f::<NR>(args)` with the key's round count as a constant, so the
/// kernel's round loops unroll.
macro_rules! by_rounds {
    ($rounds:expr, $f:ident $(::<$($g:tt),*>)? ($($arg:expr),* $(,)?)) => {
        match $rounds {
            10 => $f::<$($($g,)*)? 10>($($arg),*),
            12 => $f::<$($($g,)*)? 12>($($arg),*),
            _ => $f::<$($($g,)*)? 14>($($arg),*),
        }
    };
}
pub(super) use by_rounds;

/// What an x86 kernel adds to the shared bodies: its bulk GHASH and its
/// fused pass. Implemented by the kernel's token.
pub(super) trait Kernel: GcmToken {
    /// GHASH of whole blocks (`blocks.len()` a multiple of 16) with the
    /// widest multiplier that pays off at that length.
    fn ghash_blocks(self, hk: &ClmulKey, acc: &mut u128, blocks: &[u8]);

    /// [`GcmEngine::seal`] (`OPEN` false) or [`GcmEngine::open`] (`OPEN`
    /// true) on this kernel: one pass that runs AES-CTR over `buf` and
    /// hashes its ciphertext (the output when sealing, the input when
    /// opening); returns the full tag.
    fn crypt<const OPEN: bool>(
        self,
        k: &Keys<Self>,
        j0: u128,
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16];
}

/// The key material of an x86 engine: AES round keys and the powers of H,
/// expanded once per key with the engine's token, zeroized on drop (each
/// clone too).
#[derive(Clone)]
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

/// An x86 AES-GCM engine: the keys and the kernel their token selects.
#[derive(Clone)]
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
        // SAFETY: a `GcmToken` proves AES-NI, PCLMULQDQ, SSSE3 and SSE2,
        // everything `ghash_padded_k` enables.
        unsafe { ghash_padded_k(self.k.t, &self.k.hk, acc, data) }
    }

    fn seal(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.k.t.crypt::<false>(&self.k, j0, aad, buf)
    }

    fn open(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.k.t.crypt::<true>(&self.k, j0, aad, buf)
    }
}

/// AAD of at most this many bytes is hashed in the tail's batch when the
/// whole message goes through the tail (under 128 bytes): TLS records (5
/// or 13 bytes of AAD), QUIC packets (their header) and RPC frames then
/// pay one GHASH reduction in all, not one for the AAD and one for the
/// rest.
pub(super) const TAIL_AAD: usize = 256;

/// The start of every x86 pass over a message of `len` bytes: the GHASH
/// accumulator register after the AAD, and the AAD left for
/// [`crypt_tail`]'s batch (all of it for a short message with short AAD,
/// else none).
#[inline(always)]
pub(super) fn start_aad<'a, T: Kernel>(
    t: T,
    hk: &ClmulKey,
    aad: &'a [u8],
    len: usize,
) -> (__m128i, &'a [u8]) {
    // SAFETY: the token proves SSE2.
    let zero = unsafe { _mm_setzero_si128() };
    if len < 128 && aad.len() <= TAIL_AAD {
        (zero, aad)
    } else {
        (ghash_padded(t, hk, zero, aad), &[])
    }
}

/// The end of every x86 pass: XORs the keystream `ks` (block `i` for
/// byte `16 i` on) into the last < 128 bytes `rem`, hashes the AAD `aad`
/// (empty when the accumulator has absorbed it; at most [`TAIL_AAD`]
/// bytes), their ciphertext (the output when sealing, the input when
/// opening) and the lengths block on top of the accumulator register `a`
/// with one reduction, and masks the result with `e` (E(K, J0), which the
/// caller's AES batch made beside the keystream).
///
/// Everything stays in registers: `rem` is read and written in place, a
/// whole block with one 16-byte access; a partial block is read with
/// integer loads that end at its last byte ([`load_partial`]) and written
/// through one 16-byte store and a copy. (The earlier form XORed a
/// zero-padded copy of the tail on the stack and hashed it from there
/// with the bulk GHASH: the copies and the call made the VAES kernel's
/// 16- and 64-byte seal and open 1.3-1.8x slower, AMD EPYC Zen 4. A
/// 16-byte load of a block that narrower stores have just written waits
/// for them to retire: the partial AAD block cost a 5- or 13-byte AAD
/// ~14 ns on a 16-byte seal, Sapphire Rapids-class Xeon.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn crypt_tail<const OPEN: bool>(
    t: impl GcmToken,
    hk: &ClmulKey,
    a: __m128i,
    aad: &[u8],
    rem: &mut [u8],
    ks: &[__m128i; 8],
    e: __m128i,
    lengths: __m128i,
) -> [u8; 16] {
    let len = rem.len();
    assert!(len < 128 && aad.len() <= TAIL_AAD);
    let (full, r) = (len / 16, len % 16);
    // The blocks to hash: the AAD and the ciphertext, each zero-padded,
    // then the lengths block, multiplied as they come (no array of them
    // to build and read back).
    let mut g = Batch::new(t, a, aad.len().div_ceil(16) + len.div_ceil(16) + 1);
    absorb_blocks(t, hk, &mut g, aad);
    // SAFETY: the token proves SSE2; each 16-byte load and store is at
    // 16 i < 16 full <= len inside `rem`, or into the 16 bytes of `part`
    // and of `KEEP` from 16 - r, r in 1..16.
    unsafe {
        let p = rem.as_mut_ptr();
        for (i, k) in ks.iter().enumerate().take(full) {
            let d = _mm_loadu_si128(p.add(16 * i).cast());
            let o = _mm_xor_si128(d, *k);
            _mm_storeu_si128(p.add(16 * i).cast(), o);
            g.push(t, hk, if OPEN { d } else { o });
        }
        if r > 0 {
            let d = load_partial(t, &rem[16 * full..]);
            let o = _mm_xor_si128(d, ks[full]);
            let mut part = [[0u8; 16]];
            _mm_storeu_si128(part.as_mut_ptr().cast(), o);
            rem[16 * full..].copy_from_slice(&part[0][..r]);
            let keep = _mm_loadu_si128(super::KEEP.as_ptr().add(16 - r).cast());
            g.push(t, hk, if OPEN { d } else { _mm_and_si128(o, keep) });
            wipe(t, &mut part);
        }
        g.push(t, hk, lengths);
        let tag = _mm_xor_si128(clm::bswap(t, g.finish(t)), e);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

/// `data` (1 to 15 bytes) in the low bytes of a register, zeros above,
/// read with integer loads that stay inside it: two overlapping loads of
/// 8, 4 or 2 bytes (or one byte), shifted into place. Building the block
/// in memory instead, as a zero-padded copy, makes the 16-byte load that
/// follows wait for the copy's narrower stores to retire (a failed
/// store-to-load forward). Branches on the length only, which is public.
#[inline(always)]
fn load_partial(_t: impl GcmToken, data: &[u8]) -> __m128i {
    let r = data.len();
    assert!((1..16).contains(&r));
    let p = data.as_ptr();
    // SAFETY: every read below lies in `data[..r]`: u64 at 0 and at r - 8
    // when r >= 8, u32 at 0 and r - 4 when r >= 4, u16 at 0 when r is 2
    // or 3 and a byte at 2 when r is 3, a byte at 0 when r is 1;
    // unaligned reads; the token proves SSE2.
    unsafe {
        let rd64 = |o: usize| u64::from_le(p.add(o).cast::<u64>().read_unaligned());
        let rd32 = |o: usize| u64::from(u32::from_le(p.add(o).cast::<u32>().read_unaligned()));
        let rd16 = |o: usize| u64::from(u16::from_le(p.add(o).cast::<u16>().read_unaligned()));
        let rd8 = |o: usize| u64::from(p.add(o).read());
        // Each second load ends at byte r - 1; the shift drops the bytes
        // it shares with the first. (A `match` on a public length: a jump
        // table here would be resolved by scripts/ct-static.sh or not,
        // either way nothing secret picks the arm.)
        let (lo, hi) = match r {
            9.. => (rd64(0), rd64(r - 8) >> (8 * (16 - r))),
            8 => (rd64(0), 0),
            4.. => (rd32(0) | (rd32(r - 4) >> (8 * (8 - r))) << 32, 0),
            3 => (rd16(0) | rd8(2) << 16, 0),
            2 => (rd16(0), 0),
            _ => (rd8(0), 0),
        };
        _mm_set_epi64x(hi as i64, lo as i64)
    }
}

/// GHASH of a known number of blocks with one reduction, fed one block
/// at a time (GCM byte order): block i of n meets H^(n - i), the
/// accumulator is XORed into the first.
struct Batch {
    w: clm::Wide,
    /// The power of H the next block meets, as an index into the key.
    next: usize,
    /// The accumulator until the first block takes it, then zero.
    carry: __m128i,
}

impl Batch {
    #[inline(always)]
    fn new(_t: impl GcmToken, a: __m128i, n: usize) -> Batch {
        assert!((1..=clm::POWERS).contains(&n));
        // SAFETY: the token proves SSE2.
        let z = unsafe { _mm_setzero_si128() };
        Batch {
            w: clm::Wide {
                lo: z,
                mid: z,
                hi: z,
            },
            next: clm::POWERS - n,
            carry: a,
        }
    }

    #[inline(always)]
    fn push(&mut self, t: impl GcmToken, hk: &ClmulKey, block: __m128i) {
        let (h, hm) = clm::power(t, hk, self.next);
        // SAFETY: the token proves SSE2.
        let x = unsafe { _mm_xor_si128(clm::bswap(t, block), self.carry) };
        self.w.mul_add(t, x, h, hm);
        self.next += 1;
        // SAFETY: as above.
        self.carry = unsafe { _mm_setzero_si128() };
    }

    #[inline(always)]
    fn finish(self, t: impl GcmToken) -> __m128i {
        debug_assert_eq!(self.next, clm::POWERS);
        self.w.reduce(t)
    }
}

/// Pushes `data` into `g` as zero-padded blocks.
#[inline(always)]
fn absorb_blocks(t: impl GcmToken, hk: &ClmulKey, g: &mut Batch, data: &[u8]) {
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        // SAFETY: `b` is 16 readable bytes; unaligned load; the token
        // proves SSE2.
        g.push(t, hk, unsafe { _mm_loadu_si128(b.as_ptr().cast()) });
    }
    let last = blocks.remainder();
    if !last.is_empty() {
        g.push(t, hk, load_partial(t, last));
    }
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

/// [`ghash_padded`] on an accumulator in memory, for callers outside the
/// kernels (J0 from a nonce that is not 12 bytes long).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse2")]
unsafe fn ghash_padded_k<T: Kernel>(t: T, hk: &ClmulKey, acc: &mut u128, data: &[u8]) {
    let a = ghash_padded(t, hk, clm::load_acc(t, acc), data);
    clm::store_acc(t, a, acc);
}

/// GHASH of `data`, the final partial block zero-padded, into the
/// accumulator register `a`: up to [`clm::POWERS`] blocks as one batch
/// with one reduction (the AAD of nearly every real message), longer
/// input's whole blocks through the kernel's bulk GHASH, then the partial
/// block. Always inlined: its intrinsics need the caller's target
/// features (a kernel's, or `ghash_padded_k`'s).
#[inline(always)]
fn ghash_padded<T: Kernel>(t: T, hk: &ClmulKey, a: __m128i, data: &[u8]) -> __m128i {
    if data.is_empty() {
        return a;
    }
    if data.len() <= 16 * clm::POWERS {
        let mut g = Batch::new(t, a, data.len().div_ceil(16));
        absorb_blocks(t, hk, &mut g, data);
        return g.finish(t);
    }
    let whole = data.len() / 16 * 16;
    let mut acc = 0u128;
    clm::store_acc(t, a, &mut acc);
    t.ghash_blocks(hk, &mut acc, &data[..whole]);
    let a = clm::load_acc(t, &acc);
    if whole == data.len() {
        return a;
    }
    let mut g = Batch::new(t, a, 1);
    g.push(t, hk, load_partial(t, &data[whole..]));
    g.finish(t)
}

/// Reverses the 16 bytes of a block.
#[inline(always)]
fn rev_mask(_t: impl GcmToken) -> __m128i {
    // SAFETY: the token proves SSE2.
    unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
}

/// J0 (as [`super::Gcm::j0`] gives it) in a register, memory order:
/// moved from the integer registers it came in, never through memory.
#[inline(always)]
pub(super) fn j0_vec(_t: impl GcmToken, j0: u128) -> __m128i {
    // SAFETY: the token proves SSE2.
    unsafe { _mm_set_epi64x((j0 >> 64) as u64 as i64, j0 as u64 as i64) }
}

/// inc32(J0), the first message block's counter, byte-reversed (so inc32
/// is an add to dword 0), from J0 in a register.
#[inline(always)]
pub(super) fn first_ctr(t: impl GcmToken, j0: __m128i) -> __m128i {
    // SAFETY: the token proves SSSE3.
    unsafe { _mm_add_epi32(_mm_shuffle_epi8(j0, rev_mask(t)), _mm_set_epi32(0, 0, 0, 1)) }
}

/// The counter's low word as a scalar: J0's last four bytes, big-endian,
/// plus one (the first block's counter). Taken from the `u128`, not from
/// the vector that holds J0: a vector-to-scalar move is what the
/// constant-time listing (scripts/ct-static.sh) has to treat as secret.
#[inline(always)]
pub(super) fn ctr32(j0: u128) -> u32 {
    ((j0 >> 96) as u32).swap_bytes().wrapping_add(1)
}

/// [`super::lengths_block`] in a register, made from the two lengths
/// without a round trip through memory (see [`super::Gcm::j0`] for why).
#[inline(always)]
pub(super) fn lengths_vec(_t: impl GcmToken, aad_len: usize, msg_len: usize) -> __m128i {
    let bits = |n: usize| (n as u64).wrapping_mul(8).swap_bytes() as i64;
    // SAFETY: the token proves SSE2.
    unsafe { _mm_set_epi64x(bits(msg_len), bits(aad_len)) }
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

/// Loads 8 blocks as they sit in memory.
#[inline(always)]
fn load8(_t: impl GcmToken, io: &[u8]) -> [__m128i; 8] {
    assert!(io.len() >= 128);
    let p = io.as_ptr();
    // SAFETY: `io` has at least 128 bytes (checked above); unaligned loads;
    // the token proves SSE2.
    unsafe {
        let mut out = [_mm_setzero_si128(); 8];
        for (i, o) in out.iter_mut().enumerate() {
            *o = _mm_loadu_si128(p.add(16 * i).cast());
        }
        out
    }
}

/// The fused body over whole 128-byte chunks of `buf`: AES of counter
/// blocks n..n+7 overlapped with GHASH (one reduction per 8 blocks).
/// Sealing hashes the ciphertext of blocks n-8..n-1 (this chunk's is not
/// made yet); opening hashes this chunk's own ciphertext, loaded before
/// the keystream is XORed in. Returns the unprocessed remainder
/// (< 128 bytes).
#[inline(always)]
pub(super) fn crypt_chunks8<'a, const OPEN: bool, T: GcmToken>(
    t: T,
    keys: &[__m128i; 15],
    nr: usize,
    hk: &ClmulKey,
    y: &mut __m128i,
    a: &mut __m128i,
    buf: &'a mut [u8],
) -> &'a mut [u8] {
    let mut chunks = buf.chunks_exact_mut(128);
    if OPEN {
        for chunk in &mut chunks {
            let mut b = counters::<8>(t, y, keys[0], 8);
            // Two independent chains for the out-of-order core.
            *a = clm::fold8(t, hk, *a, &load8(t, chunk));
            rounds(t, keys, nr, &mut b);
            xor_store(t, chunk, &b);
        }
    } else if let Some(first) = chunks.next() {
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
