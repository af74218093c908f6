//! The SHA-1 compression of the lane kernels, once for every register
//! width: lane `i` of each vector holds word `i` of one message's state or
//! schedule, so one instruction does a round's operation for every
//! message at once (the "multi-buffer" layout of Intel's ISA-L and of
//! OpenSSL's `sha1-mb`). The kernels (`x86_avx2.rs`, `x86_avx512.rs`)
//! supply the vector type's operations, the transposing load and the entry
//! points with their target features.

/// The operations the rounds need, on a vector of 32-bit lanes. Every
/// method is `unsafe`: it emits instructions of the implementing kernel's
/// target features, so only that kernel's entry point (which enables
/// them) may call it.
pub(super) trait LaneVec: Copy {
    /// Every lane `x`.
    unsafe fn splat(x: u32) -> Self;
    /// Lane-wise wrapping add.
    unsafe fn add(self, o: Self) -> Self;
    /// `self ^ b ^ c ^ d`: the schedule's four-term XOR.
    unsafe fn xor4(self, b: Self, c: Self, d: Self) -> Self;
    /// `(b & c) | (!b & d)`: rounds 0-19.
    unsafe fn ch(b: Self, c: Self, d: Self) -> Self;
    /// `b ^ c ^ d`: rounds 20-39 and 60-79.
    unsafe fn parity(b: Self, c: Self, d: Self) -> Self;
    /// `(b & c) | (b & d) | (c & d)`: rounds 40-59.
    unsafe fn maj(b: Self, c: Self, d: Self) -> Self;
    /// Rotate left by 1 (the schedule).
    unsafe fn rol1(self) -> Self;
    /// Rotate left by 5 (A into the round sum).
    unsafe fn rol5(self) -> Self;
    /// Rotate left by 30 (B into C).
    unsafe fn rol30(self) -> Self;
}

const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

/// Round `$t`: the schedule word (in place in the 16-word ring) and the
/// round on the names given; the caller rotates names, not values.
macro_rules! round {
    ($w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:ident) => {
        if $t >= 16 {
            $w[$t & 15] = $w[($t + 13) & 15]
                .xor4($w[($t + 8) & 15], $w[($t + 2) & 15], $w[$t & 15])
                .rol1();
        }
        // The sum not involving A first, so the chain from one round's A
        // to the next is one rotate and one add.
        $e = $e
            .add($w[$t & 15].add($k))
            .add(V::$f($b, $c, $d))
            .add($a.rol5());
        $b = $b.rol30();
    };
}

/// Five rounds from `$t`, after which the names are back in their roles.
macro_rules! rounds5 {
    ($w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:ident) => {
        round!($w, $t, $a, $b, $c, $d, $e, $f, $k);
        round!($w, $t + 1, $e, $a, $b, $c, $d, $f, $k);
        round!($w, $t + 2, $d, $e, $a, $b, $c, $f, $k);
        round!($w, $t + 3, $c, $d, $e, $a, $b, $f, $k);
        round!($w, $t + 4, $b, $c, $d, $e, $a, $f, $k);
    };
}

/// Compresses one block per lane into `s` (A..E, one message per lane);
/// `w` holds the blocks' 16 message words, word `t` of every message in
/// `w[t]`, and is used as the schedule ring.
///
/// # Safety
///
/// The CPU must have the target features of `V`'s kernel, and the caller
/// must have them enabled (this inlines into its entry point).
#[inline(always)]
pub(super) unsafe fn compress_block<V: LaneVec>(s: &mut [V; 5], mut w: [V; 16]) {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let [mut a, mut b, mut c, mut d, mut e] = *s;
        let k0 = V::splat(K[0]);
        rounds5!(w, 0, a, b, c, d, e, ch, k0);
        rounds5!(w, 5, a, b, c, d, e, ch, k0);
        rounds5!(w, 10, a, b, c, d, e, ch, k0);
        rounds5!(w, 15, a, b, c, d, e, ch, k0);
        let k1 = V::splat(K[1]);
        rounds5!(w, 20, a, b, c, d, e, parity, k1);
        rounds5!(w, 25, a, b, c, d, e, parity, k1);
        rounds5!(w, 30, a, b, c, d, e, parity, k1);
        rounds5!(w, 35, a, b, c, d, e, parity, k1);
        let k2 = V::splat(K[2]);
        rounds5!(w, 40, a, b, c, d, e, maj, k2);
        rounds5!(w, 45, a, b, c, d, e, maj, k2);
        rounds5!(w, 50, a, b, c, d, e, maj, k2);
        rounds5!(w, 55, a, b, c, d, e, maj, k2);
        let k3 = V::splat(K[3]);
        rounds5!(w, 60, a, b, c, d, e, parity, k3);
        rounds5!(w, 65, a, b, c, d, e, parity, k3);
        rounds5!(w, 70, a, b, c, d, e, parity, k3);
        rounds5!(w, 75, a, b, c, d, e, parity, k3);
        *s = [
            s[0].add(a),
            s[1].add(b),
            s[2].add(c),
            s[3].add(d),
            s[4].add(e),
        ];
    }
}
