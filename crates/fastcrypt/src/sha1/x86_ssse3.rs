//! SHA-1 with the message schedule computed four words at a time in SSE
//! registers, feeding scalar rounds (SSSE3 for `pshufb` and `palignr`).
//!
//! The rounds are a serial chain through A; the schedule is not. So the
//! schedule is moved into vector registers and run *ahead* of the rounds:
//! while the scalar code does rounds `t..t+3`, the vector unit makes
//! `W[t+16..t+19] + K` and stores it in a small stack buffer, from which
//! each round takes its `W + K` with one memory operand. The vector work
//! hides under the latency of the scalar chain. During the last sixteen
//! rounds, which need no new schedule words, the vector unit loads and
//! byte-swaps the next block's first sixteen words instead, so one block's
//! rounds run straight into the next's. This is the design of Max
//! Locktyukhin, "Improving the Performance of the Secure Hash Algorithm
//! (SHA-1)", Intel, 2010, which OpenSSL's `sha1-x86_64` SSSE3 path also
//! follows.
//!
//! Words 16..31 use the FIPS 180-4 recurrence, whose fourth lane depends on
//! the first lane of the same vector (it needs `W[t-3]`, and `W[t+3-3]` is
//! `W[t]`); that lane is fixed up afterwards. From word 32 on, the
//! equivalent recurrence `W[t] = (W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32]) rol 2`
//! (from the same paper; it is the FIPS recurrence applied to itself) has
//! no dependency inside a vector.
//!
//! With collision detection (`compress_dc`, and `compress_dc_avx2` for the
//! AVX2 backend, the same loop VEX-encoded with BMI rotates) the loop also
//! stores each block's plain schedule words and runs the filter of the
//! previous block, a share after each group of four rounds, in the vector
//! units the scalar chain leaves idle. Here that is not free as it is
//! beside SHA-NI's latency-bound chain: these rounds keep the core near
//! its issue width, so every filter instruction costs. Measured on an AMD
//! EPYC Zen 3 (8 KiB, detection / plain of the same backend, medians of
//! paired runs): filtering ahead in a separate pass, 0.38x; fused, all 52
//! SSE2 steps, 0.53x; fused, with the 24-step prefix of
//! `dc::plan` and the rest for survivors only, 0.60x (AVX2 0.58x); with
//! the recompressions starting from the states the rounds saved, ~0.62x.
//! What is left is the filter's own instructions (~25%) and the blocks
//! it passes (~15%): these rounds leave no idle units to hide either in.
//! Since then the blocks it passes wait in a batch and are tested
//! several at once in vector lanes (`dc::x86_batch`): on an AMD EPYC
//! Zen 4 the AVX2 backend went from 0.81x to 0.84x of its plain kernel
//! at 8 KiB (BENCHMARKS.md).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use core::mem::MaybeUninit;

use super::dc::{
    after_block, step_from, x86_batch, x86_batch::Batch, x86_filter, DcConfig, Expanded,
    OnCollision, ScalarSteps, TestStates, Verdict,
};
use crate::cpu::{Avx2Token, Ssse3Token};

const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

/// Compresses every 64-byte block of `blocks` into `state`.
#[inline]
pub(super) fn compress(_token: Ssse3Token, state: &mut [u32; 5], blocks: &[u8]) {
    // SAFETY: the token proves SSE2 and SSSE3 are present, which is
    // everything `compress_ssse3` enables.
    unsafe { compress_ssse3(state, blocks) }
}

/// `W[t] + K[t]` for the 80 rounds of one block. Aligned so that each
/// four-word store stays within one cache line: on x86-64 to a whole line
/// (16 bytes gains nothing there and measured 0.89x on AMD EPYC Zen 3, in
/// alternating runs within noise of each other); on 32-bit x86
/// to 16 bytes only, which the stack already is, because asking for more
/// makes the function realign the stack through a frame pointer, and that
/// costs one of the seven general registers the rounds need (measured
/// together with `read_wk`'s change: 1.27x on i686).
#[cfg_attr(target_arch = "x86_64", repr(C, align(64)))]
#[cfg_attr(target_arch = "x86", repr(C, align(16)))]
struct Wk([u32; 80]);

/// One scalar round `$t` (a constant, so the choice of `f` folds away);
/// the caller rotates the variable names instead of the values.
macro_rules! round {
    ($wk:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        // `rol 5` of A is added last: everything else is ready earlier, so
        // the chain from one A to the next is just a rotate and an add. It
        // is written first so that LLVM emits it right after A is made:
        // the out-of-order core favours older instructions, and this one
        // is on the critical path.
        let a5 = $a.rotate_left(5);
        let f = if $t < 20 {
            $d ^ ($b & ($c ^ $d))
        } else if $t < 40 || $t >= 60 {
            $b ^ $c ^ $d
        } else {
            // Maj as (c & d) + (b & (c ^ d)): the terms share no bit, so
            // `+` equals `|`, and only the last one waits for B, the
            // newest input.
            ($c & $d).wrapping_add($b & ($c ^ $d))
        };
        // SAFETY: `$t < 80` and `$wk` points to the 80-word buffer.
        let wk = unsafe { read_wk($wk, $t) };
        $e = $e.wrapping_add(wk).wrapping_add(f).wrapping_add(a5);
        $b = $b.rotate_left(30);
    };
}

/// Word `t` of the `W + K` buffer at `rk`.
///
/// On x86-64 `rk` is an opaque copy of the buffer's address (see
/// `compress_ssse3`) and this is a plain load. On 32-bit x86 that pointer
/// would take one of the seven general registers the rounds need, so the
/// load is addressed from the stack pointer, and made volatile instead to
/// keep LLVM from forwarding the vector stores to it.
///
/// # Safety
///
/// `rk` points to at least `t + 1` initialised words.
#[inline(always)]
unsafe fn read_wk(rk: *const u32, t: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract.
    return unsafe { *rk.add(t) };
    #[cfg(target_arch = "x86")]
    // SAFETY: the caller's contract.
    return unsafe { rk.add(t).read_volatile() };
}

/// Rounds `$t..$t+3`, the names given in the roles of round `$t`.
macro_rules! quad {
    ($wk:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        round!($wk, $t, $a, $b, $c, $d, $e);
        round!($wk, $t + 1, $e, $a, $b, $c, $d);
        round!($wk, $t + 2, $d, $e, $a, $b, $c);
        round!($wk, $t + 3, $c, $d, $e, $a, $b);
    };
}

/// Rotates each 32-bit lane left by `$n`.
macro_rules! rol {
    ($x:expr, $n:literal) => {
        _mm_or_si128(_mm_slli_epi32::<$n>($x), _mm_srli_epi32::<{ 32 - $n }>($x))
    };
}

/// Stores `$w + $k` as the `W + K` of rounds `$t..$t+3`.
macro_rules! store_wk {
    ($wk:ident, $t:expr, $w:expr, $k:expr) => {
        // SAFETY: `$t` is a multiple of 4 below 80, so the 16 bytes written
        // lie inside the 320-byte buffer.
        unsafe { _mm_storeu_si128($wk.add($t).cast(), _mm_add_epi32($w, $k)) }
    };
}

/// Loads words `4 * $j .. 4 * $j + 3` of the block at `$p` into `$x`
/// (big-endian), and stores their `W + K`.
macro_rules! load_group {
    ($wk:ident, $p:expr, $j:literal, $x:ident, $bswap:ident, $k:ident) => {
        // SAFETY: `$p` points to a whole 64-byte block and `$j < 4`.
        $x = _mm_shuffle_epi8(unsafe { _mm_loadu_si128($p.add(16 * $j).cast()) }, $bswap);
        store_wk!($wk, 4 * $j, $x, $k);
    };
}

/// Words `$t..$t+3` for 16 <= `$t` < 32, from the FIPS recurrence
/// `W[t] = (W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) rol 1`. `$w16` holds
/// `W[t-16..t-13]` (and is then free, this group's output goes elsewhere),
/// `$w12`, `$w8`, `$w4` the next three groups.
macro_rules! sched_early {
    ($wk:ident, $t:expr, $out:ident, $w16:ident, $w12:ident, $w8:ident, $w4:ident, $k:ident) => {
        // W[t-3..t-1] and a zero where W[t] will go.
        let p = _mm_xor_si128(
            _mm_xor_si128($w16, _mm_alignr_epi8::<8>($w12, $w16)),
            _mm_xor_si128($w8, _mm_srli_si128::<4>($w4)),
        );
        // Lane 3 lacks W[t] = rol1(p0); rol1(p3 ^ rol1(p0)) is
        // rol1(p3) ^ rol2(p0), so add the second term from a shifted copy.
        let fix = _mm_slli_si128::<12>(p);
        $out = _mm_xor_si128(rol!(p, 1), rol!(fix, 2));
        store_wk!($wk, $t, $out, $k);
    };
}

/// Words `$t..$t+3` for `$t` >= 32 from
/// `W[t] = (W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32]) rol 2`; the result
/// replaces `$w32` (`W[t-32..t-29]`, needed no more).
macro_rules! sched_late {
    ($wk:ident, $t:expr, $w32:ident, $w28:ident, $w16:ident, $w8:ident, $w4:ident, $k:ident) => {
        let p = _mm_xor_si128(
            _mm_xor_si128(_mm_alignr_epi8::<8>($w4, $w8), $w16),
            _mm_xor_si128($w28, $w32),
        );
        $w32 = rol!(p, 2);
        store_wk!($wk, $t, $w32, $k);
    };
}

#[target_feature(enable = "sse2,ssse3")]
unsafe fn compress_ssse3(state: &mut [u32; 5], blocks: &[u8]) {
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    let base = blocks.as_ptr();
    // Swaps the bytes of each 32-bit lane: SHA-1 words are big-endian.
    let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    let k0 = _mm_set1_epi32(K[0] as i32);
    let k1 = _mm_set1_epi32(K[1] as i32);
    let k2 = _mm_set1_epi32(K[2] as i32);
    let k3 = _mm_set1_epi32(K[3] as i32);
    // Never read before written (each word is stored before its round),
    // so it needs no zeroing.
    let mut buf = MaybeUninit::<Wk>::uninit();
    // The vector code writes through `wk`, the rounds read through `rk`.
    // `black_box` hides that they are the same buffer: otherwise LLVM
    // forwards each 16-byte store to the four scalar loads as lane
    // extracts (`pshufd` + `movd`, spilled), and hoists the whole
    // schedule above the rounds, undoing both the buffer and the
    // interleaving. As it is, every load stays after the store that
    // precedes it in the source, which is the order we want.
    let wk: *mut u32 = buf.as_mut_ptr().cast();
    #[cfg(target_arch = "x86_64")]
    let rk: *const u32 = core::hint::black_box(wk);
    #[cfg(target_arch = "x86")]
    let rk: *const u32 = wk;

    // Group g (words 4g..4g+3) lives in x{g % 8}: groups from word 32 on
    // need the eight most recent groups.
    let (mut x0, mut x1, mut x2, mut x3);
    load_group!(wk, base, 0, x0, bswap, k0);
    load_group!(wk, base, 1, x1, bswap, k0);
    load_group!(wk, base, 2, x2, bswap, k0);
    load_group!(wk, base, 3, x3, bswap, k0);

    let [mut h0, mut h1, mut h2, mut h3, mut h4] = *state;
    for i in 0..n {
        // The last sixteen rounds load the next block's first words; in
        // the last block they reload this one, which stays in bounds and
        // keeps the loop free of a branch (OpenSSL's AVX2 path picks its
        // second block with a `cmov` the same way).
        let next_i = if i + 1 < n { i + 1 } else { i };
        // SAFETY: `next_i < n`, so the block starts inside `blocks`.
        let next = unsafe { base.add(64 * next_i) };
        let (mut x4, mut x5, mut x6, mut x7);
        let (mut a, mut b, mut c, mut d, mut e) = (h0, h1, h2, h3, h4);

        // Each line: four rounds, and the group of words sixteen rounds
        // ahead (or the next block's first words).
        quad!(rk, 0, a, b, c, d, e);
        sched_early!(wk, 16, x4, x0, x1, x2, x3, k0);
        quad!(rk, 4, b, c, d, e, a);
        sched_early!(wk, 20, x5, x1, x2, x3, x4, k1);
        quad!(rk, 8, c, d, e, a, b);
        sched_early!(wk, 24, x6, x2, x3, x4, x5, k1);
        quad!(rk, 12, d, e, a, b, c);
        sched_early!(wk, 28, x7, x3, x4, x5, x6, k1);
        quad!(rk, 16, e, a, b, c, d);
        sched_late!(wk, 32, x0, x1, x4, x6, x7, k1);
        quad!(rk, 20, a, b, c, d, e);
        sched_late!(wk, 36, x1, x2, x5, x7, x0, k1);
        quad!(rk, 24, b, c, d, e, a);
        sched_late!(wk, 40, x2, x3, x6, x0, x1, k2);
        quad!(rk, 28, c, d, e, a, b);
        sched_late!(wk, 44, x3, x4, x7, x1, x2, k2);
        quad!(rk, 32, d, e, a, b, c);
        sched_late!(wk, 48, x4, x5, x0, x2, x3, k2);
        quad!(rk, 36, e, a, b, c, d);
        sched_late!(wk, 52, x5, x6, x1, x3, x4, k2);
        quad!(rk, 40, a, b, c, d, e);
        sched_late!(wk, 56, x6, x7, x2, x4, x5, k2);
        quad!(rk, 44, b, c, d, e, a);
        sched_late!(wk, 60, x7, x0, x3, x5, x6, k3);
        quad!(rk, 48, c, d, e, a, b);
        sched_late!(wk, 64, x0, x1, x4, x6, x7, k3);
        quad!(rk, 52, d, e, a, b, c);
        sched_late!(wk, 68, x1, x2, x5, x7, x0, k3);
        quad!(rk, 56, e, a, b, c, d);
        sched_late!(wk, 72, x2, x3, x6, x0, x1, k3);
        quad!(rk, 60, a, b, c, d, e);
        sched_late!(wk, 76, x3, x4, x7, x1, x2, k3);
        quad!(rk, 64, b, c, d, e, a);
        load_group!(wk, next, 0, x0, bswap, k0);
        quad!(rk, 68, c, d, e, a, b);
        load_group!(wk, next, 1, x1, bswap, k0);
        quad!(rk, 72, d, e, a, b, c);
        load_group!(wk, next, 2, x2, bswap, k0);
        quad!(rk, 76, e, a, b, c, d);
        load_group!(wk, next, 3, x3, bswap, k0);

        h0 = h0.wrapping_add(a);
        h1 = h1.wrapping_add(b);
        h2 = h2.wrapping_add(c);
        h3 = h3.wrapping_add(d);
        h4 = h4.wrapping_add(e);
    }
    *state = [h0, h1, h2, h3, h4];
}

/// Stores the plain schedule words `$t..$t+3` (no `K`) in `$w`, for the
/// collision-detection filter and recompressions.
macro_rules! store_raw {
    ($w:ident, $t:expr, $x:expr) => {
        // SAFETY: `$t` is a multiple of 4 below 80 and `$w` points to an
        // 80-word schedule buffer.
        unsafe { _mm_storeu_si128($w.add($t).cast(), $x) }
    };
}

/// Steps `$q * $per .. ($q + 1) * $per` of the filter of the previous
/// block, whose schedule is at `$wp`.
macro_rules! filter_share {
    ($kill:ident, $kreg:ident, $wp:ident, $steps:ident, $per:ident, $q:literal, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        // SAFETY: the entry point enables what the filter needs; `$wp`
        // holds a whole schedule written during an earlier block.
        $kill = unsafe {
            x86_filter::$steps::<
                { x86_filter::cap($q * $per.div_ceil(20), $per) },
                { x86_filter::cap(($q + 1) * $per.div_ceil(20), $per) },
            >($kill, &*$wp)
        };
        // SAFETY: the asm emits no instruction; it only names registers.
        unsafe {
            core::arch::asm!(
                "/* {0:e} {1:e} {2:e} {3:e} {4:e} {5} */",
                inout(reg) $a, inout(reg) $b, inout(reg) $c, inout(reg) $d, inout(reg) $e,
                inout($kreg) $kill,
                options(nostack, preserves_flags)
            )
        };
    };
}

/// How many steps of each filter run on every block, a share beside each
/// of the 20 groups of four rounds.
const PREFIX_SSE2: usize = x86_filter::SSE2_PREFIX;
const PREFIX_AVX2: usize = x86_filter::AVX2_PREFIX;

/// What the first block's rounds filter: there is no block before.
static NOTHING: Expanded = [0; 80];

/// The exact scalar check of candidate block `$n` and the action on its
/// verdict: count a detection, and after a safe-hash rehash restart from
/// the next block (see `act_on_verdict`).
macro_rules! dc_check {
    ($n:expr, $ihv_in:expr, $ihv_out:expr, $w:expr, $mask:expr, $known:expr, $cfg:ident,
     $state:ident, $offset:ident, $blocks:ident, $on:ident, $found:ident, $again:ident) => {
        let mut out: [u32; 5] = $ihv_out;
        let verdict = after_block(
            $cfg,
            $offset + ($n * 64) as u64,
            $ihv_in,
            &mut out,
            $w,
            $mask,
            Some($known),
            &ScalarSteps,
            $on,
        );
        act_on_verdict!(
            verdict,
            $n,
            out,
            $found,
            $state,
            $offset,
            $blocks,
            $on,
            $again($cfg)
        );
    };
}

/// Acts on the filter verdict of block `$n`, whose chaining values were
/// `$ihv_in` and `$ihv_out`: a candidate joins `$batch`, after the
/// candidates held are tested if it does not fit beside them.
macro_rules! dc_verdict {
    ($n:expr, $mask:expr, $ihv_in:expr, $ihv_out:expr, $w:expr, $s56:expr, $s64:expr,
     $batch:ident, $hits:path, $cfg:ident, $state:ident, $offset:ident, $blocks:ident,
     $on:ident, $found:ident, $again:ident) => {
        let mask: u32 = $mask;
        if mask != 0 {
            let w: &Expanded = $w;
            // The states before the DVs' test steps, from the ones the
            // rounds passed through: a few steps instead of 58 or 65.
            let known = TestStates {
                s58: step_from(step_from($s56, 56, w), 57, w),
                s65: step_from($s64, 64, w),
            };
            if !$batch.fits(mask) {
                dc_flush!($batch, $hits, $cfg, $state, $offset, $blocks, $on, $found, $again);
            }
            if $batch.fits(mask) {
                // SAFETY: the entry point this expands in enables SSE2.
                unsafe { $batch.push($n, $ihv_in, $ihv_out, known, mask, w) };
            } else {
                // More vectors than lanes: this block alone, in order.
                dc_check!(
                    $n, $ihv_in, $ihv_out, w, mask, known, $cfg, $state, $offset, $blocks, $on,
                    $found, $again
                );
            }
        }
    };
}

/// Tests the candidates in `$batch` and acts on their verdicts in block
/// order. The lanes ([`x86_batch`]) tell which may match; only those run
/// the exact scalar check, as do all when the reduced-round test is on
/// (the lanes do the full test only) or when fewer than
/// [`x86_batch::MIN_LANES`] vectors are held. On a safe-hash rehash the
/// blocks after the rehashed one were compressed from a void chaining
/// value: restart from the new one. That redoes at most the blocks since
/// the batch's first candidate (some 160 of random data for eight lanes),
/// and only for attack data.
macro_rules! dc_flush {
    ($batch:ident, $hits:path, $cfg:ident, $state:ident, $offset:ident, $blocks:ident,
     $on:ident, $found:ident, $again:ident) => {
        if $batch.lanes() > 0 {
            let sel: u32 = if $batch.lanes() >= x86_batch::MIN_LANES && !$cfg.reduced_round {
                // SAFETY: the entry point this expands in enables what
                // the lanes use.
                unsafe { $hits(&$batch) }
            } else {
                !0
            };
            for (j, c) in $batch.held().iter().enumerate() {
                if sel >> j & 1 != 0 {
                    dc_check!(
                        c.block, c.ihv_in, c.ihv_out, &c.w, c.mask, c.known, $cfg, $state, $offset,
                        $blocks, $on, $found, $again
                    );
                }
            }
            $batch.clear();
        }
    };
}

/// The body of the `compress_dc_*` entry points: the plain kernel's loop,
/// which also stores each block's plain schedule, and runs the filter of
/// the previous block (`$steps`, `$per` steps per group of four rounds)
/// beside the scalar round chain, in vector units it leaves idle. `$finish`
/// turns the filter's accumulator into the candidate mask, `$mask` is the
/// whole-block filter (for the last block), `$again` the entry point itself.
macro_rules! dc_loop {
    ($cfg:ident, $state:ident, $offset:ident, $blocks:ident, $on:ident,
     $steps:ident, $per:ident, $zero:expr, $kreg:ident, $finish:ident, $mask:path,
     $lanes:literal, $hits:path, $again:ident) => {{
        let (cfg, state, offset, blocks, on_collision) = ($cfg, $state, $offset, $blocks, $on);
        let n = blocks.len() / 64;
        if n == 0 {
            return 0;
        }
        let base = blocks.as_ptr();
        let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        let k0 = _mm_set1_epi32(K[0] as i32);
        let k1 = _mm_set1_epi32(K[1] as i32);
        let k2 = _mm_set1_epi32(K[2] as i32);
        let k3 = _mm_set1_epi32(K[3] as i32);
        let mut buf = MaybeUninit::<Wk>::uninit();
        let wk: *mut u32 = buf.as_mut_ptr().cast();
        // As in `compress_ssse3`.
        #[cfg(target_arch = "x86_64")]
        let rk: *const u32 = core::hint::black_box(wk);
        #[cfg(target_arch = "x86")]
        let rk: *const u32 = wk;
        // Three plain schedules in turn: the block being compressed, the
        // one being filtered (kept whole for its verdict) and the next,
        // whose first words are loaded during this block's last rounds.
        // Not zeroed: each is read only after a block has written all of
        // it, and the first block filters `NOTHING`.
        let mut raw = [MaybeUninit::<Expanded>::uninit(); 3];
        let rb: *mut Expanded = raw.as_mut_ptr().cast();

        let (mut x0, mut x1, mut x2, mut x3);
        // SAFETY: index 0 is inside `raw`.
        let w0: *mut u32 = unsafe { rb.add(0).cast() };
        load_group!(wk, base, 0, x0, bswap, k0);
        load_group!(wk, base, 1, x1, bswap, k0);
        load_group!(wk, base, 2, x2, bswap, k0);
        load_group!(wk, base, 3, x3, bswap, k0);
        store_raw!(w0, 0, x0);
        store_raw!(w0, 4, x1);
        store_raw!(w0, 8, x2);
        store_raw!(w0, 12, x3);

        let mut found = 0;
        let mut batch = Batch::<$lanes>::new();
        let mut prev_in = [0u32; 5];
        // The working states before rounds 56 and 64 of the last block.
        let (mut prev_s56, mut prev_s64) = ([0u32; 5], [0u32; 5]);
        let [mut h0, mut h1, mut h2, mut h3, mut h4] = *state;
        for i in 0..n {
            let next_i = if i + 1 < n { i + 1 } else { i };
            // SAFETY: `next_i < n`, so the block starts inside `blocks`.
            let next = unsafe { base.add(64 * next_i) };
            // SAFETY: the indices are below 3, inside `raw`; before the
            // first block the filter reads `NOTHING`.
            let (wc, wn, wp): (*mut u32, *mut u32, *const Expanded) = unsafe {
                (
                    rb.add(i % 3).cast(),
                    rb.add((i + 1) % 3).cast(),
                    if i == 0 {
                        &NOTHING
                    } else {
                        rb.add((i + 2) % 3)
                    },
                )
            };
            let cur_in = [h0, h1, h2, h3, h4];
            let mut kill = $zero;
            let (mut x4, mut x5, mut x6, mut x7);
            let (mut a, mut b, mut c, mut d, mut e) = (h0, h1, h2, h3, h4);

            quad!(rk, 0, a, b, c, d, e);
            sched_early!(wk, 16, x4, x0, x1, x2, x3, k0);
            store_raw!(wc, 16, x4);
            filter_share!(kill, $kreg, wp, $steps, $per, 0, a, b, c, d, e);
            quad!(rk, 4, b, c, d, e, a);
            sched_early!(wk, 20, x5, x1, x2, x3, x4, k1);
            store_raw!(wc, 20, x5);
            filter_share!(kill, $kreg, wp, $steps, $per, 1, a, b, c, d, e);
            quad!(rk, 8, c, d, e, a, b);
            sched_early!(wk, 24, x6, x2, x3, x4, x5, k1);
            store_raw!(wc, 24, x6);
            filter_share!(kill, $kreg, wp, $steps, $per, 2, a, b, c, d, e);
            quad!(rk, 12, d, e, a, b, c);
            sched_early!(wk, 28, x7, x3, x4, x5, x6, k1);
            store_raw!(wc, 28, x7);
            filter_share!(kill, $kreg, wp, $steps, $per, 3, a, b, c, d, e);
            quad!(rk, 16, e, a, b, c, d);
            sched_late!(wk, 32, x0, x1, x4, x6, x7, k1);
            store_raw!(wc, 32, x0);
            filter_share!(kill, $kreg, wp, $steps, $per, 4, a, b, c, d, e);
            quad!(rk, 20, a, b, c, d, e);
            sched_late!(wk, 36, x1, x2, x5, x7, x0, k1);
            store_raw!(wc, 36, x1);
            filter_share!(kill, $kreg, wp, $steps, $per, 5, a, b, c, d, e);
            quad!(rk, 24, b, c, d, e, a);
            sched_late!(wk, 40, x2, x3, x6, x0, x1, k2);
            store_raw!(wc, 40, x2);
            filter_share!(kill, $kreg, wp, $steps, $per, 6, a, b, c, d, e);
            quad!(rk, 28, c, d, e, a, b);
            sched_late!(wk, 44, x3, x4, x7, x1, x2, k2);
            store_raw!(wc, 44, x3);
            filter_share!(kill, $kreg, wp, $steps, $per, 7, a, b, c, d, e);
            quad!(rk, 32, d, e, a, b, c);
            sched_late!(wk, 48, x4, x5, x0, x2, x3, k2);
            store_raw!(wc, 48, x4);
            filter_share!(kill, $kreg, wp, $steps, $per, 8, a, b, c, d, e);
            quad!(rk, 36, e, a, b, c, d);
            sched_late!(wk, 52, x5, x6, x1, x3, x4, k2);
            store_raw!(wc, 52, x5);
            filter_share!(kill, $kreg, wp, $steps, $per, 9, a, b, c, d, e);
            quad!(rk, 40, a, b, c, d, e);
            sched_late!(wk, 56, x6, x7, x2, x4, x5, k2);
            store_raw!(wc, 56, x6);
            filter_share!(kill, $kreg, wp, $steps, $per, 10, a, b, c, d, e);
            quad!(rk, 44, b, c, d, e, a);
            sched_late!(wk, 60, x7, x0, x3, x5, x6, k3);
            store_raw!(wc, 60, x7);
            filter_share!(kill, $kreg, wp, $steps, $per, 11, a, b, c, d, e);
            quad!(rk, 48, c, d, e, a, b);
            sched_late!(wk, 64, x0, x1, x4, x6, x7, k3);
            store_raw!(wc, 64, x0);
            filter_share!(kill, $kreg, wp, $steps, $per, 12, a, b, c, d, e);
            quad!(rk, 52, d, e, a, b, c);
            sched_late!(wk, 68, x1, x2, x5, x7, x0, k3);
            store_raw!(wc, 68, x1);
            filter_share!(kill, $kreg, wp, $steps, $per, 13, a, b, c, d, e);
            let cur_s56 = [e, a, b, c, d];
            quad!(rk, 56, e, a, b, c, d);
            sched_late!(wk, 72, x2, x3, x6, x0, x1, k3);
            store_raw!(wc, 72, x2);
            filter_share!(kill, $kreg, wp, $steps, $per, 14, a, b, c, d, e);
            quad!(rk, 60, a, b, c, d, e);
            sched_late!(wk, 76, x3, x4, x7, x1, x2, k3);
            store_raw!(wc, 76, x3);
            filter_share!(kill, $kreg, wp, $steps, $per, 15, a, b, c, d, e);
            let cur_s64 = [b, c, d, e, a];
            quad!(rk, 64, b, c, d, e, a);
            load_group!(wk, next, 0, x0, bswap, k0);
            store_raw!(wn, 0, x0);
            filter_share!(kill, $kreg, wp, $steps, $per, 16, a, b, c, d, e);
            quad!(rk, 68, c, d, e, a, b);
            load_group!(wk, next, 1, x1, bswap, k0);
            store_raw!(wn, 4, x1);
            filter_share!(kill, $kreg, wp, $steps, $per, 17, a, b, c, d, e);
            quad!(rk, 72, d, e, a, b, c);
            load_group!(wk, next, 2, x2, bswap, k0);
            store_raw!(wn, 8, x2);
            filter_share!(kill, $kreg, wp, $steps, $per, 18, a, b, c, d, e);
            quad!(rk, 76, e, a, b, c, d);
            load_group!(wk, next, 3, x3, bswap, k0);
            store_raw!(wn, 12, x3);
            filter_share!(kill, $kreg, wp, $steps, $per, 19, a, b, c, d, e);

            h0 = h0.wrapping_add(a);
            h1 = h1.wrapping_add(b);
            h2 = h2.wrapping_add(c);
            h3 = h3.wrapping_add(d);
            h4 = h4.wrapping_add(e);
            if i > 0 {
                // SAFETY: SSE2 is enabled; `wp` holds block i - 1's
                // schedule.
                let (mask, w) = unsafe { (x86_filter::$finish::<$per>(kill, &*wp), &*wp) };
                dc_verdict!(
                    i - 1,
                    mask,
                    prev_in,
                    cur_in,
                    w,
                    prev_s56,
                    prev_s64,
                    batch,
                    $hits,
                    cfg,
                    state,
                    offset,
                    blocks,
                    on_collision,
                    found,
                    $again
                );
            }
            prev_in = cur_in;
            prev_s56 = cur_s56;
            prev_s64 = cur_s64;
        }
        let out = [h0, h1, h2, h3, h4];
        *state = out;
        // SAFETY: block n - 1's schedule is whole in raw[(n - 1) % 3]; the
        // entry point enables what the filter needs.
        let (mask, w) = unsafe {
            let w = &*rb.add((n - 1) % 3);
            ($mask(w), w)
        };
        dc_verdict!(
            n - 1,
            mask,
            prev_in,
            out,
            w,
            prev_s56,
            prev_s64,
            batch,
            $hits,
            cfg,
            state,
            offset,
            blocks,
            on_collision,
            found,
            $again
        );
        dc_flush!(
            batch,
            $hits,
            cfg,
            state,
            offset,
            blocks,
            on_collision,
            found,
            $again
        );
        found
    }};
}

/// Compresses every block with collision detection fused in (see
/// [`dc_loop`]): the SSSE3 kernel with the SSE2 filter. Returns the
/// number of blocks found to be part of an attack.
pub(super) fn compress_dc(
    _token: Ssse3Token,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    // SAFETY: the token proves SSE2 and SSSE3, everything enabled there.
    unsafe { compress_dc_ssse3(cfg, state, offset, blocks, on_collision) }
}

#[target_feature(enable = "sse2,ssse3")]
unsafe fn compress_dc_ssse3(
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    dc_loop!(
        cfg,
        state,
        offset,
        blocks,
        on_collision,
        sse2_steps,
        PREFIX_SSE2,
        _mm_setzero_si128(),
        xmm_reg,
        sse2_finish,
        x86_filter::ubc_mask_sse2,
        4,
        x86_batch::hits_sse2,
        compress_dc_ssse3
    )
}

/// The fused loop of [`compress_dc`] for the AVX2 backend: VEX-encoded,
/// with BMI rotates in the rounds and the AVX2 filter.
pub(super) fn compress_dc_avx2(
    _token: Avx2Token,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    // SAFETY: the token proves AVX2, BMI1, BMI2 (and SSSE3) with OS ymm
    // support, everything enabled there.
    unsafe { compress_dc_avx2_inner(cfg, state, offset, blocks, on_collision) }
}

#[target_feature(enable = "sse2,ssse3,avx,avx2,bmi1,bmi2")]
unsafe fn compress_dc_avx2_inner(
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    dc_loop!(
        cfg,
        state,
        offset,
        blocks,
        on_collision,
        avx2_steps,
        PREFIX_AVX2,
        _mm256_setzero_si256(),
        ymm_reg,
        avx2_finish,
        x86_filter::ubc_mask_avx2,
        8,
        x86_batch::hits_avx2,
        compress_dc_avx2_inner
    )
}
