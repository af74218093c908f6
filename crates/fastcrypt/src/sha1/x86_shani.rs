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

use crate::cpu::ShaNiToken;

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
