//! Constant-time portable GHASH: no table indexed by secret data, no branch
//! on secret data. This is the oracle the SIMD backends are tested against.
//!
//! # Carry-less multiplication with integer multipliers
//!
//! An integer multiplication adds shifted copies of one operand; a
//! carry-less one XORs them. The two agree bit for bit as long as no
//! carry ever reaches a bit we keep. BearSSL (`ghash_ctmul64.c`, T. Pornin)
//! gets there by multiplying operands with "holes": keep only the bits
//! `i = r (mod 4)` of each operand, so every product bit we want has three
//! unused bits above it where a column sum can grow before it spills into
//! the next wanted bit. BearSSL keeps the low 64 bits of 64x64 products
//! and gets the high halves by bit-reversing the operands (32 integer
//! multiplications per 64x64 product).
//!
//! Here every 64x64 product is computed in full with 16 widening
//! multiplications (`u64 x u64 -> u128`, one `mul` on x86-64). A column of
//! one sub-product then sums up to 16 one-bit terms, which would carry
//! into the next wanted bit (16 needs 5 bits). So the operand taken from H
//! keeps at most 15 bits per residue class: its top nibble (bits 60..63)
//! is left out of the multiplications and added back as four masked
//! shifts of the data word, with masks derived from H once, at key setup.
//!
//! # Aggregation
//!
//! A 128x128 product is three 64x64 products (Karatsuba). Four blocks are
//! absorbed per step as `(acc ^ X1) * H^4 ^ X2 * H^3 ^ X3 * H^2 ^ X4 * H`:
//! the 256-bit products are XORed unreduced and reduced once (the
//! reduction is linear). The key therefore holds H^1..H^4, each already
//! split into the masked words the multiplier wants.

use super::BLOCK_LEN;
use zeroize::Zeroize;

/// Blocks absorbed per reduction.
const LANES: usize = 4;

/// Bits `i = r (mod 4)` of a 64-bit word, for r = 0..3.
pub(crate) const RESIDUE: [u64; 4] = [
    0x1111_1111_1111_1111,
    0x2222_2222_2222_2222,
    0x4444_4444_4444_4444,
    0x8888_8888_8888_8888,
];

/// Bits 0..59: the part of a key word that goes through the multiplier.
const LOW60: u64 = (1 << 60) - 1;

/// One 64-bit word of a key power, prepared for [`clmul64`].
#[derive(Clone, Copy, Default)]
struct KeyWord {
    /// `parts[r][i]` is the key's residue-`(r - i) mod 4` bits (bits
    /// 0..59 only: at most 15 of them) shifted up by `i`, to be multiplied
    /// by the data's residue-`i` bits shifted down by `i`. The shifted key
    /// still fits in 64 bits (bit 59 + 3), and every one of the 16 products
    /// has its own key word, so the data side needs one mask.
    parts: [[u64; 4]; 4],
    /// All ones where bit `60 + t` of the word is set, else zero.
    top: [u64; 4],
}

impl KeyWord {
    #[inline(always)]
    fn new(w: u64) -> KeyWord {
        let low = w & LOW60;
        let class = RESIDUE.map(|m| low & m);
        let mut parts = [[0; 4]; 4];
        for (r, row) in parts.iter_mut().enumerate() {
            for (i, p) in row.iter_mut().enumerate() {
                *p = class[(r + 4 - i) % 4] << i;
            }
        }
        KeyWord {
            parts,
            // 0 - bit: all ones or zero, with no branch.
            top: [60, 61, 62, 63].map(|b| 0u64.wrapping_sub((w >> b) & 1)),
        }
    }

    fn zeroize(&mut self) {
        self.parts.iter_mut().for_each(|p| p.zeroize());
        self.top.zeroize();
    }
}

/// A key power split for Karatsuba: low word, high word, and their XOR.
#[derive(Clone, Copy, Default)]
struct KeyPower {
    lo: KeyWord,
    hi: KeyWord,
    mid: KeyWord,
}

impl KeyPower {
    fn new(p: u128) -> KeyPower {
        let (lo, hi) = (p as u64, (p >> 64) as u64);
        KeyPower {
            lo: KeyWord::new(lo),
            hi: KeyWord::new(hi),
            mid: KeyWord::new(lo ^ hi),
        }
    }

    fn zeroize(&mut self) {
        self.lo.zeroize();
        self.hi.zeroize();
        self.mid.zeroize();
    }
}

/// The expanded key: `powers[i]` is H^(LANES - i), so the block that
/// comes first in a group meets the highest power.
#[derive(Clone)]
pub(crate) struct Key {
    powers: [KeyPower; LANES],
    /// [`RESIDUE`], read from memory in the loop: as memory operands the
    /// masks cost no instruction of their own, where constants would each
    /// need a 10-byte `movabs` (or a register the loop does not have).
    masks: [u64; 4],
}

impl Key {
    /// Expands `h` (GCM byte order).
    pub(crate) fn new(h: &[u8; BLOCK_LEN]) -> Key {
        let h1 = key_to_polyval(h);
        let mut powers = [KeyPower::default(); LANES];
        let mut p = h1;
        for slot in powers.iter_mut().rev() {
            *slot = KeyPower::new(p);
            p = mul(p, h1);
        }
        p.zeroize();
        Key {
            powers,
            masks: RESIDUE,
        }
    }

    pub(crate) fn zeroize(&mut self) {
        self.powers.iter_mut().for_each(KeyPower::zeroize);
    }
}

/// GCM's H in POLYVAL form: `mulX(rev(H))` (RFC 8452, Appendix A), where
/// `rev` then a little-endian read is a big-endian read.
#[inline]
pub(crate) fn key_to_polyval(h: &[u8; BLOCK_LEN]) -> u128 {
    let h = u128::from_be_bytes(*h);
    // Multiply by x: shift, and where x^128 appears replace it by
    // x^127 + x^126 + x^121 + 1. The mask is all ones or zero, no branch.
    let carry = 0u128.wrapping_sub(h >> 127);
    (h << 1) ^ (carry & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

/// 64x64 -> 128-bit carry-less product of `x` and a prepared key word.
#[inline(always)]
fn clmul64(x: u64, k: &KeyWord, masks: &[u64; 4]) -> u128 {
    // The data's residue-i bits, moved down to residue 0.
    let xs = [0, 1, 2, 3].map(|i| (x >> i) & masks[0]);
    let m = |a: u64, b: u64| u128::from(a).wrapping_mul(u128::from(b));
    // Sub-products of residues (i, j) land on bits i + j (mod 4): residue
    // r collects the four with j = r - i. One residue at a time, masked
    // at once.
    let mut low = 0;
    for (r, g) in k.parts.iter().enumerate() {
        let z = m(xs[0], g[0]) ^ m(xs[1], g[1]) ^ m(xs[2], g[2]) ^ m(xs[3], g[3]);
        // The mask in both halves.
        let m = u128::from(masks[r]) * ((1 << 64) | 1);
        low |= z & m;
    }
    // The key word's bits 60..63: x << (60 + t) where bit 60 + t is set.
    let t = &k.top;
    low ^ (u128::from(x & t[0]) << 60)
        ^ (u128::from(x & t[1]) << 61)
        ^ (u128::from(x & t[2]) << 62)
        ^ (u128::from(x & t[3]) << 63)
}

/// An unreduced 256-bit product in Karatsuba form: the value is
/// `lo + (mid ^ lo ^ hi) x^64 + hi x^128`.
#[derive(Default)]
struct Wide {
    lo: u128,
    mid: u128,
    hi: u128,
}

impl Wide {
    /// Adds `x * p` (unreduced).
    #[inline(always)]
    fn mul_add(&mut self, x: u128, p: &KeyPower, masks: &[u64; 4]) {
        let (lo, hi) = (x as u64, (x >> 64) as u64);
        self.lo ^= clmul64(lo, &p.lo, masks);
        self.hi ^= clmul64(hi, &p.hi, masks);
        self.mid ^= clmul64(lo ^ hi, &p.mid, masks);
    }

    /// `value * x^-128 mod P`: POLYVAL's Montgomery reduction.
    #[inline(always)]
    fn reduce(self) -> u128 {
        reduce(self.lo, self.mid ^ self.lo ^ self.hi, self.hi)
    }
}

/// `(lo + mid x^64 + hi x^128) * x^-128 mod P`, with P = x^128 + x^127 +
/// x^126 + x^121 + 1. Twice, the low 64 bits `a` are cancelled by adding
/// `a * P`: `a` moves up by 128 bits and `a * (x^127 + x^126 + x^121)`
/// becomes `x^64 * (a * c)` with `c = x^63 + x^62 + x^57`, here three
/// shifts (the x86 kernels do the same product with one PCLMULQDQ). This
/// is the Montgomery-style reduction of Gueron's POLYVAL work (RFC 8452;
/// Gueron and Kounavis, Intel's carry-less multiplication white paper,
/// rev. 2.02).
#[inline(always)]
pub(crate) fn reduce(lo: u128, mid: u128, hi: u128) -> u128 {
    #[inline(always)]
    fn times_c(a: u64) -> u128 {
        let a = u128::from(a);
        (a << 63) ^ (a << 62) ^ (a << 57)
    }
    // Bits 0..63 go: lo's high word is at the same place as mid's low one.
    let mid = mid ^ lo.rotate_left(64) ^ times_c(lo as u64);
    // Bits 64..127 go the same way.
    hi ^ mid.rotate_left(64) ^ times_c(mid as u64)
}

/// POLYVAL's field multiplication `a * b * x^-128 mod P` (key setup only).
pub(crate) fn mul(a: u128, b: u128) -> u128 {
    let mut w = Wide::default();
    w.mul_add(a, &KeyPower::new(b), &RESIDUE);
    w.reduce()
}

/// Absorbs the whole blocks of `data` into `acc`.
pub(crate) fn update(key: &Key, acc: &mut u128, data: &[u8]) {
    let mut y = *acc;
    let mut groups = data.chunks_exact(LANES * BLOCK_LEN);
    for group in &mut groups {
        let mut w = Wide::default();
        for (i, (b, p)) in group.chunks_exact(BLOCK_LEN).zip(&key.powers).enumerate() {
            let mut x = read(b);
            if i == 0 {
                x ^= y;
            }
            w.mul_add(x, p, &key.masks);
        }
        y = w.reduce();
    }
    // Fewer than LANES blocks left: the last n meet H^n..H^1.
    let rest = groups.remainder();
    if !rest.is_empty() {
        let n = rest.len() / BLOCK_LEN;
        let mut w = Wide::default();
        for (i, (b, p)) in rest
            .chunks_exact(BLOCK_LEN)
            .zip(&key.powers[LANES - n..])
            .enumerate()
        {
            let mut x = read(b);
            if i == 0 {
                x ^= y;
            }
            w.mul_add(x, p, &key.masks);
        }
        y = w.reduce();
    }
    *acc = y;
}

#[inline(always)]
fn read(b: &[u8]) -> u128 {
    let mut a = [0u8; BLOCK_LEN];
    a.copy_from_slice(b);
    u128::from_be_bytes(a)
}
