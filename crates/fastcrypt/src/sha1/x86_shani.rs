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

use super::dc::{after_block, x86_filter, DcConfig, Expanded, OnCollision};
use crate::cpu::{Avx2MulToken, ShaNiToken};

/// Compresses every 64-byte block of `blocks` into `state`.
#[inline]
pub(super) fn compress(_token: ShaNiToken, state: &mut [u32; 5], blocks: &[u8]) {
    // SAFETY: the token proves SHA, SSSE3 and SSE4.1 are present, which is
    // everything `compress_shani` enables.
    unsafe { compress_shani(state, blocks) }
}

/// One group of four rounds (`$i` = 0..=19) and the schedule work that
/// overlaps it. `$e_in` holds the E input of this group, `$e_out` receives
/// the saved ABCD that yields the next group's E.
macro_rules! quad {
    ($i:literal, $abcd:ident, $e_in:ident, $e_out:ident, $m:ident, $f:literal) => {
        if $i == 0 {
            $e_in = _mm_add_epi32($e_in, $m[0]);
        } else {
            $e_in = _mm_sha1nexte_epu32($e_in, $m[$i % 4]);
        }
        $e_out = $abcd;
        // Finish the words of group i+1: W[t-3] term and the rotate.
        if $i >= 3 && $i <= 18 {
            $m[($i + 1) % 4] = _mm_sha1msg2_epu32($m[($i + 1) % 4], $m[$i % 4]);
        }
        $abcd = _mm_sha1rnds4_epu32($abcd, $e_in, $f);
        // Start group i+3: W[t-16] ^ W[t-14].
        if $i >= 1 && $i <= 16 {
            $m[($i + 3) % 4] = _mm_sha1msg1_epu32($m[($i + 3) % 4], $m[$i % 4]);
        }
        // Group i+2 gets its W[t-8] term.
        if $i >= 2 && $i <= 17 {
            $m[($i + 2) % 4] = _mm_xor_si128($m[($i + 2) % 4], $m[$i % 4]);
        }
    };
}

// The schedule macro updates slots that the last groups no longer read.
#[allow(unused_assignments)]
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_shani(state: &mut [u32; 5], blocks: &[u8]) {
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
        let p = block.as_ptr();
        // SAFETY: `block` is 64 bytes long; each load reads 16 of them.
        let mut m = unsafe {
            [
                _mm_shuffle_epi8(_mm_loadu_si128(p.cast()), bswap),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(16).cast()), bswap),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(32).cast()), bswap),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(48).cast()), bswap),
            ]
        };
        let mut e1;
        quad!(0, abcd, e0, e1, m, 0);
        quad!(1, abcd, e1, e0, m, 0);
        quad!(2, abcd, e0, e1, m, 0);
        quad!(3, abcd, e1, e0, m, 0);
        quad!(4, abcd, e0, e1, m, 0);
        quad!(5, abcd, e1, e0, m, 1);
        quad!(6, abcd, e0, e1, m, 1);
        quad!(7, abcd, e1, e0, m, 1);
        quad!(8, abcd, e0, e1, m, 1);
        quad!(9, abcd, e1, e0, m, 1);
        quad!(10, abcd, e0, e1, m, 2);
        quad!(11, abcd, e1, e0, m, 2);
        quad!(12, abcd, e0, e1, m, 2);
        quad!(13, abcd, e1, e0, m, 2);
        quad!(14, abcd, e0, e1, m, 2);
        quad!(15, abcd, e1, e0, m, 3);
        quad!(16, abcd, e0, e1, m, 3);
        quad!(17, abcd, e1, e0, m, 3);
        quad!(18, abcd, e0, e1, m, 3);
        quad!(19, abcd, e1, e0, m, 3);
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

/// Stores the finished schedule words of group `$i` (lane 3 holds the
/// first word) in natural order.
macro_rules! store_w {
    ($w:ident, $i:literal, $m:ident) => {
        // SAFETY: `$w` has 80 words; group $i (0..=19) writes 4i..4i+4.
        unsafe {
            _mm_storeu_si128(
                $w.as_mut_ptr().add(4 * $i).cast(),
                _mm_shuffle_epi32($m[$i % 4], 0x1B),
            )
        };
    };
}

/// The SHA-NI block loop of [`compress_shani`] with the schedule stored
/// and the filter `$filter` applied per block: the body of the
/// `compress_dc_*` entry points, which enable the features it needs.
macro_rules! dc_loop {
    ($cfg:ident, $state:ident, $offset:ident, $blocks:ident, $on:ident, $filter:path) => {{
        let (cfg, state, offset, blocks, on_collision) = ($cfg, $state, $offset, $blocks, $on);
        let bswap = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
        // SAFETY: `state` is 5 u32s, so its first 16 bytes are readable.
        let abcd0 = unsafe { _mm_loadu_si128(state.as_ptr().cast()) };
        let mut abcd = _mm_shuffle_epi32(abcd0, 0x1B);
        let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
        let mut w: Expanded = [0; 80];
        let mut found = 0;

        for (n, block) in blocks.chunks_exact(64).enumerate() {
            let abcd_save = abcd;
            let e_save = e0;
            let p = block.as_ptr();
            // SAFETY: `block` is 64 bytes long; each load reads 16 of them.
            let mut m = unsafe {
                [
                    _mm_shuffle_epi8(_mm_loadu_si128(p.cast()), bswap),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(16).cast()), bswap),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(32).cast()), bswap),
                    _mm_shuffle_epi8(_mm_loadu_si128(p.add(48).cast()), bswap),
                ]
            };
            let mut e1;
            quad!(0, abcd, e0, e1, m, 0);
            store_w!(w, 0, m);
            quad!(1, abcd, e1, e0, m, 0);
            store_w!(w, 1, m);
            quad!(2, abcd, e0, e1, m, 0);
            store_w!(w, 2, m);
            quad!(3, abcd, e1, e0, m, 0);
            store_w!(w, 3, m);
            quad!(4, abcd, e0, e1, m, 0);
            store_w!(w, 4, m);
            quad!(5, abcd, e1, e0, m, 1);
            store_w!(w, 5, m);
            quad!(6, abcd, e0, e1, m, 1);
            store_w!(w, 6, m);
            quad!(7, abcd, e1, e0, m, 1);
            store_w!(w, 7, m);
            quad!(8, abcd, e0, e1, m, 1);
            store_w!(w, 8, m);
            quad!(9, abcd, e1, e0, m, 1);
            store_w!(w, 9, m);
            quad!(10, abcd, e0, e1, m, 2);
            store_w!(w, 10, m);
            quad!(11, abcd, e1, e0, m, 2);
            store_w!(w, 11, m);
            quad!(12, abcd, e0, e1, m, 2);
            store_w!(w, 12, m);
            quad!(13, abcd, e1, e0, m, 2);
            store_w!(w, 13, m);
            quad!(14, abcd, e0, e1, m, 2);
            store_w!(w, 14, m);
            quad!(15, abcd, e1, e0, m, 3);
            store_w!(w, 15, m);
            quad!(16, abcd, e0, e1, m, 3);
            store_w!(w, 16, m);
            quad!(17, abcd, e1, e0, m, 3);
            store_w!(w, 17, m);
            quad!(18, abcd, e0, e1, m, 3);
            store_w!(w, 18, m);
            quad!(19, abcd, e1, e0, m, 3);
            store_w!(w, 19, m);
            e0 = _mm_sha1nexte_epu32(e0, e_save);
            abcd = _mm_add_epi32(abcd, abcd_save);
            let _ = e1;

            // SAFETY: the entry point enables what the filter needs.
            let mask = unsafe { $filter(&w) };
            if mask != 0 {
                let mut ihv_in = [0u32; 5];
                let mut out = [0u32; 5];
                // SAFETY: both arrays are 5 u32s; the stores write 16 bytes.
                unsafe {
                    _mm_storeu_si128(
                        ihv_in.as_mut_ptr().cast(),
                        _mm_shuffle_epi32(abcd_save, 0x1B),
                    );
                    _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_shuffle_epi32(abcd, 0x1B));
                }
                ihv_in[4] = _mm_extract_epi32(e_save, 3) as u32;
                out[4] = _mm_extract_epi32(e0, 3) as u32;
                let off = offset + (n * 64) as u64;
                if after_block(cfg, off, ihv_in, &mut out, &w, mask, on_collision) {
                    found += 1;
                    // SAFETY: `out` is 5 u32s, so its first 16 bytes are readable.
                    abcd = _mm_shuffle_epi32(unsafe { _mm_loadu_si128(out.as_ptr().cast()) }, 0x1B);
                    e0 = _mm_set_epi32(out[4] as i32, 0, 0, 0);
                }
            }
        }

        let out = _mm_shuffle_epi32(abcd, 0x1B);
        // SAFETY: `state` is 5 u32s, so its first 16 bytes are writable.
        unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), out) };
        state[4] = _mm_extract_epi32(e0, 3) as u32;
        found
    }};
}

/// Compresses every block with collision detection fused in: the kernel
/// stores the schedule words `sha1msg1`/`sha1msg2` compute anyway, and the
/// filter runs on them after each block, where the core overlaps it with
/// the next block's round chain. Only blocks the filter passes leave the
/// kernel (for the recompressions). Returns the number of blocks found to
/// be part of an attack.
pub(crate) fn compress_dc(
    _token: ShaNiToken,
    cfg: &DcConfig,
    state: &mut [u32; 5],
    offset: u64,
    blocks: &[u8],
    on_collision: OnCollision<'_>,
) -> u64 {
    match Avx2MulToken::get() {
        // SAFETY: the tokens prove SHA, SSSE3, SSE4.1 and AVX2 (with OS
        // ymm support).
        Some(_) => unsafe { compress_dc_avx2(cfg, state, offset, blocks, on_collision) },
        // SAFETY: the token proves SHA, SSSE3, SSE4.1 (and so SSE2).
        None => unsafe { compress_dc_sse(cfg, state, offset, blocks, on_collision) },
    }
}

#[target_feature(enable = "sha,ssse3,sse4.1,avx2")]
unsafe fn compress_dc_avx2(
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
        x86_filter::ubc_mask_avx2
    )
}

#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_dc_sse(
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
        x86_filter::ubc_mask_sse2
    )
}
