//! Constant-time GHASH for x86 CPUs without carry-less multiplication:
//! SSE2 integer multipliers (`pmuludq`, 32x32 -> 64 bits, two lanes), the
//! baseline for CPUs without SSSE3 (the `ssse3` and `avx2` backends are
//! faster). The kernel is written for registers of any number of 64-bit
//! lanes; an AVX2 port of it was replaced by the `pshufb` kernel of
//! `x86_ssse3`, which runs twice as fast.
//!
//! # Method
//!
//! The portable backend's trick (see [`super::portable`]; BearSSL's
//! `ghash_ctmul32.c`, T. Pornin) on SIMD lanes: an integer product equals
//! the carry-less one on every bit that no carry reaches. A 32-bit operand
//! is split into its four residue classes, the bits `i = r (mod 4)`: a
//! class has 8 bits, so a column of the product of two classes sums at
//! most 8 one-bit terms, which fits in the column and the three unused
//! columns above it and never reaches the next column of the same class.
//! The 16 class-by-class products of two words, XORed by the class their
//! bits land in (`i + j mod 4`) and masked with that class, give the
//! 64-bit carry-less product.
//!
//! A 128x128 product is 9 such 32x32 products: Karatsuba on the 64-bit
//! halves and again on each half's 32-bit words. The operand words are
//! `k0, k1, k0^k1, k2, k3, k2^k3, k0^k2, k1^k3, k0^k1^k2^k3` for both the
//! data block and the key power; the key's are split into classes once, at
//! key setup, so the loop masks only data.
//!
//! # Lanes are blocks
//!
//! Each 64-bit lane of a register works on its own block: `pmuludq`
//! multiplies the low 32 bits of each lane, so with blocks in lanes every
//! operation is vertical and there is no shuffle in the loop beyond the
//! transposition of the loaded blocks. Eight blocks are absorbed per step,
//! `(acc ^ X1) * H^8 ^ X2 * H^7 ^ ... ^ X8 * H` (the aggregated reduction
//! of the PCLMULQDQ kernels): each lane meets its own power of H, the nine
//! 64-bit Karatsuba products are summed over all lanes and blocks (the
//! recombination is linear, so it happens once per step), then recombined
//! into a 256-bit product and reduced once with shifts (the portable
//! backend's [`portable::reduce`]).
//!
//! # Constant time
//!
//! H, its powers, the data and the accumulator are only ever operands of
//! multiplications, ANDs with constant masks, XORs, ORs and shifts by
//! constant amounts; no table is indexed and no branch is taken on them.
//! Every address depends only on the length of the input (which is
//! public) and on loop counters. Integer multiplication is constant time on
//! every x86 CPU with SSE2 (`pmuludq` has a fixed latency; the early-out
//! multipliers of some old CPUs were in their scalar units, for 64-bit
//! operands). `scripts/ct-check.sh` runs this kernel under valgrind with
//! H and the data marked secret.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::portable::{self, RESIDUE};
use super::BLOCK_LEN;
use crate::cpu::Sse2Token;
use zeroize::Zeroize;

/// Blocks absorbed per reduction.
pub(crate) const GROUP: usize = 8;

/// 32-bit operand words of a 128-bit value after two levels of Karatsuba.
const WORDS: usize = 9;

/// `u64`s in an expanded key: for each of the 8 blocks of a step, 9 words
/// times 4 classes.
const KEY_LEN: usize = GROUP * WORDS * 4;

/// A register of 64-bit lanes, one block per lane, and the operations the
/// kernel needs. A value of an implementing type is only made by the
/// constructors, which take the proof token of the instructions the type
/// uses; so a value in hand proves them too.
pub(crate) trait Lanes: Copy {
    /// The proof token the constructors take.
    type Token: Copy;
    /// Blocks (64-bit lanes) per register: lane `l` of a slot's registers
    /// holds block `l` of the slot's `W` consecutive blocks.
    const W: usize;

    /// All zeros.
    fn zero(t: Self::Token) -> Self;
    /// `W` lanes from a 32-byte aligned slice of the key.
    fn load_key(t: Self::Token, k: &[u64]) -> Self;
    /// All lanes `m`.
    fn splat(t: Self::Token, m: u64) -> Self;
    /// `x` in lane 0, zero elsewhere.
    fn first(t: Self::Token, x: u64) -> Self;
    /// `W` consecutive blocks in GCM byte order, as POLYVAL values split
    /// into their low and high 64 bits, block `l` in lane `l`.
    fn load_blocks(t: Self::Token, b: &[u8]) -> (Self, Self);
    /// The lanes, in order.
    fn store(self, out: &mut [u64]);

    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// Each lane shifted right by 32 bits.
    fn shr32(self) -> Self;
    /// Lane by lane, the 64-bit product of the low 32 bits.
    fn mul32(self, o: Self) -> Self;
}

/// H expanded for the multiply-with-holes kernels.
///
/// `words[((s * WORDS + w) * 4 + j) * W + l]` is class `j` of operand word
/// `w` of the power met by lane `l` of slot `s` (the `W` blocks from
/// `s * W` on), in the low 32 bits. Aligned so that the legacy-SSE
/// encoding can take key words as memory operands.
#[derive(Clone)]
#[repr(C, align(32))]
pub(crate) struct MulKey {
    words: [u64; KEY_LEN],
}

impl MulKey {
    /// Expands `h` (GCM byte order) for registers of `w` lanes.
    pub(crate) fn new(h: &[u8; BLOCK_LEN], w: usize) -> MulKey {
        let h1 = portable::key_to_polyval(h);
        let mut powers = [0u128; GROUP];
        let mut p = h1;
        // powers[b] is met by block b of a step: H^(8 - b).
        for slot in powers.iter_mut().rev() {
            *slot = p;
            p = portable::mul(p, h1);
        }
        let mut k = MulKey {
            words: [0; KEY_LEN],
        };
        for (s, slot) in k.words.chunks_exact_mut(WORDS * 4 * w).enumerate() {
            for l in 0..w {
                let ops = operand_words(powers[s * w + l]);
                for (wi, &op) in ops.iter().enumerate() {
                    for (j, &m) in RESIDUE.iter().enumerate() {
                        slot[(wi * 4 + j) * w + l] = u64::from(op) & m;
                    }
                }
            }
        }
        p.zeroize();
        powers.zeroize();
        k
    }

    /// Overwrites the key material with zeros.
    pub(crate) fn zeroize(&mut self) {
        self.words.zeroize();
    }
}

/// The nine Karatsuba operand words of a 128-bit value, in the order the
/// kernel forms them from a block.
fn operand_words(p: u128) -> [u32; WORDS] {
    let k = [
        p as u32,
        (p >> 32) as u32,
        (p >> 64) as u32,
        (p >> 96) as u32,
    ];
    let (m0, m1) = (k[0] ^ k[2], k[1] ^ k[3]);
    [
        k[0],
        k[1],
        k[0] ^ k[1],
        k[2],
        k[3],
        k[2] ^ k[3],
        m0,
        m1,
        m0 ^ m1,
    ]
}

/// The products of three operand words by their key words, added into
/// `acc[0..12]` (word `w`'s class-`r` sums at `acc[4 * w + r]`, not yet
/// masked: masking is linear, so it waits for the end of the step). Per
/// lane, `v`'s two 32-bit halves are the first two words and their XOR is
/// the third; `key` holds those words' 12 key registers (3 words x 4
/// classes, `W` lanes each).
#[inline(always)]
fn mul3<V: Lanes>(t: V::Token, v: V, key: &[u64], masks: &[V; 4], acc: &mut [V]) {
    // No closures or `array::from_fn` here: code outside the
    // `#[target_feature]` function would not get its intrinsics inlined.
    // The data's classes: in place for word 0 (the multiplier reads the
    // low 32 bits), moved down for word 1, XORed for word 2 (a class of
    // the XOR is the XOR of the classes).
    let d = [
        v.and(masks[0]),
        v.and(masks[1]),
        v.and(masks[2]),
        v.and(masks[3]),
    ];
    let hi = [d[0].shr32(), d[1].shr32(), d[2].shr32(), d[3].shr32()];
    let mid = [
        d[0].xor(hi[0]),
        d[1].xor(hi[1]),
        d[2].xor(hi[2]),
        d[3].xor(hi[3]),
    ];
    for (w, x) in [d, hi, mid].iter().enumerate() {
        let k = &key[w * 4 * V::W..][..4 * V::W];
        let kj = [
            V::load_key(t, &k[..V::W]),
            V::load_key(t, &k[V::W..2 * V::W]),
            V::load_key(t, &k[2 * V::W..3 * V::W]),
            V::load_key(t, &k[3 * V::W..]),
        ];
        // Class r of the product collects x_i * k_(r - i) for the four i;
        // its other bits hold carries, masked off at the end of the step.
        for r in 0..4 {
            let z = x[0]
                .mul32(kj[r])
                .xor(x[1].mul32(kj[(r + 3) & 3]))
                .xor(x[2].mul32(kj[(r + 2) & 3]).xor(x[3].mul32(kj[(r + 1) & 3])));
            acc[4 * w + r] = acc[4 * w + r].xor(z);
        }
    }
}

/// Absorbs one step of `GROUP` blocks (`b`, GCM byte order) into `y`,
/// starting at slot `first` (earlier slots are skipped: a short tail is
/// placed at the end of the step, so its last block meets H). `y` is
/// XORed into the first block of slot `first`.
#[inline(always)]
fn step<V: Lanes>(t: V::Token, key: &MulKey, y: u128, b: &[u8], first: usize) -> u128 {
    debug_assert_eq!(b.len(), GROUP * BLOCK_LEN);
    let masks = [
        V::splat(t, RESIDUE[0]),
        V::splat(t, RESIDUE[1]),
        V::splat(t, RESIDUE[2]),
        V::splat(t, RESIDUE[3]),
    ];
    let mut acc = [V::zero(t); 4 * WORDS];
    let slot_len = WORDS * 4 * V::W;
    // The accumulator goes into the first slot's first block, zeros into
    // the others: XORed every time rather than under `s == first`, which
    // LLVM compiles to a flag and a branch that the static check
    // (scripts/ct-static.sh) cannot tell from one on the accumulator.
    let (mut y_lo, mut y_hi) = (V::first(t, y as u64), V::first(t, (y >> 64) as u64));
    for s in first..GROUP / V::W {
        let (lo, hi) = V::load_blocks(t, &b[s * V::W * BLOCK_LEN..][..V::W * BLOCK_LEN]);
        let (lo, hi) = (lo.xor(y_lo), hi.xor(y_hi));
        (y_lo, y_hi) = (V::zero(t), V::zero(t));
        let key = &key.words[s * slot_len..][..slot_len];
        let third = 3 * 4 * V::W;
        mul3(t, lo, &key[..third], &masks, &mut acc[..12]);
        mul3(t, hi, &key[third..2 * third], &masks, &mut acc[12..24]);
        mul3(t, lo.xor(hi), &key[2 * third..], &masks, &mut acc[24..]);
    }
    // Sum the lanes: the nine 64-bit Karatsuba products of the step.
    let mut lanes = [0u64; 4];
    let mut p = [0u64; WORDS];
    for (pw, a) in p.iter_mut().zip(acc.chunks_exact(4)) {
        let aw = a[0]
            .and(masks[0])
            .or(a[1].and(masks[1]))
            .or(a[2].and(masks[2]).or(a[3].and(masks[3])));
        aw.store(&mut lanes[..V::W]);
        *pw = lanes[..V::W].iter().fold(0, |a, &x| a ^ x);
    }
    // 32-bit Karatsuba: three 128-bit products (low halves, high halves,
    // their XOR), then 64-bit Karatsuba into the reduction's form.
    let (ql, qh, qm) = (
        karatsuba32(&p[0..3]),
        karatsuba32(&p[3..6]),
        karatsuba32(&p[6..9]),
    );
    portable::reduce(ql, qm ^ ql ^ qh, qh)
}

/// A 64x64 product from its 32-bit Karatsuba products `[lo, hi, mid]`.
#[inline(always)]
fn karatsuba32(p: &[u64]) -> u128 {
    let (lo, hi, mid) = (p[0], p[1], p[2]);
    u128::from(lo) ^ (u128::from(mid ^ lo ^ hi) << 32) ^ (u128::from(hi) << 64)
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline(always)]
pub(crate) fn update_lanes<V: Lanes>(t: V::Token, key: &MulKey, acc: &mut u128, data: &[u8]) {
    let mut y = *acc;
    let mut steps = data.chunks_exact(GROUP * BLOCK_LEN);
    for b in &mut steps {
        y = step::<V>(t, key, y, b, 0);
    }
    let rest = steps.remainder();
    if !rest.is_empty() {
        // The last n blocks meet H^n..H^1: put them at the end of a step
        // of zero blocks (which add nothing), with the accumulator XORed
        // into the first of them, and skip the slots of zeros only.
        let n = rest.len() / BLOCK_LEN;
        let mut buf = [0u8; GROUP * BLOCK_LEN];
        buf[(GROUP - n) * BLOCK_LEN..].copy_from_slice(rest);
        let x0 = &mut buf[(GROUP - n) * BLOCK_LEN..][..BLOCK_LEN];
        for (d, s) in x0.iter_mut().zip(y.to_be_bytes()) {
            *d ^= s;
        }
        y = step::<V>(t, key, 0, &buf, (GROUP - n) / V::W);
        // It held the accumulator, which depends on H.
        buf.zeroize();
    }
    *acc = y;
}

/// The SSE2 register: two lanes.
#[derive(Clone, Copy)]
pub(crate) struct Sse2(__m128i);

impl Lanes for Sse2 {
    type Token = Sse2Token;
    const W: usize = 2;

    #[inline(always)]
    fn zero(_t: Sse2Token) -> Self {
        // SAFETY: the token proves SSE2.
        Sse2(unsafe { _mm_setzero_si128() })
    }

    #[inline(always)]
    fn load_key(_t: Sse2Token, k: &[u64]) -> Self {
        assert!(k.len() == 2);
        // SAFETY: `k` is 16 readable bytes (checked above) at a 16-byte
        // aligned address: `MulKey` is 32-byte aligned and every slice the
        // kernel takes starts at a multiple of 2 words. The token proves
        // SSE2.
        Sse2(unsafe { _mm_load_si128(k.as_ptr().cast()) })
    }

    #[inline(always)]
    fn splat(_t: Sse2Token, m: u64) -> Self {
        // SAFETY: the token proves SSE2.
        Sse2(unsafe { _mm_set1_epi64x(m as i64) })
    }

    #[inline(always)]
    fn first(_t: Sse2Token, x: u64) -> Self {
        // SAFETY: the token proves SSE2.
        Sse2(unsafe { _mm_set_epi64x(0, x as i64) })
    }

    #[inline(always)]
    fn load_blocks(t: Sse2Token, b: &[u8]) -> (Self, Self) {
        assert!(b.len() == 2 * BLOCK_LEN);
        // SAFETY: `b` is 32 readable bytes (checked above); unaligned
        // loads; the token proves SSE2.
        unsafe {
            let a = bswap64(t, _mm_loadu_si128(b.as_ptr().cast()));
            let c = bswap64(t, _mm_loadu_si128(b.as_ptr().add(BLOCK_LEN).cast()));
            // A block's first 8 bytes, reversed, are its high 64 bits.
            (
                Sse2(_mm_unpackhi_epi64(a, c)),
                Sse2(_mm_unpacklo_epi64(a, c)),
            )
        }
    }

    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        assert!(out.len() == 2);
        // SAFETY: `out` is 16 writable bytes (checked above); unaligned
        // store; SSE2 is proved by the value's existence.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: SSE2 is proved by the value's existence (see `Lanes`).
        Sse2(unsafe { _mm_and_si128(self.0, o.0) })
    }

    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Sse2(unsafe { _mm_or_si128(self.0, o.0) })
    }

    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Sse2(unsafe { _mm_xor_si128(self.0, o.0) })
    }

    #[inline(always)]
    fn shr32(self) -> Self {
        // SAFETY: as for `and`.
        Sse2(unsafe { _mm_srli_epi64::<32>(self.0) })
    }

    #[inline(always)]
    fn mul32(self, o: Self) -> Self {
        // SAFETY: as for `and` (`pmuludq` is SSE2).
        Sse2(unsafe { _mm_mul_epu32(self.0, o.0) })
    }
}

/// Reverses the bytes of each 64-bit lane with SSE2 alone (no `pshufb`):
/// swap the bytes of each 16-bit word, then the words of each lane.
#[inline(always)]
fn bswap64(_t: Sse2Token, x: __m128i) -> __m128i {
    // SAFETY: the token proves SSE2.
    unsafe {
        let x = _mm_or_si128(_mm_slli_epi16::<8>(x), _mm_srli_epi16::<8>(x));
        _mm_shufflehi_epi16::<0x1b>(_mm_shufflelo_epi16::<0x1b>(x))
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline]
pub(crate) fn update(t: Sse2Token, key: &MulKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: the token proves SSE2, all `update_sse2` enables.
    unsafe { update_sse2(t, key, acc, data) }
}

/// The kernel: 8 blocks per step, the last 1..7 in a step of their own.
#[target_feature(enable = "sse2")]
unsafe fn update_sse2(t: Sse2Token, key: &MulKey, acc: &mut u128, data: &[u8]) {
    update_lanes::<Sse2>(t, key, acc, data);
}

/// The key for this backend.
pub(crate) fn new_key(h: &[u8; BLOCK_LEN]) -> MulKey {
    MulKey::new(h, Sse2::W)
}
