//! SHA-1 with the SHA extensions (Intel SHA-NI, AMD since Zen).
//!
//! Each `sha1rnds4` does four rounds; `sha1nexte` derives the next E from
//! the A of four rounds earlier and adds the next four schedule words;
//! `sha1msg1` / `pxor` / `sha1msg2` compute the schedule four words at a
//! time, issued three groups ahead so they overlap the round latency (Intel,
//! "New Instructions Supporting the Secure Hash Algorithm on Intel
//! Architecture Processors", 2013, section 3).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::dc::{
    after_block, dv_difference, step, step_from, unstep, x86_filter, DcConfig, Expanded, Forward,
    OnCollision, TestStates, Verdict,
};
use crate::cpu::{Avx2MulToken, Avx512Token, ShaNiToken};

/// Compresses every 64-byte block of `blocks` into `state`.
#[inline]
pub(super) fn compress(token: ShaNiToken, state: &mut [u32; 5], blocks: &[u8]) {
    // SAFETY: the token proves SHA, SSSE3 and SSE4.1 are present, which is
    // everything `compress_shani` enables.
    unsafe {
        if token.slow_msg2() {
            compress_shani::<true>(state, blocks)
        } else {
            compress_shani::<false>(state, blocks)
        }
    }
}

/// The block's 16 message words, big-endian, word 0 in the top lane of
/// the first vector.
///
/// # Safety
///
/// The CPU must have SSSE3; `block` must be 64 bytes long.
#[inline(always)]
unsafe fn load_block(block: &[u8], bswap: __m128i) -> [__m128i; 4] {
    debug_assert_eq!(block.len(), 64);
    let p = block.as_ptr();
    // SAFETY: each load reads 16 of the 64 bytes; the caller guarantees
    // SSSE3.
    unsafe {
        [
            _mm_shuffle_epi8(_mm_loadu_si128(p.cast()), bswap),
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(16).cast()), bswap),
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(32).cast()), bswap),
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(48).cast()), bswap),
        ]
    }
}

/// One group of four rounds (`I` = 0..=19, round function `F`) and the
/// schedule work that overlaps it. `e_in` holds the E input of this
/// group, `e_out` receives the saved ABCD that yields the next group's E.
/// `m` holds the last eight groups of schedule words, group `g` in slot
/// `g % 8`, word `4g` in lane 3.
///
/// With `ALU`, groups 8..=19 come from the recurrence
/// `W[t] = rol2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32])` (valid from
/// `t = 32`; Locktyukhin's SSSE3 SHA-1 uses it) in plain SSE2 instead of
/// `sha1msg1`/`sha1msg2`: see [`crate::cpu::ShaNiToken::slow_msg2`].
///
/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1, and the caller must enable
/// them (this inlines into it).
#[inline(always)]
unsafe fn group<const I: usize, const F: i32, const ALU: bool>(
    abcd: &mut __m128i,
    e_in: &mut __m128i,
    e_out: &mut __m128i,
    m: &mut [__m128i; 8],
) {
    // The last group `sha1msg1`/`sha1msg2` compute. (Groups 4..=7 with
    // SSE2 too, from the defining recurrence, cost more than their
    // `sha1msg2`s: W[t-3] makes each group wait for the one before, and
    // that chain was on the critical path, 0.95x of this form on the
    // Xeon of `slow_msg2`.)
    let msg_last = if ALU { 7 } else { 19 };
    // SAFETY: the caller enables SHA, SSSE3 and SSE4.1 (the contract).
    unsafe {
        *e_in = if I == 0 {
            _mm_add_epi32(*e_in, m[0])
        } else {
            _mm_sha1nexte_epu32(*e_in, m[I % 8])
        };
        *e_out = *abcd;
        // Finish the words of group I+1: W[t-3] term and the rotate.
        if I + 1 >= 4 && I < msg_last {
            m[(I + 1) % 8] = _mm_sha1msg2_epu32(m[(I + 1) % 8], m[I % 8]);
        }
        if ALU && I + 1 >= 8 && I < 19 {
            // Group g = I+1 from groups g-2 and g-1 (words t-6..t-3),
            // g-4, g-7 and g-8 (the slot it replaces).
            let w6 = _mm_alignr_epi8(m[(I + 7) % 8], m[I % 8], 8);
            let x = _mm_xor_si128(
                _mm_xor_si128(m[(I + 5) % 8], m[(I + 2) % 8]),
                m[(I + 1) % 8],
            );
            let x = _mm_xor_si128(x, w6);
            m[(I + 1) % 8] = _mm_or_si128(_mm_slli_epi32(x, 2), _mm_srli_epi32(x, 30));
        }
        *abcd = _mm_sha1rnds4_epu32(*abcd, *e_in, F);
        // Start group I+3 from groups I-1 and I: W[t-16] ^ W[t-14].
        if I + 3 >= 4 && I + 3 <= msg_last {
            m[(I + 3) % 8] = _mm_sha1msg1_epu32(m[(I + 7) % 8], m[I % 8]);
        }
        // Group I+2 gets its W[t-8] term.
        if I + 2 >= 4 && I + 2 <= msg_last {
            m[(I + 2) % 8] = _mm_xor_si128(m[(I + 2) % 8], m[I % 8]);
        }
    }
}

/// [`group`] `$i` with round function `$f` on one chain.
macro_rules! quad {
    ($i:literal, $abcd:ident, $e_in:ident, $e_out:ident, $m:ident, $f:literal, $alu:expr) => {
        // SAFETY: every caller enables SHA, SSSE3 and SSE4.1.
        unsafe { group::<$i, $f, { $alu }>(&mut $abcd, &mut $e_in, &mut $e_out, &mut $m) }
    };
}

/// The block's schedule slots for [`group`]: its 16 words, then room.
///
/// # Safety
///
/// The CPU must have SSSE3; `block` must be 64 bytes long.
#[inline(always)]
unsafe fn load_slots(block: &[u8], bswap: __m128i) -> [__m128i; 8] {
    // SAFETY: the caller's contract is load_block's (SSSE3 implies SSE2).
    unsafe {
        let m = load_block(block, bswap);
        let z = _mm_setzero_si128();
        [m[0], m[1], m[2], m[3], z, z, z, z]
    }
}

// The schedule macro updates slots that the last groups no longer read.
#[allow(unused_assignments)]
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_shani<const ALU: bool>(state: &mut [u32; 5], blocks: &[u8]) {
    // Reverses all 16 bytes: big-endian words, word 0 in the top lane.
    let bswap = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // SAFETY: `state` is 5 u32s, so its first 16 bytes are readable.
    let abcd0 = unsafe { _mm_loadu_si128(state.as_ptr().cast()) };
    // A in lane 3 .. D in lane 0, as sha1rnds4 expects.
    let mut abcd = _mm_shuffle_epi32(abcd0, 0x1B);
    let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);

    for block in blocks.chunks_exact(64) {
        let abcd_save = abcd;
        let e_save = e0;
        // SAFETY: SSSE3 is enabled; the block is 64 bytes.
        let mut m = unsafe { load_slots(block, bswap) };
        let mut e1 = _mm_setzero_si128();
        quad!(0, abcd, e0, e1, m, 0, ALU);
        quad!(1, abcd, e1, e0, m, 0, ALU);
        quad!(2, abcd, e0, e1, m, 0, ALU);
        quad!(3, abcd, e1, e0, m, 0, ALU);
        quad!(4, abcd, e0, e1, m, 0, ALU);
        quad!(5, abcd, e1, e0, m, 1, ALU);
        quad!(6, abcd, e0, e1, m, 1, ALU);
        quad!(7, abcd, e1, e0, m, 1, ALU);
        quad!(8, abcd, e0, e1, m, 1, ALU);
        quad!(9, abcd, e1, e0, m, 1, ALU);
        quad!(10, abcd, e0, e1, m, 2, ALU);
        quad!(11, abcd, e1, e0, m, 2, ALU);
        quad!(12, abcd, e0, e1, m, 2, ALU);
        quad!(13, abcd, e1, e0, m, 2, ALU);
        quad!(14, abcd, e0, e1, m, 2, ALU);
        quad!(15, abcd, e1, e0, m, 3, ALU);
        quad!(16, abcd, e0, e1, m, 3, ALU);
        quad!(17, abcd, e1, e0, m, 3, ALU);
        quad!(18, abcd, e0, e1, m, 3, ALU);
        quad!(19, abcd, e1, e0, m, 3, ALU);
        // E after round 79 comes from the A of round 76 (saved in e0).
        e0 = _mm_sha1nexte_epu32(e0, e_save);
        abcd = _mm_add_epi32(abcd, abcd_save);
        let _ = e1;
    }

    let out = _mm_shuffle_epi32(abcd, 0x1B);
    // SAFETY: `state` is 5 u32s, so its first 16 bytes are writable.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), out) };
    state[4] = _mm_extract_epi32(e0, 3) as u32;
}

/// Compresses every block with collision detection fused in. The kernel
/// stores the schedule words `sha1msg1`/`sha1msg2` compute anyway and
/// keeps the states around the DVs' test steps; the filter of each block
/// runs spread over the round groups of the next, where it fills issue
/// slots the latency-bound `sha1rnds4` chain leaves idle. Only blocks the
/// filter passes (about one in twenty of random data) leave the kernel,
/// for the recompressions, which run on `sha1rnds4` too
/// ([`ShaNiSteps`]). With AVX the same code is VEX-encoded (unaligned
/// memory operands fold into the filter's instructions). Returns the
/// number of blocks found to be part of an attack.
pub(crate) fn compress_dc(
    token: ShaNiToken,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    if token.slow_msg2() && Avx512Token::get().is_some() {
        // SAFETY: the tokens prove SHA, SSSE3, SSE4.1, AVX, AVX2 and
        // AVX-512 F/VL with OS opmask and ZMM state.
        return unsafe {
            compress_dc_evex::<true, PREFIX_SLOW_MSG2>(
                token,
                cfg,
                state,
                offset,
                blocks,
                on_collision,
            )
        };
    }
    match Avx2MulToken::get() {
        // SAFETY: the tokens prove SHA, SSSE3, SSE4.1 and AVX (with AVX2
        // and OS ymm support; no CPU has SHA-NI and AVX without AVX2, so
        // the AVX2 token costs no one the VEX form).
        Some(_) if token.slow_msg2() => unsafe {
            compress_dc_avx::<true, PREFIX_SLOW_MSG2>(
                token,
                cfg,
                state,
                offset,
                blocks,
                on_collision,
            )
        },
        // SAFETY: as above.
        Some(_) => unsafe {
            compress_dc_avx::<false, PREFIX>(token, cfg, state, offset, blocks, on_collision)
        },
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1 (and so SSE2).
        _ if token.slow_msg2() => unsafe {
            compress_dc_sse::<true, PREFIX_SLOW_MSG2>(
                token,
                cfg,
                state,
                offset,
                blocks,
                on_collision,
            )
        },
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1 (and so SSE2).
        _ => unsafe {
            compress_dc_sse::<false, PREFIX>(token, cfg, state, offset, blocks, on_collision)
        },
    }
}

/// Stores the finished schedule words of group `$i` (lane 3 holds the
/// first word) in natural order.
macro_rules! store_w {
    ($w:ident, $i:literal, $m:ident) => {
        // SAFETY: `$w` points to 80 words; group $i (0..=19) writes
        // 4i..4i+4.
        unsafe {
            _mm_storeu_si128(
                $w.cast::<u32>().add(4 * $i).cast(),
                _mm_shuffle_epi32($m[$i % 8], 0x1B),
            )
        };
    };
}

/// How many steps of the SSE2 filter run on every block, a share after
/// each of the 20 round groups (two steps at most after a group). Fewer
/// steps leave more blocks to the tail, whose branch the core
/// mispredicts on distinct data (35% of random blocks reach it after 16
/// steps, 5.7% after 36); more take issue slots from the round chain.
/// Chosen on an AMD EPYC Zen 4 over distinct messages; every prefix
/// measured is in docs/sha1-variants.md (2026-12-05).
const PREFIX: usize = 36;

/// [`PREFIX`] for the cores whose `sha1msg2` is slow (Intel, see
/// [`ShaNiToken::slow_msg2`]), where the SSE2 schedule already takes
/// vector issue slots. Measured on an Intel Xeon (Sapphire Rapids
/// class, 2026-12-02) over 8 MiB of random data hashed as distinct
/// 8 KiB and 1 MiB messages, detection / plain, medians of 21-41 paired
/// rounds: 16 steps 0.60x, 20 0.63-0.64x, 24 0.66-0.67x, 28 0.65-0.66x.
/// Again on 2026-12-05 (family 6, model 167; the speed lab's detection
/// and plain rows of one run, 8 KiB / 1 MiB, medians of 7 runs): 16
/// steps 0.67 / 0.68x, 20 0.72 / 0.73x, 24 0.75 / 0.77x, 28 0.76 /
/// 0.77x, 32 0.74 / 0.77x.
const PREFIX_SLOW_MSG2: usize = 24;

/// Group `$k` of a [`Check`] running beside the rounds (`none`: no check).
macro_rules! check_at {
    (none, $k:literal) => {};
    (($tt:literal, $c:ident), $k:literal) => {
        // SAFETY: the entry points enable SHA and SSE4.1.
        unsafe { $c.group::<$tt, $k>() }
    };
}

/// The 20 round groups of one block with their shares of the previous
/// block's filter (and, with `$chk`, of a check), saving the `sha1rnds4`
/// outputs around the test steps in `$g`.
macro_rules! dc_rounds {
    ($abcd:ident, $e0:ident, $e1:ident, $m:ident, $kill:ident, $wp:ident, $wc:ident, $g:ident,
     $steps:ident, $per:ident, $chk:tt) => {
        dc_quad!(0, $abcd, $e0, $e1, $m, 0, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(1, $abcd, $e1, $e0, $m, 0, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(2, $abcd, $e0, $e1, $m, 0, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(3, $abcd, $e1, $e0, $m, 0, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(4, $abcd, $e0, $e1, $m, 0, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(5, $abcd, $e1, $e0, $m, 1, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(6, $abcd, $e0, $e1, $m, 1, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(7, $abcd, $e1, $e0, $m, 1, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(8, $abcd, $e0, $e1, $m, 1, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(9, $abcd, $e1, $e0, $m, 1, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(10, $abcd, $e0, $e1, $m, 2, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(11, $abcd, $e1, $e0, $m, 2, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(12, $abcd, $e0, $e1, $m, 2, $kill, $wp, $wc, $steps, $per, $chk);
        $g[0] = $abcd;
        dc_quad!(13, $abcd, $e1, $e0, $m, 2, $kill, $wp, $wc, $steps, $per, $chk);
        $g[1] = $abcd;
        dc_quad!(14, $abcd, $e0, $e1, $m, 2, $kill, $wp, $wc, $steps, $per, $chk);
        $g[2] = $abcd;
        dc_quad!(15, $abcd, $e1, $e0, $m, 3, $kill, $wp, $wc, $steps, $per, $chk);
        $g[3] = $abcd;
        dc_quad!(16, $abcd, $e0, $e1, $m, 3, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(17, $abcd, $e1, $e0, $m, 3, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(18, $abcd, $e0, $e1, $m, 3, $kill, $wp, $wc, $steps, $per, $chk);
        dc_quad!(19, $abcd, $e1, $e0, $m, 3, $kill, $wp, $wc, $steps, $per, $chk);
    };
}

/// Round group `$i` of the current block, then its share of the previous
/// block's filter, then the store of its schedule words.
macro_rules! dc_quad {
    ($i:literal, $abcd:ident, $e_in:ident, $e_out:ident, $m:ident, $f:literal, $kill:ident, $wp:ident, $wc:ident, $steps:ident, $per:ident, $chk:tt) => {
        quad!($i, $abcd, $e_in, $e_out, $m, $f, ALU);
        check_at!($chk, $i);
        // SAFETY: the entry point enables what the filter needs; `$wp` is
        // the previous block's schedule.
        $kill = unsafe { x86_filter::$steps::<$per, $i>($kill, &*$wp) };
        store_w!($wc, $i, $m);
        // A scheduling fence: LLVM otherwise hoists every group's schedule
        // and filter work ahead of the whole round chain, and the core's
        // window is too small to overlap them again. The empty asm takes
        // the chain and the filter's accumulator through a register and
        // keeps memory accesses on its side, so each group stays next to
        // its share of the filter.
        // SAFETY: the asm emits no instruction; it only names registers.
        unsafe {
            core::arch::asm!(
                "/* {0} {1} */",
                inout(xmm_reg) $abcd,
                inout(xmm_reg) $kill,
                options(nostack, preserves_flags)
            )
        };
    };
}

/// The working state (A, B, C, D, E) before step `4k + 4` from the
/// `sha1rnds4` outputs after groups `k - 1` and `k` (E is the A of four
/// steps earlier, rotated).
#[inline(always)]
fn state_after_group(before: __m128i, after: __m128i) -> [u32; 5] {
    let mut s = [0u32; 5];
    // SAFETY: SSE2 and SSE4.1 are enabled in the only caller's context
    // (this is inlined into `compress_dc_shani`); `s` has room for 16
    // bytes.
    unsafe {
        _mm_storeu_si128(s.as_mut_ptr().cast(), _mm_shuffle_epi32(after, 0x1B));
        s[4] = (_mm_extract_epi32(before, 3) as u32).rotate_left(30);
    }
    s
}

/// The full-collision test of one candidate DV of a block, as a chain of
/// `sha1rnds4` groups that a kernel runs beside the rounds of a later
/// block (where the round chain leaves the SHA unit idle most cycles),
/// instead of stopping for it.
///
/// The test is [`check_block`](super::dc)'s forward form: from the state
/// `st` before the DV's test step `tt` (58 or 65), the other message `m2`
/// (`m1 ^ dm`) runs to step 80, giving `F2`; from `x = ihv_out - F2` it
/// runs steps `0..tt` and must arrive at `st`. Here the second part stops
/// at the group boundary before `tt` (56 or 64) and compares with `st`
/// stepped back there, so both parts are whole groups: 5 + 14 for 58,
/// 3 + 16 for 65, 19 either way. `hit` is the verdict once all 19 ran.
#[derive(Clone, Copy)]
struct Check {
    abcd: __m128i,
    /// The next group's E input (E + W in lane 3, W in the others).
    e: __m128i,
    m1: *const u32,
    dm: *const u32,
    out_abcd: __m128i,
    /// E of `ihv_out` in lane 3, zeros elsewhere.
    out_e: __m128i,
    want_abcd: __m128i,
    want_e: u32,
    hit: bool,
}

/// Groups of the `F2` part of a check from test step `TT`.
const fn f2_groups(tt: usize) -> usize {
    (80 - tt.next_multiple_of(4)) / 4
}

impl Check {
    /// Words `t..t + 4` of `m2`, word `t` in lane 3.
    ///
    /// # Safety
    ///
    /// SSE2; `t + 4 <= 80`.
    #[inline(always)]
    unsafe fn m2(&self, t: usize) -> __m128i {
        // SAFETY: `m1` and `dm` point to 80 words and t + 4 <= 80.
        unsafe {
            let x = _mm_xor_si128(
                _mm_loadu_si128(self.m1.add(t).cast()),
                _mm_loadu_si128(self.dm.add(t).cast()),
            );
            _mm_shuffle_epi32(x, 0x1B)
        }
    }

    /// The check of DV `d` for a block with message `m1`, state `st` before
    /// the DV's test step, and output chaining value `ihv_out`.
    ///
    /// # Safety
    ///
    /// SSE2 and SSE4.1; `m1` must outlive the check's groups.
    #[inline(always)]
    unsafe fn new(d: usize, m1: &Expanded, st: [u32; 5], ihv_out: [u32; 5]) -> Check {
        let (dm, tt) = dv_difference(d);
        let m2 = |t: usize| m1[t] ^ dm[t];
        let g0 = tt.next_multiple_of(4);
        let mut s = st;
        for t in tt..g0 {
            s = step(s, t, m2(t));
        }
        let mut want = st;
        for t in (g0 - 4..tt).rev() {
            want = unstep(want, t, m2(t));
        }
        // SAFETY: the caller guarantees SSE2.
        let mut c = unsafe {
            Check {
                abcd: _mm_set_epi32(s[0] as i32, s[1] as i32, s[2] as i32, s[3] as i32),
                e: _mm_setzero_si128(),
                m1: m1.as_ptr(),
                dm: dm.as_ptr(),
                out_abcd: _mm_set_epi32(
                    ihv_out[0] as i32,
                    ihv_out[1] as i32,
                    ihv_out[2] as i32,
                    ihv_out[3] as i32,
                ),
                out_e: _mm_set_epi32(ihv_out[4] as i32, 0, 0, 0),
                want_abcd: _mm_set_epi32(
                    want[0] as i32,
                    want[1] as i32,
                    want[2] as i32,
                    want[3] as i32,
                ),
                want_e: want[4],
                hit: false,
            }
        };
        // SAFETY: g0 + 4 <= 80; the caller guarantees SSE2.
        c.e = unsafe { _mm_add_epi32(_mm_set_epi32(s[4] as i32, 0, 0, 0), c.m2(g0)) };
        c
    }

    /// Group `K` (0..19) of the check of a DV whose test step is `TT`.
    ///
    /// # Safety
    ///
    /// SHA and SSE4.1.
    #[inline(always)]
    unsafe fn group<const TT: usize, const K: usize>(&mut self) {
        let nf = f2_groups(TT);
        if K >= 19 {
            return;
        }
        let t = if K < nf {
            80 - 4 * (nf - K)
        } else {
            4 * (K - nf)
        };
        let before = self.abcd;
        // SAFETY: the caller guarantees SHA and SSE4.1; every m2 index is
        // at most 76.
        unsafe {
            self.abcd = match t / 20 {
                0 => _mm_sha1rnds4_epu32(self.abcd, self.e, 0),
                1 => _mm_sha1rnds4_epu32(self.abcd, self.e, 1),
                2 => _mm_sha1rnds4_epu32(self.abcd, self.e, 2),
                _ => _mm_sha1rnds4_epu32(self.abcd, self.e, 3),
            };
            if K + 1 < nf || (K + 1 > nf && K < 18) {
                self.e = _mm_sha1nexte_epu32(before, self.m2(t + 4));
            } else if K + 1 == nf {
                // F2 is done: restart from x = ihv_out - F2 at step 0.
                let e80 = _mm_sha1nexte_epu32(before, _mm_setzero_si128());
                self.abcd = _mm_sub_epi32(self.out_abcd, self.abcd);
                self.e = _mm_add_epi32(_mm_sub_epi32(self.out_e, e80), self.m2(0));
            } else {
                let e = _mm_sha1nexte_epu32(before, _mm_setzero_si128());
                let eq = _mm_movemask_epi8(_mm_cmpeq_epi32(self.abcd, self.want_abcd));
                self.hit = eq == 0xFFFF && _mm_extract_epi32(e, 3) as u32 == self.want_e;
            }
        }
    }

    /// All 19 groups at once: the check on its own.
    ///
    /// # Safety
    ///
    /// SHA and SSE4.1.
    #[cfg(test)]
    #[inline(always)]
    unsafe fn run<const TT: usize>(&mut self) {
        macro_rules! all {
            ($($k:literal)*) => {
                // SAFETY: the caller's contract.
                $( unsafe { self.group::<TT, $k>() }; )*
            };
        }
        all!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18);
    }
}

/// The state before the test step `tt` of a block in flight, from the
/// saved round outputs and its message.
#[inline(always)]
fn test_state(fl: &InFlight, w: &Expanded, tt: usize) -> [u32; 5] {
    if tt == 58 {
        let s56 = state_after_group(fl.g[0], fl.g[1]);
        step_from(step_from(s56, 56, w), 57, w)
    } else {
        step_from(state_after_group(fl.g[2], fl.g[3]), 64, w)
    }
}

/// A block in flight's output chaining value.
#[inline(always)]
fn ihv_out(fl: &InFlight) -> [u32; 5] {
    // SAFETY: SSE2 and SSE4.1 are enabled wherever this is inlined (the
    // `compress_dc_*` entry points).
    unsafe {
        let mut out = state_after_group(_mm_setzero_si128(), fl.abcd_out);
        out[4] = _mm_extract_epi32(fl.e_out, 3) as u32;
        out
    }
}

/// What the first block's round groups hand the filter, which tests
/// nothing there ([`x86_filter::no_share`]): there is no block before.
static NOTHING: Expanded = [0; 80];

/// One block in flight: what the filter verdict needs to act on it.
#[derive(Clone, Copy)]
struct InFlight {
    abcd_in: __m128i,
    e_in: __m128i,
    abcd_out: __m128i,
    e_out: __m128i,
    /// `sha1rnds4` outputs after groups 12..=15 (states before 52..=64).
    g: [__m128i; 4],
}

/// Acts on the filter verdict of block `$n` (in flight as `$fl`, its
/// schedule at `$w`). On a safe-hash rehash the blocks after it were
/// compressed from a void chaining value: finish from the new one.
macro_rules! dc_verdict {
    ($n:expr, $fl:expr, $mask:expr, $w:expr, $token:ident, $cfg:ident, $state:ident, $offset:ident,
     $blocks:ident, $on:ident, $found:ident, $again:ident) => {
        let fl: InFlight = $fl;
        let mask: u32 = $mask;
        if mask != 0 {
            let w: &Expanded = $w;
            let mut ihv_in = state_after_group(_mm_setzero_si128(), fl.abcd_in);
            ihv_in[4] = _mm_extract_epi32(fl.e_in, 3) as u32;
            let mut out = state_after_group(_mm_setzero_si128(), fl.abcd_out);
            out[4] = _mm_extract_epi32(fl.e_out, 3) as u32;
            let s56 = state_after_group(fl.g[0], fl.g[1]);
            let s64 = state_after_group(fl.g[2], fl.g[3]);
            let known = TestStates {
                s58: step_from(step_from(s56, 56, w), 57, w),
                s65: step_from(s64, 64, w),
            };
            let off = $offset + ($n * 64) as u64;
            let steps = ShaNiSteps($token);
            let verdict = after_block(
                $cfg,
                off,
                ihv_in,
                &mut out,
                w,
                mask,
                Some(known),
                &steps,
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
                $again::<ALU, P>($token, $cfg)
            );
        }
    };
}

/// A candidate whose check runs beside the next block's rounds.
#[derive(Clone, Copy)]
struct Pending {
    /// Block index.
    n: usize,
    fl: InFlight,
    mask: u32,
    /// Its schedule (kept whole until the check is done).
    w: *const Expanded,
    /// The first candidate DV, the one the check tests.
    d: usize,
    check: Check,
}

/// One block through the 20 round groups, from the chaining value in
/// `$abcd`/`$e0` (both updated). `$rounds` runs the groups; it sees the
/// block's schedule slots as `$m`, the saved round outputs as `$g` and
/// the spare E register as `$e1`. Evaluates to the block in flight.
macro_rules! dc_block {
    ($block:ident, $bswap:ident, $abcd:ident, $e0:ident, |$m:ident, $g:ident, $e1:ident| $rounds:block) => {{
        let abcd_save = $abcd;
        let e_save = $e0;
        // SAFETY: SSSE3 is enabled; the block is 64 bytes.
        let mut $m = unsafe { load_slots($block, $bswap) };
        let mut $g = [_mm_setzero_si128(); 4];
        let mut $e1 = _mm_setzero_si128();
        $rounds
        $e0 = _mm_sha1nexte_epu32($e0, e_save);
        $abcd = _mm_add_epi32($abcd, abcd_save);
        let _ = $e1;
        InFlight {
            abcd_in: abcd_save,
            e_in: e_save,
            abcd_out: $abcd,
            e_out: $e0,
            g: $g,
        }
    }};
}

/// The body of the `compress_dc_*` entry points: `$steps`/`$finish`/
/// `$zero` are one filter's step, finish and empty accumulator, `$per` how
/// many of its steps run on every block, `$mask` its whole-block form,
/// `$again` the entry point itself (to restart after a rehash).
///
/// Block `n`'s rounds run the filter of block `n - 1`. When that leaves a
/// candidate, block `n + 1`'s rounds run the recompression test of its
/// first candidate DV as a second `sha1rnds4` chain ([`Check`]); only if
/// that test hits, or other DVs are left, or reduced-round detection is
/// on, does the loop stop for [`after_block`], which decides exactly as
/// the reference does (and reports, and applies the safe hash).
macro_rules! dc_shani_loop {
    ($token:ident, $cfg:ident, $state:ident, $offset:ident, $blocks:ident, $on:ident,
     $steps:ident, $finish:ident, $zero:expr, $per:ident, $mask:path, $again:ident) => {{
        let (cfg, state, offset, blocks, on_collision) = ($cfg, $state, $offset, $blocks, $on);
        let bswap = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
        // SAFETY: `state` is 5 u32s, so its first 16 bytes are readable.
        let abcd0 = unsafe { _mm_loadu_si128(state.as_ptr().cast()) };
        let mut abcd = _mm_shuffle_epi32(abcd0, 0x1B);
        let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
        // Three schedules: the block being compressed, the one being
        // filtered, and the one before, whose check may be running. Not
        // zeroed (960 bytes of stores per call would cost short messages
        // dearly): each is read only after a block has written all of it,
        // and the first block hands the filter `NOTHING`.
        let mut bufs = [core::mem::MaybeUninit::<Expanded>::uninit(); 3];
        let base = bufs.as_mut_ptr().cast::<Expanded>();
        let mut prev: Option<InFlight> = None;
        let mut pending: Option<Pending> = None;
        let mut found = 0;
        let n_blocks = blocks.len() / 64;

        let mut rest = blocks.chunks_exact(64).enumerate();
        // The first block: there is no block before it, so its rounds run
        // no filter. Peeled off the loop: as a fourth arm of the loop's
        // `match`, it made 8 KiB messages 7% slower (AMD EPYC Zen 4,
        // 2026-12-05), for 5-7% on one- and two-block messages.
        if let Some((_, block)) = rest.next() {
            // `NOTHING` is what the filter's shares are handed; they do not
            // read it.
            let (wc, wp) = (base, &NOTHING as *const Expanded);
            let mut kill = $zero;
            prev = Some(dc_block!(block, bswap, abcd, e0, |m, g, e1| {
                dc_rounds!(abcd, e0, e1, m, kill, wp, wc, g, no_share, $per, none);
            }));
            let _ = kill;
        }
        for (n, block) in rest {
            // SAFETY: the indices are below 3, inside `bufs`; the buffer of
            // block n - 1 (n >= 1 here) was written by it.
            let (wc, wp) = unsafe { (base.add(n % 3), base.add((n + 2) % 3).cast_const()) };
            let mut kill = $zero;
            let cur = dc_block!(block, bswap, abcd, e0, |m, g, e1| {
                match pending {
                    None => {
                        dc_rounds!(abcd, e0, e1, m, kill, wp, wc, g, $steps, $per, none);
                    }
                    Some(ref mut p) => {
                        let c = &mut p.check;
                        if dv_difference(p.d).1 == 58 {
                            dc_rounds!(abcd, e0, e1, m, kill, wp, wc, g, $steps, $per, (58, c));
                        } else {
                            dc_rounds!(abcd, e0, e1, m, kill, wp, wc, g, $steps, $per, (65, c));
                        }
                    }
                }
            });
            // The check of block n - 2 is done: stop only if it hit or
            // left DVs untested.
            if let Some(p) = pending.take() {
                if p.check.hit || p.mask & !(1 << p.d) != 0 {
                    // SAFETY: block p.n's schedule is whole until this
                    // block's end.
                    let w = unsafe { &*p.w };
                    dc_verdict!(
                        p.n,
                        p.fl,
                        p.mask,
                        w,
                        $token,
                        cfg,
                        state,
                        offset,
                        blocks,
                        on_collision,
                        found,
                        $again
                    );
                }
            }
            if let Some(fl) = prev {
                // SAFETY: SSE2 is enabled; `wp` holds block n - 1's schedule.
                let (mask, w) = unsafe { (x86_filter::$finish::<$per>(kill, &*wp), &*wp) };
                if mask != 0 {
                    if cfg.reduced_round || n + 1 == n_blocks {
                        dc_verdict!(
                            n - 1,
                            fl,
                            mask,
                            w,
                            $token,
                            cfg,
                            state,
                            offset,
                            blocks,
                            on_collision,
                            found,
                            $again
                        );
                    } else {
                        let d = mask.trailing_zeros() as usize;
                        let st = test_state(&fl, w, dv_difference(d).1);
                        pending = Some(Pending {
                            n: n - 1,
                            fl,
                            mask,
                            w: wp,
                            d,
                            // SAFETY: SSE2 and SSE4.1 are enabled; the
                            // schedule stays whole while the check runs.
                            check: unsafe { Check::new(d, w, st, ihv_out(&fl)) },
                        });
                    }
                }
            }
            prev = Some(cur);
        }
        if let Some(fl) = prev {
            let n = n_blocks - 1;
            // SAFETY: block n's schedule is in bufs[n % 3]; SSE2 is enabled.
            let w = unsafe { &*base.add(n % 3) };
            // SAFETY: SSE2 is enabled.
            let mask = unsafe { $mask(w) };
            dc_verdict!(
                n,
                fl,
                mask,
                w,
                $token,
                cfg,
                state,
                offset,
                blocks,
                on_collision,
                found,
                $again
            );
        }

        let out = _mm_shuffle_epi32(abcd, 0x1B);
        // SAFETY: `state` is 5 u32s, so its first 16 bytes are writable.
        unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), out) };
        state[4] = _mm_extract_epi32(e0, 3) as u32;
        found
    }};
}

#[allow(unused_assignments)]
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_dc_sse<const ALU: bool, const P: usize>(
    token: ShaNiToken,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    dc_shani_loop!(
        token,
        cfg,
        state,
        offset,
        blocks,
        on_collision,
        sse2_share,
        sse2_finish,
        _mm_setzero_si128(),
        P,
        x86_filter::ubc_mask_sse2,
        compress_dc_sse
    )
}

#[allow(unused_assignments)]
#[target_feature(enable = "sha,ssse3,sse4.1,avx")]
unsafe fn compress_dc_avx<const ALU: bool, const P: usize>(
    token: ShaNiToken,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    dc_shani_loop!(
        token,
        cfg,
        state,
        offset,
        blocks,
        on_collision,
        sse2_share,
        sse2_finish,
        _mm_setzero_si128(),
        P,
        x86_filter::ubc_mask_avx2,
        compress_dc_avx
    )
}

/// [`compress_dc_avx`] compiled for AVX-512VL, for the cores with a slow
/// `sha1msg2` (Intel), whose vector ports the SSE2 schedule and the
/// filter keep busy. EVEX forms on xmm do the work in fewer
/// instructions: `vpternlogd` for each filter step's xor-and and its
/// or-not-and, `vprold` for the schedule's rotate (the filter's
/// compare stays a vector, see [`x86_filter::sse2_share_vec`]). Measured
/// on an Intel Xeon (family 6, model 167, 2 vCPUs, 2026-12-03) over
/// 8 MiB of random data hashed as distinct 8 KiB and 1 MiB messages,
/// medians of 21-31 paired rounds in one process: 1.07-1.26x the VEX
/// form (the larger gains in the host's busy phases); with the compares
/// left on opmask registers, 0.97x of this form. Plain SHA-1 compiled
/// so gained nothing (0.99-1.01x: its round chain, not its ports,
/// bounds it).
///
/// It must write no ymm or zmm register: the SHA instructions have only
/// legacy-SSE forms, which pay for dirty upper halves. Built with the
/// AVX2 whole-block filter, which LLVM gave ymm16 (and `vzeroupper`
/// leaves ymm16-31 alone), the kernel ran 100 times slower on that
/// Xeon; a bare `sha1rnds4` chain ran 1.8x slower there after a write to
/// ymm16. Hence the SSE2 whole-block filter here
/// ([`x86_filter::ubc_mask_sse2_evex`], with a prefix of its own).
#[allow(unused_assignments)]
#[target_feature(enable = "sha,ssse3,sse4.1,avx,avx2,avx512f,avx512vl")]
unsafe fn compress_dc_evex<const ALU: bool, const P: usize>(
    token: ShaNiToken,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    dc_shani_loop!(
        token,
        cfg,
        state,
        offset,
        blocks,
        on_collision,
        sse2_share_vec,
        sse2_finish,
        _mm_setzero_si128(),
        P,
        x86_filter::ubc_mask_sse2_evex,
        compress_dc_evex
    )
}

/// SHA-1 steps with `sha1rnds4` for the recompressions: the aligned
/// groups of four in between a few scalar steps at either end.
pub(crate) struct ShaNiSteps(pub(crate) ShaNiToken);

impl Forward for ShaNiSteps {
    fn forward(&self, s: [u32; 5], w: &Expanded, from: usize, to: usize) -> [u32; 5] {
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1.
        unsafe { forward_shani(s, w, from, to) }
    }
}

#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn forward_shani(mut s: [u32; 5], w: &Expanded, from: usize, to: usize) -> [u32; 5] {
    let mut t = from;
    while !t.is_multiple_of(4) && t < to {
        s = step_from(s, t, w);
        t += 1;
    }
    if t + 4 <= to {
        let mut abcd = _mm_set_epi32(s[0] as i32, s[1] as i32, s[2] as i32, s[3] as i32);
        let mut e = _mm_set_epi32(
            s[4].wrapping_add(w[t]) as i32,
            w[t + 1] as i32,
            w[t + 2] as i32,
            w[t + 3] as i32,
        );
        let mut before;
        loop {
            before = abcd;
            abcd = match t / 20 {
                0 => _mm_sha1rnds4_epu32(abcd, e, 0),
                1 => _mm_sha1rnds4_epu32(abcd, e, 1),
                2 => _mm_sha1rnds4_epu32(abcd, e, 2),
                _ => _mm_sha1rnds4_epu32(abcd, e, 3),
            };
            t += 4;
            if t + 4 > to {
                break;
            }
            // SAFETY: t + 4 <= to <= 80, the length of `w`.
            let wv = unsafe { _mm_loadu_si128(w.as_ptr().add(t).cast()) };
            e = _mm_sha1nexte_epu32(before, _mm_shuffle_epi32(wv, 0x1B));
        }
        s = state_after_group(before, abcd);
    }
    while t < to {
        s = step_from(s, t, w);
        t += 1;
    }
    s
}

/// Runs `n` PBKDF2 iterations on each of `N` chains (see
/// `Kernel::pbkdf2_chains`), all in registers: the 20-byte message of each
/// HMAC is the previous digest, so a block's first five words are the
/// `sha1rnds4` state the last compression left, and the rest is constant
/// padding. The chains' round groups alternate, filling the latency of
/// one chain's `sha1rnds4` with the other's.
pub(crate) fn pbkdf2_chains<const N: usize>(
    token: ShaNiToken,
    inner_key: &[u32; 5],
    outer_key: &[u32; 5],
    u: &mut [[u32; 5]; N],
    t: &mut [[u32; 5]; N],
    n: u32,
) {
    // SAFETY: the token proves SHA, SSSE3 and SSE4.1, everything
    // `pbkdf2_shani` enables.
    unsafe {
        if token.slow_msg2() {
            pbkdf2_shani::<N, true>(inner_key, outer_key, u, t, n)
        } else {
            pbkdf2_shani::<N, false>(inner_key, outer_key, u, t, n)
        }
    }
}

/// The end of an HMAC (see `Kernel::hmac_finish`): the inner tail's
/// blocks, then the outer block built in registers from the inner digest.
pub(crate) fn hmac_finish(
    token: ShaNiToken,
    inner: &mut [u32; 5],
    tail: &[u8],
    outer_key: &[u32; 5],
) -> [u32; 5] {
    // SAFETY: the token proves SHA, SSSE3 and SSE4.1, everything
    // `hmac_finish_shani` enables.
    unsafe {
        if token.slow_msg2() {
            hmac_finish_shani::<true>(inner, tail, outer_key)
        } else {
            hmac_finish_shani::<false>(inner, tail, outer_key)
        }
    }
}

/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn hmac_finish_shani<const ALU: bool>(
    inner: &mut [u32; 5],
    tail: &[u8],
    outer_key: &[u32; 5],
) -> [u32; 5] {
    // SAFETY: the features `compress_shani` needs are enabled here.
    unsafe { compress_shani::<ALU>(inner, tail) };
    let (ha, he) = load_state(inner);
    let (oa, oe) = load_state(outer_key);
    // SAFETY: SHA, SSSE3 and SSE4.1 are enabled here.
    let (a, e) = unsafe { compress_digest_blocks::<1, ALU>([oa], [oe], [ha], [he]) };
    let mut out = [0u32; 5];
    store_state(a[0], e[0], &mut out);
    out
}

/// A state as `sha1rnds4` holds it: ABCD (A in lane 3) and E in lane 3.
/// (A safe function with target features: only code that has them, and
/// so proved them, can call it without `unsafe`.)
#[inline]
#[target_feature(enable = "sha,ssse3,sse4.1")]
fn load_state(s: &[u32; 5]) -> (__m128i, __m128i) {
    // SAFETY: `s` has 16 readable bytes; SSE2 is enabled here.
    let abcd = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
    (
        _mm_shuffle_epi32(abcd, 0x1B),
        _mm_set_epi32(s[4] as i32, 0, 0, 0),
    )
}

/// The inverse of [`load_state`].
#[inline]
#[target_feature(enable = "sha,ssse3,sse4.1")]
fn store_state(abcd: __m128i, e: __m128i, s: &mut [u32; 5]) {
    // SAFETY: `s` has 16 writable bytes; SSE2 is enabled here.
    unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), _mm_shuffle_epi32(abcd, 0x1B)) };
    s[4] = _mm_extract_epi32(e, 3) as u32;
}

/// [`group`] `$i` of the compressions of all chains.
macro_rules! quad_n {
    ($i:literal, $abcd:ident, $e_in:ident, $e_out:ident, $m:ident, $f:literal, $alu:expr) => {
        // (Expands inside the callers' `unsafe` blocks, which enable SHA,
        // SSSE3 and SSE4.1.)
        for c in 0..$abcd.len() {
            group::<$i, $f, { $alu }>(&mut $abcd[c], &mut $e_in[c], &mut $e_out[c], &mut $m[c])
        }
    };
}

/// One compression per chain, chain `c` from the chaining value
/// `abcd0[c]`/`e0[c]`, of the blocks whose first five words are
/// `w_abcd`/`w_e` (as [`load_state`] lays them out) and whose rest is the
/// padding of a 20-byte message after one key block.
///
/// Always inlined: as a call (LLVM declined to inline the two-chain
/// instance) the chains' states went through memory between the inner and
/// the outer compression, which put two store-to-load forwards on the
/// critical path of every iteration. Inlined, a 32-byte PBKDF2 key (two
/// chains, 4096 iterations) took 312 µs instead of 333 on an AMD EPYC
/// Zen 4, 2.50x RustCrypto's time instead of 2.31x (paired runs); that is
/// within about 6% of what the SHA unit issues with three or more chains
/// in flight. A `#[target_feature]` function cannot be
/// `#[inline(always)]`, hence the `unsafe fn` without features.
///
/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1, and the caller must enable
/// them (this inlines into it).
#[inline(always)]
#[allow(unused_assignments)]
unsafe fn compress_digest_blocks<const N: usize, const ALU: bool>(
    abcd0: [__m128i; N],
    e0: [__m128i; N],
    w_abcd: [__m128i; N],
    w_e: [__m128i; N],
) -> ([__m128i; N], [__m128i; N]) {
    // SAFETY: the caller enables SHA, SSSE3 and SSE4.1 (the contract).
    unsafe {
        // Words 5 and 15: the 0x80 byte after the message, and its length
        // in bits (672).
        let pad5 = _mm_set_epi32(0, 0x8000_0000_u32 as i32, 0, 0);
        let len15 = _mm_set_epi32(0, 0, 0, super::hmac::DIGEST_BLOCK_LEN_BITS as i32);
        let zero = _mm_setzero_si128();
        let mut m: [[__m128i; 8]; N] = core::array::from_fn(|c| {
            let w4 = _mm_or_si128(w_e[c], pad5);
            [w_abcd[c], w4, zero, len15, zero, zero, zero, zero]
        });
        let mut abcd = abcd0;
        let mut ea = e0;
        let mut eb = [zero; N];
        quad_n!(0, abcd, ea, eb, m, 0, ALU);
        quad_n!(1, abcd, eb, ea, m, 0, ALU);
        quad_n!(2, abcd, ea, eb, m, 0, ALU);
        quad_n!(3, abcd, eb, ea, m, 0, ALU);
        quad_n!(4, abcd, ea, eb, m, 0, ALU);
        quad_n!(5, abcd, eb, ea, m, 1, ALU);
        quad_n!(6, abcd, ea, eb, m, 1, ALU);
        quad_n!(7, abcd, eb, ea, m, 1, ALU);
        quad_n!(8, abcd, ea, eb, m, 1, ALU);
        quad_n!(9, abcd, eb, ea, m, 1, ALU);
        quad_n!(10, abcd, ea, eb, m, 2, ALU);
        quad_n!(11, abcd, eb, ea, m, 2, ALU);
        quad_n!(12, abcd, ea, eb, m, 2, ALU);
        quad_n!(13, abcd, eb, ea, m, 2, ALU);
        quad_n!(14, abcd, ea, eb, m, 2, ALU);
        quad_n!(15, abcd, eb, ea, m, 3, ALU);
        quad_n!(16, abcd, ea, eb, m, 3, ALU);
        quad_n!(17, abcd, eb, ea, m, 3, ALU);
        quad_n!(18, abcd, ea, eb, m, 3, ALU);
        quad_n!(19, abcd, eb, ea, m, 3, ALU);
        // E after round 79 comes from the A of round 76 (saved in `ea`);
        // `e0` has zeros in lanes 0-2, so the result does too.
        let e = core::array::from_fn(|c| _mm_sha1nexte_epu32(ea[c], e0[c]));
        let abcd = core::array::from_fn(|c| _mm_add_epi32(abcd[c], abcd0[c]));
        (abcd, e)
    }
}

/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn pbkdf2_shani<const N: usize, const ALU: bool>(
    inner_key: &[u32; 5],
    outer_key: &[u32; 5],
    u: &mut [[u32; 5]; N],
    t: &mut [[u32; 5]; N],
    n: u32,
) {
    let (ia, ie) = load_state(inner_key);
    let (oa, oe) = load_state(outer_key);
    let mut ua = [_mm_setzero_si128(); N];
    let mut ue = ua;
    let mut ta = ua;
    let mut te = ua;
    for c in 0..N {
        (ua[c], ue[c]) = load_state(&u[c]);
        (ta[c], te[c]) = load_state(&t[c]);
    }
    for _ in 0..n {
        // SAFETY: SHA, SSSE3 and SSE4.1 are enabled here.
        unsafe {
            let (ha, he) = compress_digest_blocks::<N, ALU>([ia; N], [ie; N], ua, ue);
            (ua, ue) = compress_digest_blocks::<N, ALU>([oa; N], [oe; N], ha, he);
        }
        for c in 0..N {
            ta[c] = _mm_xor_si128(ta[c], ua[c]);
            te[c] = _mm_xor_si128(te[c], ue[c]);
        }
    }
    for c in 0..N {
        store_state(ua[c], ue[c], &mut u[c]);
        store_state(ta[c], te[c], &mut t[c]);
    }
}

/// Multi-buffer SHA-1 (see `sha1::many`): `N` messages' chains of
/// `sha1rnds4` interleaved group by group, so that each chain's latency
/// (about 6 cycles per `sha1rnds4`, which issues every 2) is filled with
/// the others' rounds.
impl<const N: usize> super::many::Lanes<N> for ShaNiToken {
    #[inline]
    fn compress(self, state: &mut [[u32; N]; 5], data: &[&[u8]; N], blocks: usize) {
        assert!(data.iter().all(|d| d.len() >= blocks * 64));
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1, everything
        // `compress_lanes` enables; every lane has `blocks` whole blocks
        // (checked above).
        unsafe {
            if self.slow_msg2() {
                compress_lanes::<N, true>(state, data, blocks)
            } else {
                compress_lanes::<N, false>(state, data, blocks)
            }
        }
    }
}

/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1, and every `data[c]` must hold
/// `blocks * 64` bytes.
#[target_feature(enable = "sha,ssse3,sse4.1")]
#[allow(unused_assignments)]
unsafe fn compress_lanes<const N: usize, const ALU: bool>(
    state: &mut [[u32; N]; 5],
    data: &[&[u8]; N],
    blocks: usize,
) {
    let bswap = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    let s = |w: usize, c: usize| state[w][c] as i32;
    // A in lane 3 .. D in lane 0, E in lane 3, as sha1rnds4 expects.
    let mut abcd: [__m128i; N] =
        core::array::from_fn(|c| _mm_set_epi32(s(0, c), s(1, c), s(2, c), s(3, c)));
    let mut ea: [__m128i; N] = core::array::from_fn(|c| _mm_set_epi32(s(4, c), 0, 0, 0));
    let mut eb = [_mm_setzero_si128(); N];
    for blk in 0..blocks {
        let abcd_save = abcd;
        let e_save = ea;
        let mut m: [[__m128i; 8]; N] = core::array::from_fn(|c| {
            // SAFETY: `data[c]` holds `blocks` blocks (the caller's
            // contract); SSSE3 is enabled.
            unsafe { load_slots(&data[c][blk * 64..blk * 64 + 64], bswap) }
        });
        // SAFETY: SHA, SSSE3 and SSE4.1 are enabled here.
        unsafe {
            quad_n!(0, abcd, ea, eb, m, 0, ALU);
            quad_n!(1, abcd, eb, ea, m, 0, ALU);
            quad_n!(2, abcd, ea, eb, m, 0, ALU);
            quad_n!(3, abcd, eb, ea, m, 0, ALU);
            quad_n!(4, abcd, ea, eb, m, 0, ALU);
            quad_n!(5, abcd, eb, ea, m, 1, ALU);
            quad_n!(6, abcd, ea, eb, m, 1, ALU);
            quad_n!(7, abcd, eb, ea, m, 1, ALU);
            quad_n!(8, abcd, ea, eb, m, 1, ALU);
            quad_n!(9, abcd, eb, ea, m, 1, ALU);
            quad_n!(10, abcd, ea, eb, m, 2, ALU);
            quad_n!(11, abcd, eb, ea, m, 2, ALU);
            quad_n!(12, abcd, ea, eb, m, 2, ALU);
            quad_n!(13, abcd, eb, ea, m, 2, ALU);
            quad_n!(14, abcd, ea, eb, m, 2, ALU);
            quad_n!(15, abcd, eb, ea, m, 3, ALU);
            quad_n!(16, abcd, ea, eb, m, 3, ALU);
            quad_n!(17, abcd, eb, ea, m, 3, ALU);
            quad_n!(18, abcd, ea, eb, m, 3, ALU);
            quad_n!(19, abcd, eb, ea, m, 3, ALU);
        }
        for c in 0..N {
            // E after round 79 comes from the A of round 76 (in `ea`).
            ea[c] = _mm_sha1nexte_epu32(ea[c], e_save[c]);
            abcd[c] = _mm_add_epi32(abcd[c], abcd_save[c]);
        }
    }
    for c in 0..N {
        state[0][c] = _mm_extract_epi32(abcd[c], 3) as u32;
        state[1][c] = _mm_extract_epi32(abcd[c], 2) as u32;
        state[2][c] = _mm_extract_epi32(abcd[c], 1) as u32;
        state[3][c] = _mm_extract_epi32(abcd[c], 0) as u32;
        state[4][c] = _mm_extract_epi32(ea[c], 3) as u32;
    }
}

/// Batch PBKDF2 (`sha1::many`): `N` chains of different passwords,
/// interleaved as in [`pbkdf2_shani`], each from its own keyed states.
impl<const N: usize> super::many::pbkdf2::Pbkdf2Lanes<N> for ShaNiToken {
    #[inline]
    fn iterate(self, chains: &mut super::many::pbkdf2::Pbkdf2Chains<N>, n: u32) {
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1, everything
        // `pbkdf2_keyed_shani` enables.
        unsafe {
            if self.slow_msg2() {
                pbkdf2_keyed_shani::<N, true>(chains, n)
            } else {
                pbkdf2_keyed_shani::<N, false>(chains, n)
            }
        }
    }
}

/// # Safety
///
/// The CPU must have SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn pbkdf2_keyed_shani<const N: usize, const ALU: bool>(
    chains: &mut super::many::pbkdf2::Pbkdf2Chains<N>,
    n: u32,
) {
    // Chain `c` of words-in-lanes arrays as `sha1rnds4` holds a state:
    // A in lane 3 .. D in lane 0, E in lane 3.
    let abcd = |s: &[[u32; N]; 5], c: usize| {
        _mm_set_epi32(
            s[0][c] as i32,
            s[1][c] as i32,
            s[2][c] as i32,
            s[3][c] as i32,
        )
    };
    let e = |s: &[[u32; N]; 5], c: usize| _mm_set_epi32(s[4][c] as i32, 0, 0, 0);
    let ia: [__m128i; N] = core::array::from_fn(|c| abcd(&chains.inner, c));
    let ie: [__m128i; N] = core::array::from_fn(|c| e(&chains.inner, c));
    let oa: [__m128i; N] = core::array::from_fn(|c| abcd(&chains.outer, c));
    let oe: [__m128i; N] = core::array::from_fn(|c| e(&chains.outer, c));
    let mut ua: [__m128i; N] = core::array::from_fn(|c| abcd(&chains.u, c));
    let mut ue: [__m128i; N] = core::array::from_fn(|c| e(&chains.u, c));
    let mut ta: [__m128i; N] = core::array::from_fn(|c| abcd(&chains.t, c));
    let mut te: [__m128i; N] = core::array::from_fn(|c| e(&chains.t, c));
    for _ in 0..n {
        // SAFETY: SHA, SSSE3 and SSE4.1 are enabled here.
        unsafe {
            let (ha, he) = compress_digest_blocks::<N, ALU>(ia, ie, ua, ue);
            (ua, ue) = compress_digest_blocks::<N, ALU>(oa, oe, ha, he);
        }
        for c in 0..N {
            ta[c] = _mm_xor_si128(ta[c], ua[c]);
            te[c] = _mm_xor_si128(te[c], ue[c]);
        }
    }
    let put = |s: &mut [[u32; N]; 5], c: usize, a: __m128i, e: __m128i| {
        s[0][c] = _mm_extract_epi32(a, 3) as u32;
        s[1][c] = _mm_extract_epi32(a, 2) as u32;
        s[2][c] = _mm_extract_epi32(a, 1) as u32;
        s[3][c] = _mm_extract_epi32(a, 0) as u32;
        s[4][c] = _mm_extract_epi32(e, 3) as u32;
    };
    for c in 0..N {
        put(&mut chains.u, c, ua[c], ue[c]);
        put(&mut chains.t, c, ta[c], te[c]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::dc::{expand, ScalarSteps};
    use super::*;

    /// Both entry points (SSE and VEX forms, each with both schedules and
    /// both filter prefixes) against the generic path on attack files and
    /// random data: chaining value, count, and every callback.
    #[test]
    fn both_forms_equal_the_generic_path() {
        extern crate std;
        use super::super::dc::Collision;
        use super::super::Kernel;
        use std::vec::Vec;
        let Some(token) = ShaNiToken::get() else {
            return;
        };
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sha1dc/");
        let mut inputs: Vec<Vec<u8>> = [
            "sha-mbles-1.bin",
            "sha1_reducedsha_coll.bin",
            "shattered-2.pdf",
        ]
        .iter()
        .map(|f| std::fs::read(std::format!("{dir}{f}")).expect("testdata"))
        .collect();
        let mut rand = crate::test_rng::xorshift(0x5EED);
        inputs.push((0..64 * 3000).map(|_| rand() as u8).collect());
        for data in &inputs {
            let whole = &data[..data.len() / 64 * 64];
            for cfg in [
                DcConfig::default(),
                DcConfig {
                    reduced_round: true,
                    ..DcConfig::default()
                },
                DcConfig {
                    safe_hash: false,
                    ..DcConfig::default()
                },
            ] {
                let run = |f: &dyn Fn(&mut [u32; 5], OnCollision<'_>) -> u64| {
                    let mut st = super::super::IV;
                    let mut seen: Vec<(Collision, [u32; 80], [u32; 80])> = Vec::new();
                    let n = f(&mut st, &mut |c, m1, m2| seen.push((*c, *m1, *m2)));
                    (st, n, seen)
                };
                let want = run(&|st, on| Kernel::Portable.compress_dc(&cfg, st, 64, whole, on));
                // SAFETY: the token proves SHA, SSSE3 and SSE4.1.
                // Both schedules, each with both filter prefixes.
                let sse = [
                    // SAFETY: as above.
                    run(&|st, on| unsafe {
                        compress_dc_sse::<false, PREFIX>(token, &cfg, st, 64, whole, on)
                    }),
                    // SAFETY: as above.
                    run(&|st, on| unsafe {
                        compress_dc_sse::<true, PREFIX>(token, &cfg, st, 64, whole, on)
                    }),
                    // SAFETY: as above.
                    run(&|st, on| unsafe {
                        compress_dc_sse::<false, PREFIX_SLOW_MSG2>(token, &cfg, st, 64, whole, on)
                    }),
                    // SAFETY: as above.
                    run(&|st, on| unsafe {
                        compress_dc_sse::<true, PREFIX_SLOW_MSG2>(token, &cfg, st, 64, whole, on)
                    }),
                ];
                for (form, got) in sse.iter().enumerate() {
                    assert!(
                        *got == want,
                        "SSE form, ALU {}, prefix {}, {} bytes, {cfg:?}",
                        form & 1,
                        form >> 1,
                        whole.len()
                    );
                }
                if Avx2MulToken::get().is_some() {
                    let avx = [
                        // SAFETY: AVX with OS ymm support was just detected.
                        run(&|st, on| unsafe {
                            compress_dc_avx::<false, PREFIX>(token, &cfg, st, 64, whole, on)
                        }),
                        // SAFETY: as above.
                        run(&|st, on| unsafe {
                            compress_dc_avx::<true, PREFIX>(token, &cfg, st, 64, whole, on)
                        }),
                        // SAFETY: as above.
                        run(&|st, on| unsafe {
                            compress_dc_avx::<false, PREFIX_SLOW_MSG2>(
                                token, &cfg, st, 64, whole, on,
                            )
                        }),
                        // SAFETY: as above.
                        run(&|st, on| unsafe {
                            compress_dc_avx::<true, PREFIX_SLOW_MSG2>(
                                token, &cfg, st, 64, whole, on,
                            )
                        }),
                    ];
                    for (form, got) in avx.iter().enumerate() {
                        assert!(
                            *got == want,
                            "VEX form, ALU {}, prefix {}, {} bytes, {cfg:?}",
                            form & 1,
                            form >> 1,
                            whole.len()
                        );
                    }
                }
                if Avx512Token::get().is_some() {
                    // SAFETY: AVX-512 F/VL with OS ZMM support (and AVX2)
                    // was just detected.
                    let got = run(&|st, on| unsafe {
                        compress_dc_evex::<true, PREFIX_SLOW_MSG2>(token, &cfg, st, 64, whole, on)
                    });
                    assert!(got == want, "EVEX form, {} bytes, {cfg:?}", whole.len());
                }
            }
        }
    }

    /// Both schedules (`sha1msg2` throughout, and SSE2 from word 32) of
    /// every entry point against the portable code, whichever one this
    /// SHA-NI CPU's `slow_msg2` picks: one-stream, interleaved lanes,
    /// HMAC's end, PBKDF2's chains and the batch form's keyed chains.
    #[test]
    fn both_schedules_equal_portable() {
        use super::super::portable;
        let Some(_) = ShaNiToken::get() else {
            return;
        };
        let mut rand = crate::test_rng::xorshift(0x0DDC_0FFE);
        let data: [u8; 64 * 43] = core::array::from_fn(|_| rand() as u8);
        for n in [0, 1, 2, 7, 40] {
            let blocks = &data[..64 * n];
            let iv = [
                rand() as u32,
                rand() as u32,
                rand() as u32,
                rand() as u32,
                rand() as u32,
            ];
            let mut want = iv;
            portable::compress(&mut want, blocks);
            let (mut a, mut b) = (iv, iv);
            // SAFETY: the token proves SHA, SSSE3 and SSE4.1.
            unsafe {
                compress_shani::<false>(&mut a, blocks);
                compress_shani::<true>(&mut b, blocks);
            }
            assert_eq!((a, b), (want, want), "{n} blocks");
            // Three lanes, lane c from its own offset and chaining value.
            let lanes: [&[u8]; 3] = core::array::from_fn(|c| &data[64 * c..64 * (c + n)]);
            let mut st = [[0u32; 3]; 5];
            for (w, row) in st.iter_mut().enumerate() {
                *row = core::array::from_fn(|c| iv[w] ^ c as u32);
            }
            let (mut a, mut b) = (st, st);
            // SAFETY: as above; every lane holds `n` blocks.
            unsafe {
                compress_lanes::<3, false>(&mut a, &lanes, n);
                compress_lanes::<3, true>(&mut b, &lanes, n);
            }
            for c in 0..3 {
                let mut want: [u32; 5] = core::array::from_fn(|w| st[w][c]);
                portable::compress(&mut want, lanes[c]);
                let got = |s: &[[u32; 3]; 5]| -> [u32; 5] { core::array::from_fn(|w| s[w][c]) };
                assert_eq!((got(&a), got(&b)), (want, want), "lane {c}, {n} blocks");
            }
            // HMAC's end: the inner tail, then the outer digest block.
            let outer = [
                rand() as u32,
                rand() as u32,
                rand() as u32,
                rand() as u32,
                rand() as u32,
            ];
            let mut inner = iv;
            portable::compress(&mut inner, blocks);
            let mut want = outer;
            portable::compress(&mut want, &digest_block(&inner));
            let (mut ia, mut ib) = (iv, iv);
            // SAFETY: as above.
            let got = unsafe {
                [
                    hmac_finish_shani::<false>(&mut ia, blocks, &outer),
                    hmac_finish_shani::<true>(&mut ib, blocks, &outer),
                ]
            };
            assert_eq!(got, [want, want], "HMAC end, {n} blocks");
        }
        // PBKDF2: two chains, 3 iterations, against one iteration at a
        // time done with the portable compression.
        let inner = [1, 2, 3, 4, 5];
        let outer = [6, 7, 8, 9, 10];
        let u0 = [[11, 12, 13, 14, 15], [16, 17, 18, 19, 20]];
        let mut want_u = u0;
        let mut want_t = [[0u32; 5]; 2];
        for _ in 0..3 {
            for (u, t) in want_u.iter_mut().zip(&mut want_t) {
                let mut h = inner;
                portable::compress(&mut h, &digest_block(u));
                let mut o = outer;
                portable::compress(&mut o, &digest_block(&h));
                *u = o;
                for (t, u) in t.iter_mut().zip(u.iter()) {
                    *t ^= u;
                }
            }
        }
        for alu in [false, true] {
            let (mut u, mut t) = (u0, [[0u32; 5]; 2]);
            // SAFETY: as above.
            unsafe {
                if alu {
                    pbkdf2_shani::<2, true>(&inner, &outer, &mut u, &mut t, 3);
                } else {
                    pbkdf2_shani::<2, false>(&inner, &outer, &mut u, &mut t, 3);
                }
            }
            assert_eq!((u, t), (want_u, want_t), "PBKDF2, ALU {alu}");
            // The batch form: each chain from its own keyed states, as
            // words in lanes.
            let mut ch = super::super::many::pbkdf2::Pbkdf2Chains::<2> {
                inner: core::array::from_fn(|w| [inner[w]; 2]),
                outer: core::array::from_fn(|w| [outer[w]; 2]),
                u: core::array::from_fn(|w| [u0[0][w], u0[1][w]]),
                t: [[0; 2]; 5],
            };
            // SAFETY: as above.
            unsafe {
                if alu {
                    pbkdf2_keyed_shani::<2, true>(&mut ch, 3);
                } else {
                    pbkdf2_keyed_shani::<2, false>(&mut ch, 3);
                }
            }
            for c in 0..2 {
                let u: [u32; 5] = core::array::from_fn(|w| ch.u[w][c]);
                let t: [u32; 5] = core::array::from_fn(|w| ch.t[w][c]);
                assert_eq!((u, t), (want_u[c], want_t[c]), "batch PBKDF2, ALU {alu}");
            }
        }
    }

    /// The block after one key block that holds the 20-byte digest `s`.
    fn digest_block(s: &[u32; 5]) -> [u8; 64] {
        let mut block = super::super::hmac::digest_block();
        block[..20].copy_from_slice(&super::super::state_to_bytes(s));
        block
    }

    #[test]
    fn shani_steps_equal_scalar_steps() {
        let Some(token) = ShaNiToken::get() else {
            return;
        };
        let block: [u8; 64] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        let w = expand(&block);
        let s = [
            0x0123_4567,
            0x89AB_CDEF,
            0xFEDC_BA98,
            0x7654_3210,
            0xF0E1_D2C3,
        ];
        for from in 0..80 {
            for to in from..=80 {
                assert_eq!(
                    ShaNiSteps(token).forward(s, &w, from, to),
                    ScalarSteps.forward(s, &w, from, to),
                    "{from}..{to}"
                );
            }
        }
    }

    /// The check chain against the forward-only test it implements, for
    /// every DV: constructed hits (the other block's state `x` chosen, the
    /// rest derived from it) must hit, and random chaining values miss.
    #[test]
    fn check_chain_equals_the_test() {
        let Some(token) = ShaNiToken::get() else {
            return;
        };
        let mut rand = crate::test_rng::xorshift(0x0DDC_0FFE);
        let mut rnd = || rand() as u32;
        for round in 0..50 {
            let block: [u8; 64] = core::array::from_fn(|_| rnd() as u8);
            let w = expand(&block);
            for d in 0..32 {
                let (dm, tt) = dv_difference(d);
                let m2: Expanded = core::array::from_fn(|t| w[t] ^ dm[t]);
                let fwd = ShaNiSteps(token);
                let ihv2: [u32; 5] = core::array::from_fn(|_| rnd());
                let st = fwd.forward(ihv2, &m2, 0, tt);
                let f2 = fwd.forward(st, &m2, tt, 80);
                let hit: [u32; 5] = core::array::from_fn(|i| ihv2[i].wrapping_add(f2[i]));
                let mut miss = hit;
                miss[round % 5] ^= 1 << (round % 32);
                for (out, want) in [(hit, true), (miss, false)] {
                    // SAFETY: the token proves SHA, SSSE3 and SSE4.1.
                    let got = unsafe {
                        let mut c = Check::new(d, &w, st, out);
                        if tt == 58 {
                            c.run::<58>();
                        } else {
                            c.run::<65>();
                        }
                        c.hit
                    };
                    assert_eq!(got, want, "DV {d}, round {round}");
                }
            }
        }
    }
}
