//! AES-GCM with VAES and VPCLMULQDQ on 512-bit registers (AVX-512): four
//! blocks per instruction, 32 blocks per iteration, masked tails.
//!
//! The loop is the 256-bit kernel's (see [`super::x86_vaes_vpclmul`]): AES
//! of counter blocks n..n+31 overlapped with GHASH of the previous 32
//! ciphertext blocks (the output when sealing, the input when opening:
//! one loop serves both) with one reduction, H^32..H^1 precomputed; one
//! 16-block step follows where more than 256 bytes are left. What AVX-512
//! adds beyond the width:
//!
//! - the last 0..=256 bytes of a message of 128 bytes or more go through
//!   one batch (shorter messages take the 256-bit kernel's path, see
//!   [`SHORT`]): up to four registers of counter blocks plus E(K, J0) on a
//!   128-bit register in the same round loop, the message loaded and
//!   stored with byte masks (no copy, no byte loop), its ciphertext and
//!   the lengths block hashed together in one reduction (the lengths
//!   block is blended into the block slot after the message with a lane
//!   mask);
//! - the lane-wise reduction and three-way XORs of
//!   [`crate::ghash::x86_vpclmul512`].
//!
//! How fast that can be depends on the core: Zen 5 issues two 512-bit
//! `vaesenc` per cycle, Intel's AVX-512 Xeons one, on the port the XORs
//! also use, while the multiplies and shuffles share the other. There the
//! loop's instructions bound it at ~0.18 cycles/byte for AES-128 (the AES
//! rounds alone at 0.156); docs/aes-gcm-variants.md has the port
//! measurements and the arithmetic.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86::{self, by_rounds, Keys};
use crate::aes::x86_aesni as ni;
use crate::aes::RoundKeys;
use crate::cpu::Vaes512Token;
use crate::ghash::x86_pclmul::{self as clm, ClmulKey};
use crate::ghash::x86_vpclmul512 as zclm;

impl x86::Kernel for Vaes512Token {
    fn ghash_blocks(self, hk: &ClmulKey, acc: &mut u128, blocks: &[u8]) {
        zclm::update(self, hk, acc, blocks)
    }

    fn crypt<const OPEN: bool>(
        self,
        k: &Keys<Self>,
        j0: u128,
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16] {
        if buf.len() < SHORT {
            return super::x86_vaes_vpclmul::crypt_with::<OPEN>(
                self.ymm(),
                &k.rk,
                &k.hk,
                j0,
                aad,
                buf,
            );
        }
        crypt_as::<OPEN>(self, k, j0, aad, buf, zclm::karatsuba())
    }
}

/// Messages shorter than this go through the 256-bit kernel, whose whole
/// pass for them is its tail: up to five pairs of blocks through AES on
/// ymm and the GHASH of the ciphertext in xmm registers
/// (`x86::crypt_tail`). Measured on an AMD EPYC Zen 4 (2026-12-04,
/// `fastcrypt speed --compare vaes_vpclmul,vaes_avx512`, medians of
/// paired rounds): this kernel's masked zmm batch took 1.3-1.4x that
/// time at 16 and 64 bytes, both key sizes, seal and open; from 128
/// bytes on it was 1.0-1.2x faster.
const SHORT: usize = 128;

/// [`x86::Kernel::crypt`] with GHASH's product form chosen by the caller
/// (`kara`: Karatsuba, see [`zclm::karatsuba`]); the tests run both.
fn crypt_as<const OPEN: bool>(
    t: Vaes512Token,
    k: &Keys<Vaes512Token>,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
    kara: bool,
) -> [u8; 16] {
    let c32 = x86::ctr32(j0);
    // SAFETY: the token proves VAES, VPCLMULQDQ, AVX-512 F/BW/VL with
    // OS-saved ZMM state, AVX2, AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
    unsafe {
        if kara {
            by_rounds!(
                k.rk.rounds,
                crypt_k::<OPEN, true>(t, &k.rk, &k.hk, j0, c32, aad, buf)
            )
        } else {
            by_rounds!(
                k.rk.rounds,
                crypt_k::<OPEN, false>(t, &k.rk, &k.hk, j0, c32, aad, buf)
            )
        }
    }
}

/// Round keys broadcast to all four lanes.
#[inline(always)]
fn wide_keys(_t: Vaes512Token, keys: &[__m128i; 15]) -> [__m512i; 15] {
    // SAFETY: the token proves AVX-512F.
    unsafe {
        // No closures in these helpers: a closure does not inherit the
        // caller's target features, so its intrinsics would become calls.
        let mut out = [_mm512_setzero_si512(); 15];
        for (o, k) in out.iter_mut().zip(keys) {
            *o = _mm512_broadcast_i32x4(*k);
        }
        out
    }
}

/// Reverses the bytes of each 128-bit lane.
#[inline(always)]
fn rev_mask(_t: Vaes512Token) -> __m512i {
    // SAFETY: the token proves AVX-512F.
    unsafe { _mm512_broadcast_i32x4(_mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f)) }
}

/// `N` registers of counter blocks y, y+1, .., y+4N-1 (block 4j+l in lane
/// l of register j), round key 0 XORed in; `y` (byte-reversed counter)
/// advances by 4N.
///
/// When the counter's low byte cannot carry within these blocks, they are
/// made in big-endian form directly: one `vpshufb` for the base, then
/// `vpaddd` of i << 24 on the last dword bumps byte 15 (OpenSSL's ctr32
/// trick), sparing port 5 a shuffle per register. `c32` is the counter's
/// low word as a scalar (public: nonce and block index), kept in step.
#[inline(always)]
fn counters<const N: usize>(
    t: Vaes512Token,
    y: &mut __m128i,
    c32: &mut u32,
    k0: __m512i,
) -> [__m512i; N] {
    // SAFETY: the token proves AVX-512F/BW and SSE2.
    unsafe {
        let m = rev_mask(t);
        let mut out = [_mm512_setzero_si512(); N];
        let low = *c32 & 0xff;
        if low as usize + 4 * N <= 0x100 {
            let base = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(*y), m);
            for (j, o) in out.iter_mut().enumerate() {
                let i = 4 * j as i32;
                let inc = _mm512_set_epi32(
                    (i + 3) << 24,
                    0,
                    0,
                    0,
                    (i + 2) << 24,
                    0,
                    0,
                    0,
                    (i + 1) << 24,
                    0,
                    0,
                    0,
                    i << 24,
                    0,
                    0,
                    0,
                );
                *o = _mm512_xor_si512(_mm512_add_epi32(base, inc), k0);
            }
        } else {
            let base = _mm512_broadcast_i32x4(*y);
            for (j, o) in out.iter_mut().enumerate() {
                let i = 4 * j as i32;
                let inc =
                    _mm512_set_epi32(0, 0, 0, i + 3, 0, 0, 0, i + 2, 0, 0, 0, i + 1, 0, 0, 0, i);
                *o = _mm512_xor_si512(_mm512_shuffle_epi8(_mm512_add_epi32(base, inc), m), k0);
            }
        }
        *y = _mm_add_epi32(*y, _mm_set_epi32(0, 0, 0, 4 * N as i32));
        *c32 = c32.wrapping_add(4 * N as u32);
        out
    }
}

/// AES rounds 1..=nr on N registers (round 0 was done by `counters`).
#[inline(always)]
fn rounds<const N: usize>(_t: Vaes512Token, keys: &[__m512i; 15], nr: usize, b: &mut [__m512i; N]) {
    // SAFETY: the token proves VAES and AVX-512F.
    unsafe {
        for k in &keys[1..nr] {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, keys[nr]);
        }
    }
}

/// XORs the keystream `ks` into `64 N` bytes at `io`; returns the
/// ciphertext: what it stored when sealing, what it loaded when opening.
#[inline(always)]
fn xor_store<const OPEN: bool, const N: usize>(
    _t: Vaes512Token,
    io: &mut [u8],
    ks: &[__m512i; N],
) -> [__m512i; N] {
    assert!(io.len() >= 64 * N);
    let p = io.as_mut_ptr();
    // SAFETY: `io` has at least 64 N bytes (checked above); unaligned loads
    // and stores; the token proves AVX-512F.
    unsafe {
        let mut out = [_mm512_setzero_si512(); N];
        for (j, o) in out.iter_mut().enumerate() {
            let d = _mm512_loadu_si512(p.add(64 * j).cast());
            let x = _mm512_xor_si512(d, ks[j]);
            _mm512_storeu_si512(p.add(64 * j).cast(), x);
            *o = if OPEN { d } else { x };
        }
        out
    }
}

/// One middle AES round on `N` registers of counter blocks and on J0.
#[inline(always)]
fn round_all<const N: usize>(
    _t: Vaes512Token,
    b: &mut [__m512i; N],
    e: &mut __m128i,
    key: __m512i,
) {
    // SAFETY: the token proves VAES, AVX-512F and AES-NI.
    unsafe {
        for x in b.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, key);
        }
        *e = _mm_aesenc_si128(*e, _mm512_castsi512_si128(key));
    }
}

/// The last 0..=256 bytes `rem` and the tag, in one batch: `N` registers
/// of counter blocks (`4 N` blocks cover `rem`) and J0 on a 128-bit
/// register through the same rounds; `rem` XORed with byte masks; its
/// ciphertext (zero-padded by the masks) and the lengths block hashed on
/// top of `a` in `G` registers with one reduction (`G` = `N + 1` when the
/// lengths block starts a register of its own, else `N`; at most 4).
/// `pending`, the 16-block step's last chunk when its GHASH is still to
/// do, is folded into `a` first, one register beside each of the first
/// four rounds.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tail<const OPEN: bool, const K: bool, const N: usize, const G: usize>(
    t: Vaes512Token,
    wk: &[__m512i; 15],
    nr: usize,
    hk: &ClmulKey,
    mut y: __m128i,
    mut c32: u32,
    a: __m128i,
    pending: Option<&[__m512i; STEP]>,
    j0: __m128i,
    lengths: __m128i,
    rem: &mut [u8],
) -> [u8; 16] {
    let len = rem.len();
    let k = len.div_ceil(16);
    assert!(k <= 4 * N && len <= 256 && G <= 4 && N <= G);
    // SAFETY: the token proves VAES, VPCLMULQDQ, AVX-512 F/BW/VL, AES-NI
    // and SSE2; `rem` is `len` readable and writable bytes and every load
    // and store below is masked to its first `len` bytes; `j0` and
    // `lengths` are 16 readable bytes; the tag is 16 writable bytes.
    unsafe {
        let mut b = counters::<N>(t, &mut y, &mut c32, wk[0]);
        let mut e = _mm_xor_si128(j0, _mm512_castsi512_si128(wk[0]));
        // The bulk loop's last chunk, whose GHASH it left to this batch:
        // one register's products after each of the first `STEP` rounds,
        // so that they run beside the rounds instead of before them.
        let a = match pending {
            Some(p) => {
                round_all(t, &mut b, &mut e, wk[1]);
                let mut w = zclm::fold_begin::<K>(t, hk, a, p[0], 4 * STEP);
                pin(&mut b, &mut w);
                for j in 1..STEP {
                    round_all(t, &mut b, &mut e, wk[j + 1]);
                    zclm::fold_next::<K>(t, hk, &mut w, p[j], j, 4 * STEP);
                    pin(&mut b, &mut w);
                }
                for key in &wk[STEP + 1..nr] {
                    round_all(t, &mut b, &mut e, *key);
                }
                zclm::fold_end::<K>(t, w)
            }
            None => {
                for key in &wk[1..nr] {
                    round_all(t, &mut b, &mut e, *key);
                }
                a
            }
        };
        for x in b.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, wk[nr]);
        }
        e = _mm_aesenclast_si128(e, _mm512_castsi512_si128(wk[nr]));

        let p = rem.as_mut_ptr();
        let mut g = [_mm512_setzero_si512(); G];
        for (j, ks) in b.iter().enumerate() {
            let m = zclm::byte_mask(len, j);
            let q = p.add(64 * j);
            let d = _mm512_maskz_loadu_epi8(m, q.cast());
            let o = _mm512_xor_si512(d, *ks);
            _mm512_mask_storeu_epi8(q.cast(), m, o);
            g[j] = if OPEN { d } else { _mm512_maskz_mov_epi8(m, o) };
        }
        let lens = _mm512_broadcast_i32x4(lengths);
        let s = if k < 16 {
            // The lengths block goes into block slot k.
            let lane = 3u64 << (2 * k);
            for (j, x) in g.iter_mut().enumerate() {
                *x = _mm512_mask_blend_epi64((lane >> (8 * j)) as u8, *x, lens);
            }
            zclm::fold::<K, G>(t, hk, a, &g, k + 1)
        } else {
            // 241..=256 bytes: sixteen blocks, then the lengths alone.
            let s = zclm::fold::<K, G>(t, hk, a, &g, 16);
            let mut acc = 0u128;
            clm::store_acc(t, s, &mut acc);
            let mut l = [0u8; 16];
            _mm_storeu_si128(l.as_mut_ptr().cast(), lengths);
            clm::update(t, hk, &mut acc, &l);
            clm::load_acc(t, &acc)
        };
        let tag = _mm_xor_si128(clm::bswap(t, s), e);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

/// An empty instruction per AES state and GHASH sum that takes the value
/// in a register and gives it back. LLVM keeps such statements in order
/// and cannot move work across them, so the rounds and multiplications
/// stay interleaved as [`rounds_fold`] writes them (left to itself, the
/// scheduler grouped the multiplications away from the rounds: seal and
/// open at 16 KiB ran 5-12% slower, Sapphire Rapids-class Xeon). 32-bit x86 has 8
/// vector registers, too few to hold them all: there it does nothing.
#[inline]
#[target_feature(enable = "avx512f")]
fn pin<const N: usize>(b: &mut [__m512i; N], w: &mut zclm::Wide4) {
    #[cfg(target_arch = "x86_64")]
    {
        // One statement per value, unrolled: a loop over references to
        // the values would keep them in memory.
        for x in b.iter_mut() {
            let mut v = *x;
            // SAFETY: the instruction string is empty: nothing is read,
            // written or executed; the operand only says where `v` lives.
            unsafe {
                core::arch::asm!(
                    "/* {0} */",
                    inout(zmm_reg) v,
                    options(nomem, nostack, preserves_flags)
                )
            };
            *x = v;
        }
        let [lo, mid, hi] = w.regs_mut();
        let (mut l, mut m, mut h) = (*lo, *mid, *hi);
        // SAFETY: as above.
        unsafe {
            core::arch::asm!(
                "/* {0} {1} {2} */",
                inout(zmm_reg) l,
                inout(zmm_reg) m,
                inout(zmm_reg) h,
                options(nomem, nostack, preserves_flags)
            )
        };
        (*lo, *mid, *hi) = (l, m, h);
    }
    #[cfg(target_arch = "x86")]
    let _ = (b, w);
}

/// [`rounds`] on `b` with the GHASH of `pending` (the previous chunk's
/// ciphertext, `4 N` blocks) between them: one register's products after
/// each of rounds 1 to `N` (`N` < 10, so every key length has the rounds),
/// the reduction after the last round.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn rounds_fold<const K: bool, const N: usize>(
    t: Vaes512Token,
    keys: &[__m512i; 15],
    nr: usize,
    b: &mut [__m512i; N],
    hk: &ClmulKey,
    acc: __m128i,
    pending: &[__m512i; N],
) -> __m128i {
    const { assert!(1 <= N && N < 10) };
    let n = 4 * N;
    // SAFETY: the token proves VAES and AVX-512F.
    unsafe {
        for x in b.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, keys[1]);
        }
        let mut w = zclm::fold_begin::<K>(t, hk, acc, pending[0], n);
        pin(b, &mut w);
        for j in 1..N {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, keys[j + 1]);
            }
            zclm::fold_next::<K>(t, hk, &mut w, pending[j], j, n);
            pin(b, &mut w);
        }
        for k in &keys[N + 1..nr] {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *k);
            }
        }
        for x in b.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, keys[nr]);
        }
        zclm::fold_end::<K>(t, w)
    }
}

/// Registers of 4 blocks in the short step; the main loop takes twice as
/// many. Why 8 registers (32 blocks, one reduction) in the loop: each
/// register's AES is a chain of dependent rounds (`vaesenc` zmm latency ~4
/// cycles on Zen 5, where two issue per cycle), so 4 registers leave the
/// AES units waiting on latency. Measured on an AMD EPYC Zen 5, medians
/// of 301 paired rounds at 16 KiB: the 8-register loop sealed 1.34x
/// faster than the 4-register one (AES-128 and AES-256) and opened
/// 1.07-1.16x faster. On a Sapphire Rapids-class Xeon, whose 512-bit AES
/// issues on one port, the two measured the same.
const STEP: usize = 4;

/// The fused loop over whole chunks of `4 N` blocks while more than one
/// chunk remains (the tail takes 0..=`64 N` bytes, so a message of up to
/// one chunk never enters the loop); returns the counter, the accumulator,
/// the rest, and the last chunk's ciphertext, not yet hashed (the caller
/// hashes it beside the AES of what follows).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn bulk<'a, const OPEN: bool, const K: bool, const N: usize>(
    t: Vaes512Token,
    wk: &[__m512i; 15],
    nr: usize,
    hk: &ClmulKey,
    mut y: __m128i,
    mut c32: u32,
    mut a: __m128i,
    buf: &'a mut [u8],
) -> (__m128i, u32, __m128i, &'a mut [u8], Option<[__m512i; N]>) {
    let chunk_len = 64 * N;
    let body = buf.len().saturating_sub(1) / chunk_len * chunk_len;
    let (head, rest) = buf.split_at_mut(body);
    let mut chunks = head.chunks_exact_mut(chunk_len);
    // GHASH of the previous chunk's ciphertext (its output when sealing,
    // its input when opening) overlaps this chunk's AES.
    let mut last = None;
    if let Some(first) = chunks.next() {
        let mut b = counters::<N>(t, &mut y, &mut c32, wk[0]);
        rounds(t, wk, nr, &mut b);
        let mut pending = xor_store::<OPEN, N>(t, first, &b);
        for chunk in &mut chunks {
            let mut b = counters::<N>(t, &mut y, &mut c32, wk[0]);
            a = rounds_fold::<K, N>(t, wk, nr, &mut b, hk, a, &pending);
            pending = xor_store::<OPEN, N>(t, chunk, &b);
        }
        last = Some(pending);
    }
    (y, c32, a, rest, last)
}

/// [`zclm::absorb`] of AAD of [`zclm::STEP_BYTES`] (512) bytes or more,
/// with `K` products, out of line; [`crypt_k`] hashes shorter AAD (TLS's
/// 5 or 13 bytes, a QUIC header) inline with [`zclm::absorb_short`] and
/// schoolbook products.
///
/// Why: with the 32-block steps inline, their Karatsuba products (AMD's
/// form, see [`zclm::karatsuba`]) made every seal and open slower, even
/// with 13 bytes of AAD or none, when those steps never ran: LLVM
/// compiled the whole pass worse. Out of line, seal and open ran
/// 1.12-1.14x faster at 128 bytes and 1.04-1.06x at 1350, the same at
/// 16 KiB (AMD EPYC Zen 4; docs/aes-gcm-variants.md has the figures).
#[target_feature(enable = "vpclmulqdq,avx512f,avx512bw,avx512vl,pclmulqdq,avx2,ssse3,sse4.1")]
#[inline(never)]
unsafe fn absorb_long<const K: bool>(t: Vaes512Token, hk: &ClmulKey, aad: &[u8]) -> __m128i {
    zclm::absorb::<K>(t, hk, _mm_setzero_si128(), aad)
}

#[target_feature(
    enable = "vaes,vpclmulqdq,avx512f,avx512bw,avx512vl,avx2,aes,pclmulqdq,ssse3,sse4.1"
)]
unsafe fn crypt_k<const OPEN: bool, const K: bool, const NR: usize>(
    t: Vaes512Token,
    rk: &RoundKeys,
    hk: &ClmulKey,
    j0: u128,
    c32: u32,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    debug_assert_eq!(rk.rounds, NR);
    let keys = ni::load_keys(t, rk);
    let wk = wide_keys(t, &keys);
    let nr = NR;
    let a = if aad.len() < zclm::STEP_BYTES {
        zclm::absorb_short::<false>(t, hk, _mm_setzero_si128(), aad)
    } else {
        // SAFETY: the token proves every feature `absorb_long` enables.
        unsafe { absorb_long::<K>(t, hk, aad) }
    };
    let j0 = x86::j0_vec(t, j0);
    let y = x86::first_ctr(t, j0);
    let lengths = x86::lengths_vec(t, aad.len(), buf.len());
    let (y, c32, mut a, rest, last) = bulk::<OPEN, K, { 2 * STEP }>(t, &wk, nr, hk, y, c32, a, buf);
    if let Some(p) = last {
        a = zclm::fold::<K, { 2 * STEP }>(t, hk, a, &p, 8 * STEP);
    }
    let (y, c32, mut a, rem, last) = bulk::<OPEN, K, STEP>(t, &wk, nr, hk, y, c32, a, rest);
    // Sealing, the last chunk's GHASH waits for its AES, and the tail runs
    // it beside its own rounds. Opening hashes input it had all along,
    // and there the handover measured 0.97-0.99x: it is folded here.
    let p = match &last {
        Some(c) if OPEN => {
            a = zclm::fold::<K, STEP>(t, hk, a, c, 4 * STEP);
            None
        }
        other => other.as_ref(),
    };
    let k = rem.len().div_ceil(16);
    match k.div_ceil(4) {
        0 => tail::<OPEN, K, 0, 1>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        1 if k < 4 => tail::<OPEN, K, 1, 1>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        1 => tail::<OPEN, K, 1, 2>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        2 if k < 8 => tail::<OPEN, K, 2, 2>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        2 => tail::<OPEN, K, 2, 3>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        3 if k < 12 => tail::<OPEN, K, 3, 3>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        3 => tail::<OPEN, K, 3, 4>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
        _ => tail::<OPEN, K, 4, 4>(t, &wk, nr, hk, y, c32, a, p, j0, lengths, rem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes_gcm::GcmEngine;

    /// Both GHASH product forms (Karatsuba and schoolbook), whichever one
    /// this CPU's [`zclm::karatsuba`] picks, seal and open against the
    /// portable engine: every length through the short batch, the 256- and
    /// 512-byte steps and their boundaries, all three key sizes, AAD
    /// lengths that end inside and on block boundaries.
    #[test]
    fn both_product_forms_equal_portable() {
        extern crate std;
        use std::vec::Vec;
        let Some(t) = Vaes512Token::get() else {
            return;
        };
        let mut rng = crate::test_rng::xorshift(0x6C3A_9F01);
        let mut rand = move || rng() as u8;
        let data: Vec<u8> = (0..16384 + 600).map(|_| rand()).collect();
        let aad: Vec<u8> = (0..600).map(|_| rand()).collect();
        let mut lens: Vec<usize> = (0..=1100).collect();
        for base in [1536, 2048, 4096, 8192, 16384] {
            lens.extend([
                base - 257,
                base - 256,
                base - 1,
                base,
                base + 1,
                base + 255,
                base + 511,
            ]);
        }
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len).map(|_| rand()).collect();
            let want_engine =
                crate::aes_gcm::portable::Engine::new(&key, crate::ghash::Kernel::Portable);
            let keys = Keys::new(t, &key);
            let mut j0 = [0u8; 16];
            j0.iter_mut().for_each(|b| *b = rand());
            for (i, &n) in lens.iter().enumerate() {
                // Counter blocks that carry out of the low byte, and some that
                // wrap the 32-bit counter, on some lengths.
                j0[15] = (i * 37) as u8;
                j0[12..14].fill(if i % 7 == 0 { 0xff } else { 0 });
                let a = &aad[..(i * 13) % 600];
                let msg = &data[i % 64..i % 64 + n];
                let mut want = msg.to_vec();
                let j = u128::from_le_bytes(j0);
                let want_tag = want_engine.seal(j, a, &mut want);
                let mut open_want = msg.to_vec();
                let open_tag = want_engine.open(j, a, &mut open_want);
                for kara in [false, true] {
                    let mut got = msg.to_vec();
                    let tag = crypt_as::<false>(t, &keys, j, a, &mut got, kara);
                    assert!(
                        got == want && tag == want_tag,
                        "seal, key {key_len}, {n} bytes, AAD {}, Karatsuba {kara}",
                        a.len()
                    );
                    let mut got = msg.to_vec();
                    let tag = crypt_as::<true>(t, &keys, j, a, &mut got, kara);
                    assert!(
                        got == open_want && tag == open_tag,
                        "open, key {key_len}, {n} bytes, AAD {}, Karatsuba {kara}",
                        a.len()
                    );
                }
            }
        }
    }
}
