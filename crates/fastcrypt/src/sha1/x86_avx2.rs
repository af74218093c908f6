//! SHA-1 with the message schedule of two blocks computed at once in AVX2
//! registers (one block per 128-bit lane), feeding scalar rounds that use
//! the BMI1/BMI2 `andn` and `rorx`.
//!
//! As in the SSSE3 kernel (see `x86_ssse3.rs` and Locktyukhin, "Improving
//! the Performance of the Secure Hash Algorithm (SHA-1)", Intel, 2010) the
//! rounds take `W + K` from a stack buffer filled by vector code. Here a
//! `ymm` register holds four schedule words of block `i` in its low lane
//! and the same four words of block `i + 1` in its high lane: AVX2's
//! shifts, `vpalignr` and `vpshufb` all work per 128-bit lane, so the
//! SSSE3 schedule code runs unchanged on two blocks, halving its cost per
//! block. OpenSSL's `sha1-x86_64` AVX2 path pairs blocks the same way.
//!
//! While the rounds of a pair's first block run, the vector code computes
//! the rest of the pair's schedule sixteen rounds ahead of its first use
//! (as the SSSE3 kernel does for one block); while the second block's
//! rounds run, it loads the next pair's first sixteen words into a second
//! buffer, and the buffers swap roles. So a call needs nothing but four
//! loads before its first round, which keeps short messages cheap. (A
//! variant that computed the whole schedule of the next pair during the
//! current one, spread evenly over both blocks, made 64-byte messages pay
//! for a full schedule up front; its figures are in
//! `docs/sha1-variants.md`.)
//!
//! An odd block count reuses the last block for the missing high lane,
//! and the pair after the last loads the last pair again: every load stays
//! inside `blocks`, and the extra lanes are computed and never read.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use core::mem::MaybeUninit;

use crate::cpu::Avx2Token;

const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

/// Compresses every 64-byte block of `blocks` into `state`.
#[inline]
pub(super) fn compress(_token: Avx2Token, state: &mut [u32; 5], blocks: &[u8]) {
    // SAFETY: the token proves AVX, AVX2, BMI1 and BMI2 are present (and
    // YMM state is saved by the OS), which is everything `compress_avx2`
    // enables.
    unsafe { compress_avx2(state, blocks) }
}

/// `W + K` for the 80 rounds of two blocks: group `g` (words `4g..4g+3`)
/// takes 32 bytes, the first block's four words then the second's, exactly
/// as one `ymm` register holds them.
#[repr(C, align(64))]
struct Wk2([u32; 160]);

/// Where the `W + K` of round `t` of the block in lane `l` is in a
/// [`Wk2`] buffer, counted in words.
const fn wk_index(t: usize, l: usize) -> usize {
    8 * (t / 4) + 4 * l + t % 4
}

/// One scalar round `$t` of the block in lane `$l` (both constants, so the
/// choice of `f` and the buffer offset fold away); the caller rotates the
/// variable names instead of the values.
macro_rules! round {
    ($wk:ident, $l:expr, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        // `rol 5` of A is added last: everything else is ready earlier, so
        // the chain from one A to the next is one `rorx` and one add. It
        // is written first so that LLVM emits it right after A is made:
        // the out-of-order core favours older instructions, and this one
        // is on the critical path (measured: about 1% faster than last).
        let a5 = $a.rotate_left(5);
        // SAFETY: `$t < 80` and `$l < 2`, so the index is below 160, and
        // `$wk` points to a 160-word buffer.
        let wk = unsafe { *$wk.add(wk_index($t, $l)) };
        if $t < 20 {
            // Ch as (b & c) + (!b & d): the terms share no bit, and with
            // `andn` both are one instruction deep, so they can be added
            // to E one at a time (OpenSSL's AVX2 path also uses `andn`).
            $e = $e
                .wrapping_add(wk)
                .wrapping_add(!$b & $d)
                .wrapping_add($b & $c);
        } else if $t < 40 || $t >= 60 {
            $e = $e.wrapping_add(wk).wrapping_add($b ^ $c ^ $d);
        } else {
            // Maj as (c & d) + (b & (c ^ d)), again two disjoint terms;
            // only the last one waits for B, the newest input.
            $e = $e
                .wrapping_add(wk)
                .wrapping_add($c & $d)
                .wrapping_add($b & ($c ^ $d));
        }
        $e = $e.wrapping_add(a5);
        $b = $b.rotate_left(30);
    };
}

/// Rounds `$t..$t+3` of lane `$l`, the names given in the roles of round
/// `$t`.
macro_rules! quad {
    ($wk:ident, $l:expr, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        round!($wk, $l, $t, $a, $b, $c, $d, $e);
        round!($wk, $l, $t + 1, $e, $a, $b, $c, $d);
        round!($wk, $l, $t + 2, $d, $e, $a, $b, $c);
        round!($wk, $l, $t + 3, $c, $d, $e, $a, $b);
    };
}

/// Rotates each 32-bit lane left by `$n`.
macro_rules! rol {
    ($x:expr, $n:literal) => {
        _mm256_or_si256(
            _mm256_slli_epi32::<$n>($x),
            _mm256_srli_epi32::<{ 32 - $n }>($x),
        )
    };
}

/// Stores `$w + $k` as the `W + K` of group `$g` of both blocks.
macro_rules! store_wk {
    ($wk:ident, $g:expr, $w:expr, $k:expr) => {
        // SAFETY: `$g < 20`, so the 32 bytes written lie inside the
        // 640-byte buffer.
        unsafe { _mm256_storeu_si256($wk.add(8 * $g).cast(), _mm256_add_epi32($w, $k)) }
    };
}

/// Loads group `$j` (words `4j..4j+3`) of the blocks at `$pa` (low lane)
/// and `$pb` (high lane) into `$x`, big-endian, and stores their `W + K`.
macro_rules! load_group {
    ($wk:ident, $pa:ident, $pb:ident, $j:literal, $x:ident, $bswap:ident, $k:ident) => {
        // SAFETY: `$pa` and `$pb` each point to a whole 64-byte block and
        // `$j < 4`.
        let v = unsafe { _mm256_loadu2_m128i($pb.add(16 * $j).cast(), $pa.add(16 * $j).cast()) };
        $x = _mm256_shuffle_epi8(v, $bswap);
        store_wk!($wk, $j, $x, $k);
    };
}

/// Group `$g` (4 <= `$g` < 8) from the FIPS recurrence
/// `W[t] = (W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) rol 1`; see the SSSE3
/// kernel for the lane-3 fix-up.
macro_rules! sched_early {
    ($wk:ident, $g:expr, $out:ident, $w16:ident, $w12:ident, $w8:ident, $w4:ident, $k:ident) => {
        let p = _mm256_xor_si256(
            _mm256_xor_si256($w16, _mm256_alignr_epi8::<8>($w12, $w16)),
            _mm256_xor_si256($w8, _mm256_srli_si256::<4>($w4)),
        );
        let fix = _mm256_slli_si256::<12>(p);
        $out = _mm256_xor_si256(rol!(p, 1), rol!(fix, 2));
        store_wk!($wk, $g, $out, $k);
    };
}

/// Group `$g` >= 8 from `W[t] = (W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32]) rol 2`,
/// replacing `$w32`.
macro_rules! sched_late {
    ($wk:ident, $g:expr, $w32:ident, $w28:ident, $w16:ident, $w8:ident, $w4:ident, $k:ident) => {
        let p = _mm256_xor_si256(
            _mm256_xor_si256(_mm256_alignr_epi8::<8>($w4, $w8), $w16),
            _mm256_xor_si256($w28, $w32),
        );
        $w32 = rol!(p, 2);
        store_wk!($wk, $g, $w32, $k);
    };
}

#[target_feature(enable = "avx,avx2,bmi1,bmi2")]
unsafe fn compress_avx2(state: &mut [u32; 5], blocks: &[u8]) {
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    let base = blocks.as_ptr();
    // Block `j`, or the last block when `j` is past the end: the schedule
    // of a missing second block (odd count) or of the pair after the last
    // one is computed from a block we may read and then never used.
    let block = |j: usize| {
        // SAFETY: `j.min(n - 1) < n`, so the block starts inside `blocks`.
        unsafe { base.add(64 * j.min(n - 1)) }
    };
    // Swaps the bytes of each 32-bit lane: SHA-1 words are big-endian.
    let bswap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, //
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
    );
    let k0 = _mm256_set1_epi32(K[0] as i32);
    let k1 = _mm256_set1_epi32(K[1] as i32);
    let k2 = _mm256_set1_epi32(K[2] as i32);
    let k3 = _mm256_set1_epi32(K[3] as i32);
    // Two buffers: the rounds read one (`cur`) while the vector code
    // fills the other (`next`). Never read before written, so they need
    // no zeroing.
    let mut bufs = MaybeUninit::<[Wk2; 2]>::uninit();
    let mut cur: *mut u32 = bufs.as_mut_ptr().cast();
    // SAFETY: the allocation holds 2 * 160 words.
    let mut next = unsafe { cur.add(160) };

    // Group g lives in x{g % 8}: groups from word 32 on need the eight
    // most recent groups.
    let (mut x0, mut x1, mut x2, mut x3);
    {
        // Only the first sixteen words of the first pair are needed before
        // the rounds can start.
        let (pa, pb) = (block(0), block(1));
        load_group!(cur, pa, pb, 0, x0, bswap, k0);
        load_group!(cur, pa, pb, 1, x1, bswap, k0);
        load_group!(cur, pa, pb, 2, x2, bswap, k0);
        load_group!(cur, pa, pb, 3, x3, bswap, k0);
    }
    // The buffer pointers pass through `black_box` whenever their roles
    // change, so LLVM cannot tell which stores a round's load reads:
    // otherwise it may forward the 32-byte stores to the scalar loads as
    // lane extracts (it does so in the SSSE3 kernel, see there). Loads
    // and stores then keep their source order, which is the interleaving
    // we want. Only two pointers stay live, so the round state is not
    // spilled.
    (cur, next) = core::hint::black_box((cur, next));

    let [mut h0, mut h1, mut h2, mut h3, mut h4] = *state;
    let mut i = 0;
    loop {
        let (pa, pb) = (block(i + 2), block(i + 3));
        let (mut x4, mut x5, mut x6, mut x7);
        let (mut a, mut b, mut c, mut d, mut e) = (h0, h1, h2, h3, h4);

        // Block i (low lane). Alongside, the rest of this pair's schedule,
        // sixteen rounds ahead of its first use, as in the SSSE3 kernel.
        quad!(cur, 0, 0, a, b, c, d, e);
        sched_early!(cur, 4, x4, x0, x1, x2, x3, k0);
        quad!(cur, 0, 4, b, c, d, e, a);
        sched_early!(cur, 5, x5, x1, x2, x3, x4, k1);
        quad!(cur, 0, 8, c, d, e, a, b);
        sched_early!(cur, 6, x6, x2, x3, x4, x5, k1);
        quad!(cur, 0, 12, d, e, a, b, c);
        sched_early!(cur, 7, x7, x3, x4, x5, x6, k1);
        quad!(cur, 0, 16, e, a, b, c, d);
        sched_late!(cur, 8, x0, x1, x4, x6, x7, k1);
        quad!(cur, 0, 20, a, b, c, d, e);
        sched_late!(cur, 9, x1, x2, x5, x7, x0, k1);
        quad!(cur, 0, 24, b, c, d, e, a);
        sched_late!(cur, 10, x2, x3, x6, x0, x1, k2);
        quad!(cur, 0, 28, c, d, e, a, b);
        sched_late!(cur, 11, x3, x4, x7, x1, x2, k2);
        quad!(cur, 0, 32, d, e, a, b, c);
        sched_late!(cur, 12, x4, x5, x0, x2, x3, k2);
        quad!(cur, 0, 36, e, a, b, c, d);
        sched_late!(cur, 13, x5, x6, x1, x3, x4, k2);
        quad!(cur, 0, 40, a, b, c, d, e);
        sched_late!(cur, 14, x6, x7, x2, x4, x5, k2);
        quad!(cur, 0, 44, b, c, d, e, a);
        sched_late!(cur, 15, x7, x0, x3, x5, x6, k3);
        quad!(cur, 0, 48, c, d, e, a, b);
        sched_late!(cur, 16, x0, x1, x4, x6, x7, k3);
        quad!(cur, 0, 52, d, e, a, b, c);
        sched_late!(cur, 17, x1, x2, x5, x7, x0, k3);
        quad!(cur, 0, 56, e, a, b, c, d);
        sched_late!(cur, 18, x2, x3, x6, x0, x1, k3);
        quad!(cur, 0, 60, a, b, c, d, e);
        sched_late!(cur, 19, x3, x4, x7, x1, x2, k3);
        quad!(cur, 0, 64, b, c, d, e, a);
        quad!(cur, 0, 68, c, d, e, a, b);
        quad!(cur, 0, 72, d, e, a, b, c);
        quad!(cur, 0, 76, e, a, b, c, d);

        h0 = h0.wrapping_add(a);
        h1 = h1.wrapping_add(b);
        h2 = h2.wrapping_add(c);
        h3 = h3.wrapping_add(d);
        h4 = h4.wrapping_add(e);
        if i + 1 == n {
            break;
        }
        (a, b, c, d, e) = (h0, h1, h2, h3, h4);

        // Block i + 1 (high lane), whose schedule is all in the buffer.
        // Alongside, the next pair's first sixteen words go to the other
        // buffer.
        quad!(cur, 1, 0, a, b, c, d, e);
        load_group!(next, pa, pb, 0, x0, bswap, k0);
        quad!(cur, 1, 4, b, c, d, e, a);
        load_group!(next, pa, pb, 1, x1, bswap, k0);
        quad!(cur, 1, 8, c, d, e, a, b);
        load_group!(next, pa, pb, 2, x2, bswap, k0);
        quad!(cur, 1, 12, d, e, a, b, c);
        load_group!(next, pa, pb, 3, x3, bswap, k0);
        quad!(cur, 1, 16, e, a, b, c, d);
        quad!(cur, 1, 20, a, b, c, d, e);
        quad!(cur, 1, 24, b, c, d, e, a);
        quad!(cur, 1, 28, c, d, e, a, b);
        quad!(cur, 1, 32, d, e, a, b, c);
        quad!(cur, 1, 36, e, a, b, c, d);
        quad!(cur, 1, 40, a, b, c, d, e);
        quad!(cur, 1, 44, b, c, d, e, a);
        quad!(cur, 1, 48, c, d, e, a, b);
        quad!(cur, 1, 52, d, e, a, b, c);
        quad!(cur, 1, 56, e, a, b, c, d);
        quad!(cur, 1, 60, a, b, c, d, e);
        quad!(cur, 1, 64, b, c, d, e, a);
        quad!(cur, 1, 68, c, d, e, a, b);
        quad!(cur, 1, 72, d, e, a, b, c);
        quad!(cur, 1, 76, e, a, b, c, d);

        h0 = h0.wrapping_add(a);
        h1 = h1.wrapping_add(b);
        h2 = h2.wrapping_add(c);
        h3 = h3.wrapping_add(d);
        h4 = h4.wrapping_add(e);
        i += 2;
        if i == n {
            break;
        }
        (cur, next) = core::hint::black_box((next, cur));
    }
    *state = [h0, h1, h2, h3, h4];
}
