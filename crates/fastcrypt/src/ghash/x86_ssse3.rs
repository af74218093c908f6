//! Constant-time GHASH for x86 CPUs without carry-less multiplication:
//! SSSE3's byte shuffle (`pshufb`) as a 16-entry table lookup that no
//! address depends on, and the lane-generic kernel that the AVX2 variant
//! shares.
//!
//! # Method
//!
//! Split a block `X` (a POLYVAL value, see the module docs of
//! [`super`]) into its bytes `X_l` (bits `8l..8l+7`) and each byte into
//! nibbles, `X_l = lo_l + x^4 hi_l`. Then
//!
//! ```text
//! X * H = sum over l of x^(8l) * (Tlo[lo_l] ^ Thi[hi_l])   (mod P)
//! ```
//!
//! with `Tlo[n] = n(x) * H mod P` and `Thi[n] = n(x) * x^4 * H mod P`
//! (reduced, 128 bits each): 16 entries per table, the nibble read as a
//! polynomial. The sum on the right is a polynomial of degree < 256 that
//! is congruent to `X * H`, and POLYVAL's Montgomery reduction
//! ([`portable::reduce`]) maps any such polynomial `V` to
//! `V * x^-128 mod P`, so reducing it gives POLYVAL's product. The tables
//! are built from the POLYVAL powers of H as they are (no conversion).
//!
//! The tables are byte-sliced: for byte position `b` of the entries,
//! register `R[b]` holds byte `b` of entry `n` in its lane `n`.
//! `pshufb(R[b], nibbles of X)` gives, in lane `l`, byte `b` of
//! `T[nibble of X_l]`: a table lookup per lane done by a register
//! permutation. Lookups of both tables XORed give `P_b`, whose lane `l`
//! is byte `b` of `X_l * H mod P`, and the product is
//! `V = sum over b of P_b shifted up by b bytes` (256 bits).
//!
//! # Aggregation
//!
//! That last sum is linear and the same for every block, so a step of
//! eight blocks `(acc ^ X1) * H^8 ^ X2 * H^7 ^ ... ^ X8 * H` (each block
//! with the tables of its own power) XORs the `P_b` of the eight blocks
//! first and shifts them once, then reduces once. Per block that is 32
//! shuffles, 32 table loads, 32 XORs and the nibble split; the 16 byte
//! shifts, the byte reversals and the reduction are paid once per step.
//! The expanded key is 2 tables x 16 byte rows x 16 bytes per power,
//! 4 KiB for the eight powers.
//!
//! Blocks are used in GCM byte order as they sit in memory: memory byte
//! `m` of a block is `X_(15-m)`, so the shuffle results come out with
//! their lanes reversed. The kernel therefore sums the byte-reversed
//! product (each `P_b` then moves up by `16 - b` bytes instead of `b`) and
//! reverses the two 128-bit halves once per step, before the reduction.
//!
//! # Constant time
//!
//! The secret values (H, its powers and tables, the data, the
//! accumulator) are only ever operands of XORs, ANDs with constants,
//! shifts by constant amounts, and of `pshufb` as the permuted register or
//! as its selector: the lookup happens inside a register, its latency does
//! not depend on the selector, and no address is computed from it. Every
//! table row is loaded from an address that depends only on the loop
//! counters and on the input's length (public). Key setup multiplies by
//! `x` with masks and combines the four powers of `x` of each table entry
//! under branches on the entry's index (a public constant), never on H.
//! `scripts/ct-check.sh` runs this kernel under valgrind with H and the
//! data marked secret.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{portable, BLOCK_LEN};
use crate::cpu::Ssse3Token;
use zeroize::Zeroize;

/// Blocks absorbed per reduction.
pub(crate) const GROUP: usize = 8;

/// Byte rows per table (one per byte of a 128-bit entry).
const ROWS: usize = 16;

/// Bytes in an expanded key: per power, two tables of 16 rows of 16
/// bytes.
const KEY_LEN: usize = GROUP * 2 * ROWS * 16;

/// H expanded for the shuffle kernels: the byte-sliced tables of the
/// eight powers met by the blocks of a step.
///
/// `rows[(((s * ROWS + b) * 2 + t) * W + l) * 16 + n]` is byte `b` of
/// entry `n` of table `t` (0: low nibble, 1: high nibble) of the power met
/// by lane `l` of slot `s` (the `W` blocks from `s * W` on; block `k` of a
/// step meets H^(8 - k)). A row for a register of `W` lanes is then one
/// aligned load.
#[derive(Clone)]
#[repr(C, align(32))]
pub(crate) struct ShufKey {
    rows: [u8; KEY_LEN],
}

impl ShufKey {
    /// Expands `h` (GCM byte order) for registers of `w` 128-bit lanes.
    pub(crate) fn new(h: &[u8; BLOCK_LEN], w: usize) -> ShufKey {
        let mut h1 = portable::key_to_polyval(h);
        let mut powers = [0u128; GROUP];
        let mut p = h1;
        for slot in powers.iter_mut().rev() {
            *slot = p;
            p = portable::mul(p, h1);
        }
        let mut k = ShufKey { rows: [0; KEY_LEN] };
        let mut tables = [[0u128; 16]; 2];
        for (blk, &pw) in powers.iter().enumerate() {
            nibble_tables(pw, &mut tables);
            let (s, l) = (blk / w, blk % w);
            for b in 0..ROWS {
                for (t, table) in tables.iter().enumerate() {
                    let at = (((s * ROWS + b) * 2 + t) * w + l) * 16;
                    for (n, e) in table.iter().enumerate() {
                        k.rows[at + n] = (e >> (8 * b)) as u8;
                    }
                }
            }
        }
        tables.iter_mut().for_each(|t| t.zeroize());
        h1.zeroize();
        p.zeroize();
        powers.zeroize();
        k
    }

    /// Overwrites the key material with zeros.
    pub(crate) fn zeroize(&mut self) {
        self.rows.zeroize();
    }
}

/// `t[0][n] = n(x) * p` and `t[1][n] = n(x) * x^4 * p`, mod P.
fn nibble_tables(p: u128, t: &mut [[u128; 16]; 2]) {
    // p * x^i mod P for i = 0..7, multiplying by x with a mask.
    let mut xi = [0u128; 8];
    let mut v = p;
    for slot in xi.iter_mut() {
        *slot = v;
        let carry = 0u128.wrapping_sub(v >> 127);
        v = (v << 1) ^ (carry & 0xc200_0000_0000_0000_0000_0000_0000_0001);
    }
    for (half, table) in t.iter_mut().enumerate() {
        for (n, e) in table.iter_mut().enumerate() {
            *e = 0;
            // The branch is on the entry's index, a public constant.
            for (i, &x) in xi[4 * half..4 * half + 4].iter().enumerate() {
                if n >> i & 1 == 1 {
                    *e ^= x;
                }
            }
        }
    }
    xi.zeroize();
    v.zeroize();
}

/// Proof that the 128-bit SSE2 and SSSE3 instructions run; made only
/// from a token that proves them (see [`Shuf::xmm`]).
#[derive(Clone, Copy)]
pub(crate) struct Xmm(());

impl Xmm {
    /// The proof, for [`Shuf::xmm`].
    ///
    /// # Safety
    ///
    /// The CPU runs SSE2 and SSSE3 (or AVX, whose VEX forms of them the
    /// caller's `#[target_feature]` function then emits).
    #[inline(always)]
    pub(crate) unsafe fn new() -> Xmm {
        Xmm(())
    }
}

/// A register of `W` 128-bit lanes, one block per lane, and the
/// operations the kernel needs. A value of an implementing type is only
/// made by the constructors, which take the proof token of the
/// instructions the type uses; so a value in hand proves them too.
pub(crate) trait Shuf: Copy {
    /// The proof token the constructors take.
    type Token: Copy;
    /// Blocks (128-bit lanes) per register.
    const W: usize;

    /// The 128-bit instructions, proved by the token.
    fn xmm(t: Self::Token) -> Xmm;
    /// All zeros.
    fn zero(t: Self::Token) -> Self;
    /// Every byte `v`.
    fn splat8(t: Self::Token, v: i8) -> Self;
    /// One table row: `16 * W` bytes at a 16*W-byte aligned address.
    fn load_row(t: Self::Token, r: &[u8]) -> Self;
    /// `W` consecutive blocks, as they sit in memory.
    fn load_blocks(t: Self::Token, b: &[u8]) -> Self;
    /// `y` in lane `lane`, zero elsewhere.
    fn at_lane(t: Self::Token, y: __m128i, lane: usize) -> Self;
    /// The XOR of the lanes.
    fn fold(self) -> __m128i;

    fn and(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// Each 16-bit word shifted right by 4 bits.
    fn shr4(self) -> Self;
    /// `pshufb`: lane by lane, byte `i` of the result is byte `idx[i]` of
    /// `self` (every `idx` byte is below 16).
    fn shuffle(self, idx: Self) -> Self;
    /// Each lane shifted up (towards its high bytes) by `N` bytes.
    fn shl_bytes<const N: i32>(self) -> Self;
    /// Each lane shifted down by `N` bytes.
    fn shr_bytes<const N: i32>(self) -> Self;
}

/// Adds `q`, the sum of the `P_b` of byte row `b` in the byte-reversed
/// domain, shifted up by `16 - b` bytes, into the 256-bit `lo + hi`.
/// `b` is a loop counter: the branch is public.
#[inline(always)]
fn shift_in<V: Shuf>(b: usize, q: V, lo: &mut V, hi: &mut V) {
    macro_rules! arm {
        ($b:literal) => {{
            *lo = lo.xor(q.shl_bytes::<{ 16 - $b }>());
            *hi = hi.xor(q.shr_bytes::<$b>());
        }};
    }
    match b {
        0 => *hi = hi.xor(q),
        1 => arm!(1),
        2 => arm!(2),
        3 => arm!(3),
        4 => arm!(4),
        5 => arm!(5),
        6 => arm!(6),
        7 => arm!(7),
        8 => arm!(8),
        9 => arm!(9),
        10 => arm!(10),
        11 => arm!(11),
        12 => arm!(12),
        13 => arm!(13),
        14 => arm!(14),
        15 => arm!(15),
        _ => unreachable!(),
    }
}

/// Reverses the 16 bytes of `x`.
#[inline(always)]
fn rev128(_p: Xmm, x: __m128i) -> __m128i {
    // SAFETY: `Xmm` proves SSSE3 and SSE2.
    unsafe {
        let m = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
        _mm_shuffle_epi8(x, m)
    }
}

/// `a * (x^63 + x^62 + x^57)` as a 128-bit value, for `a` the low 64
/// bits of `v`.
#[inline(always)]
fn times_c(_p: Xmm, v: __m128i) -> __m128i {
    // SAFETY: `Xmm` proves SSE2.
    unsafe {
        let l = _mm_xor_si128(
            _mm_xor_si128(_mm_slli_epi64::<63>(v), _mm_slli_epi64::<62>(v)),
            _mm_slli_epi64::<57>(v),
        );
        let r = _mm_xor_si128(
            _mm_xor_si128(_mm_srli_epi64::<1>(v), _mm_srli_epi64::<2>(v)),
            _mm_srli_epi64::<7>(v),
        );
        _mm_unpacklo_epi64(l, r)
    }
}

/// `(lo + hi x^128) * x^-128 mod P`: [`portable::reduce`] on SSE2
/// registers (POLYVAL order, bit i of the register is the coefficient of
/// x^i).
#[inline(always)]
fn reduce(p: Xmm, lo: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: `Xmm` proves SSE2.
    unsafe {
        let mid = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), times_c(p, lo));
        _mm_xor_si128(
            _mm_xor_si128(hi, _mm_shuffle_epi32::<0x4e>(mid)),
            times_c(p, mid),
        )
    }
}

/// Absorbs one step of `GROUP` blocks (`b`, GCM byte order) into `y`
/// (the accumulator byte-reversed, GCM order), starting at block `first`:
/// earlier blocks are zero and skipped where they fill whole slots (a
/// short tail is placed at the end of the step so that its last block
/// meets H). `y` is XORed into block `first`. Returns the new `y`.
///
/// The byte rows are summed `CHUNK` at a time, one pass over the step's
/// blocks per chunk: a larger chunk loads and splits the blocks fewer
/// times but needs `CHUNK` accumulators next to the operands in
/// registers. Measured on Zen 3: 2 for this kernel on x86-64 and on
/// 32-bit x86 (8 and 16 were slower: spills); the AVX2 kernel picks its
/// own.
#[inline(always)]
fn step<V: Shuf, const CHUNK: usize>(
    t: V::Token,
    key: &ShufKey,
    y: __m128i,
    b: &[u8],
    first: usize,
) -> __m128i {
    debug_assert_eq!(b.len(), GROUP * BLOCK_LEN);
    let xmm = V::xmm(t);
    let mask = V::splat8(t, 0x0f);
    let y = V::at_lane(t, y, first % V::W);
    let first = first / V::W;
    let row = 16 * V::W;
    let (mut lo, mut hi) = (V::zero(t), V::zero(t));
    for c in 0..ROWS / CHUNK {
        let mut q = [V::zero(t); CHUNK];
        for s in first..GROUP / V::W {
            let mut x = V::load_blocks(t, &b[s * row..][..row]);
            if s == first {
                x = x.xor(y);
            }
            let (nlo, nhi) = (x.and(mask), x.shr4().and(mask));
            for (i, qi) in q.iter_mut().enumerate() {
                let at = ((s * ROWS + c * CHUNK + i) * 2) * row;
                let r = &key.rows[at..][..2 * row];
                let tl = V::load_row(t, &r[..row]).shuffle(nlo);
                let th = V::load_row(t, &r[row..]).shuffle(nhi);
                *qi = qi.xor(tl.xor(th));
            }
        }
        for (i, &qi) in q.iter().enumerate() {
            shift_in(c * CHUNK + i, qi, &mut lo, &mut hi);
        }
    }
    // The byte-reversed product's high half is the product's low half.
    let v_lo = rev128(xmm, hi.fold());
    let v_hi = rev128(xmm, lo.fold());
    rev128(xmm, reduce(xmm, v_lo, v_hi))
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline(always)]
pub(crate) fn update_lanes<V: Shuf, const CHUNK: usize>(
    t: V::Token,
    key: &ShufKey,
    acc: &mut u128,
    data: &[u8],
) {
    let xmm = V::xmm(t);
    let mut y = load_acc(xmm, acc);
    let mut steps = data.chunks_exact(GROUP * BLOCK_LEN);
    for b in &mut steps {
        y = step::<V, CHUNK>(t, key, y, b, 0);
    }
    let rest = steps.remainder();
    if !rest.is_empty() {
        // The last n blocks meet H^n..H^1: put them at the end of a step
        // of zero blocks (which add nothing: entry 0 of every table is
        // zero), with the accumulator XORed into the first of them.
        let n = rest.len() / BLOCK_LEN;
        let mut buf = [0u8; GROUP * BLOCK_LEN];
        buf[(GROUP - n) * BLOCK_LEN..].copy_from_slice(rest);
        y = step::<V, CHUNK>(t, key, y, &buf, GROUP - n);
        // It held a copy of the data.
        buf.zeroize();
    }
    store_acc(xmm, y, acc);
}

/// The accumulator as a register in GCM byte order.
#[inline(always)]
fn load_acc(_p: Xmm, acc: &u128) -> __m128i {
    let bytes = acc.to_be_bytes();
    // SAFETY: `bytes` is 16 readable bytes; unaligned load; `Xmm` proves
    // SSE2.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

/// Stores a register in GCM byte order into the accumulator.
#[inline(always)]
fn store_acc(_p: Xmm, y: __m128i, acc: &mut u128) {
    let mut bytes = [0u8; 16];
    // SAFETY: `bytes` is 16 writable bytes; unaligned store; `Xmm` proves
    // SSE2.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), y) };
    *acc = u128::from_be_bytes(bytes);
    bytes.zeroize();
}

/// The SSSE3 register: one block.
#[derive(Clone, Copy)]
pub(crate) struct Ssse3(__m128i);

impl Shuf for Ssse3 {
    type Token = Ssse3Token;
    const W: usize = 1;

    #[inline(always)]
    fn xmm(_t: Ssse3Token) -> Xmm {
        // SAFETY: the token proves SSSE3 and SSE2.
        unsafe { Xmm::new() }
    }

    #[inline(always)]
    fn zero(_t: Ssse3Token) -> Self {
        // SAFETY: the token proves SSE2.
        Ssse3(unsafe { _mm_setzero_si128() })
    }

    #[inline(always)]
    fn splat8(_t: Ssse3Token, v: i8) -> Self {
        // SAFETY: the token proves SSE2.
        Ssse3(unsafe { _mm_set1_epi8(v) })
    }

    #[inline(always)]
    fn load_row(_t: Ssse3Token, r: &[u8]) -> Self {
        assert!(r.len() == 16);
        // SAFETY: `r` is 16 readable bytes (checked above) at a 16-byte
        // aligned address: `ShufKey` is 32-byte aligned and every row
        // starts at a multiple of 16 bytes. The token proves SSE2.
        Ssse3(unsafe { _mm_load_si128(r.as_ptr().cast()) })
    }

    #[inline(always)]
    fn load_blocks(_t: Ssse3Token, b: &[u8]) -> Self {
        assert!(b.len() == BLOCK_LEN);
        // SAFETY: `b` is 16 readable bytes (checked above); unaligned
        // load; the token proves SSE2.
        Ssse3(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
    }

    #[inline(always)]
    fn at_lane(_t: Ssse3Token, y: __m128i, lane: usize) -> Self {
        debug_assert_eq!(lane, 0);
        Ssse3(y)
    }

    #[inline(always)]
    fn fold(self) -> __m128i {
        self.0
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: SSE2 is proved by the value's existence (see `Shuf`).
        Ssse3(unsafe { _mm_and_si128(self.0, o.0) })
    }

    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: as for `and`.
        Ssse3(unsafe { _mm_xor_si128(self.0, o.0) })
    }

    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: as for `and`.
        Ssse3(unsafe { _mm_srli_epi16::<4>(self.0) })
    }

    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: SSSE3 is proved by the value's existence.
        Ssse3(unsafe { _mm_shuffle_epi8(self.0, idx.0) })
    }

    #[inline(always)]
    fn shl_bytes<const N: i32>(self) -> Self {
        // SAFETY: as for `and`.
        Ssse3(unsafe { _mm_slli_si128::<N>(self.0) })
    }

    #[inline(always)]
    fn shr_bytes<const N: i32>(self) -> Self {
        // SAFETY: as for `and`.
        Ssse3(unsafe { _mm_srli_si128::<N>(self.0) })
    }
}

/// Absorbs the whole blocks of `data` (a multiple of 16 bytes) into `acc`.
#[inline]
pub(crate) fn update(t: Ssse3Token, key: &ShufKey, acc: &mut u128, data: &[u8]) {
    // SAFETY: the token proves SSE2 and SSSE3, all `update_ssse3` enables.
    unsafe { update_ssse3(t, key, acc, data) }
}

/// The kernel: 8 blocks per step, the last 1..7 in a step of their own.
#[target_feature(enable = "sse2,ssse3")]
unsafe fn update_ssse3(t: Ssse3Token, key: &ShufKey, acc: &mut u128, data: &[u8]) {
    update_lanes::<Ssse3, 2>(t, key, acc, data);
}

/// The key for this backend.
pub(crate) fn new_key(h: &[u8; BLOCK_LEN]) -> ShufKey {
    ShufKey::new(h, Ssse3::W)
}
