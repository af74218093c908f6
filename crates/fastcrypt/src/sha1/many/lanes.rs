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
pub(crate) trait LaneVec: Copy {
    /// How many 32-bit lanes a vector has.
    const LANES: usize;
    /// The first [`LANES`](Self::LANES) words of `p` (which has at least
    /// that many).
    unsafe fn load(p: &[u32]) -> Self;
    /// Writes the lanes to the first [`LANES`](Self::LANES) words of `p`.
    unsafe fn store(self, p: &mut [u32]);
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

    // What the collision detector adds (`lanes_dc.rs`).

    /// Lane-wise wrapping subtract.
    unsafe fn sub(self, o: Self) -> Self;
    /// Lane-wise XOR.
    unsafe fn xor(self, o: Self) -> Self;
    /// One unavoidable bit condition: `kill` with `dvs` or-ed into each
    /// lane where `((wa ^ (wb << SHL >> SHR)) ^ expect) & bit != 0`.
    unsafe fn kill_if<const SHL: u32, const SHR: u32>(
        kill: Self,
        wa: Self,
        wb: Self,
        bit: u32,
        expect: u32,
        dvs: u32,
    ) -> Self;
    /// Bit `i` set for each lane `i` that is not zero.
    unsafe fn nonzero_lanes(self) -> u32;
    /// Bit `i` set for each lane `i` equal in both.
    unsafe fn eq_lanes(self, o: Self) -> u32;
    /// Lane `i` (below [`LANES`](Self::LANES)).
    unsafe fn lane(self, i: usize) -> u32;
    /// `lanes_dc::test` on this vector type, as one out-of-line function
    /// of the kernel's (it runs for one block set in about sixteen).
    unsafe fn test_batch(b: &super::lanes_dc::Batch, tt: usize, reduced_round: bool) -> u32;
}

/// What a compression hands out besides the new state: the collision
/// detector's kernels keep the working states before steps 58 and 65
/// (the test steps); plain ones keep nothing.
pub(super) trait Keep<V> {
    /// The state (A..E) before step `t`, for `t` 58 and 65.
    fn state(&mut self, t: usize, s: [V; 5]);
}

/// Keeps nothing: plain SHA-1.
pub(super) struct NoKeep;

impl<V> Keep<V> for NoKeep {
    #[inline(always)]
    fn state(&mut self, _: usize, _: [V; 5]) {}
}

/// `core::array::from_fn` for the kernels' vector arrays, always inlined
/// into the caller. `from_fn` itself is only `#[inline]`: where it stayed
/// a function, it was compiled without the kernel's target features and
/// called the closure once per element, moving every 512-bit vector
/// through memory in 128-bit pieces (6% of the AVX-512 lanes' time).
#[inline(always)]
pub(super) fn each<T: Copy, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let first = f(0);
    let mut out = [first; N];
    for (i, x) in out.iter_mut().enumerate().skip(1) {
        *x = f(i);
    }
    out
}

use super::super::dc::{LANE_CONDS, LANE_CONDS_AT, LANE_CONDS_MAX};

pub(super) const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

/// Round `$t`: the schedule word (in place in the 16-word ring) and the
/// round on the names given; the caller rotates names, not values.
macro_rules! round {
    ($keep:ident, $kill:ident, $w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:ident) => {
        if $t >= 16 {
            $w[$t & 15] = $w[($t + 13) & 15]
                .xor4($w[($t + 8) & 15], $w[($t + 2) & 15], $w[$t & 15])
                .rol1();
        }
        if FILTER {
            // The collision detector's conditions whose later word is
            // this one: both words are in the ring, so no load or store.
            unroll!(LANE_CONDS_MAX, |J| {
                if J < LANE_CONDS_AT[$t].1 {
                    // (Evaluated for every `J`: in range even when unused.)
                    const C: usize = if J < LANE_CONDS_AT[$t].1 {
                        LANE_CONDS_AT[$t].0 + J
                    } else {
                        0
                    };
                    let c = &LANE_CONDS[C];
                    $kill = V::kill_if::<{ LANE_CONDS[C].shl }, { LANE_CONDS[C].shr }>(
                        $kill,
                        $w[c.a & 15],
                        $w[c.b & 15],
                        c.bit,
                        c.expect,
                        c.dvs,
                    );
                }
            });
        }
        if $t == 58 || $t == 65 {
            $keep.state($t, [$a, $b, $c, $d, $e]);
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
    ($keep:ident, $kill:ident, $w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:ident) => {
        round!($keep, $kill, $w, $t, $a, $b, $c, $d, $e, $f, $k);
        round!($keep, $kill, $w, $t + 1, $e, $a, $b, $c, $d, $f, $k);
        round!($keep, $kill, $w, $t + 2, $d, $e, $a, $b, $c, $f, $k);
        round!($keep, $kill, $w, $t + 3, $c, $d, $e, $a, $b, $f, $k);
        round!($keep, $kill, $w, $t + 4, $b, $c, $d, $e, $a, $f, $k);
    };
}

/// Compresses one block per lane into `s` (A..E, one message per lane);
/// `w` holds the blocks' 16 message words, word `t` of every message in
/// `w[t]`, and is used as the schedule ring; `keep` gets what it asks for.
/// With `FILTER`, the collision detector's unavoidable bit conditions are
/// tested as the schedule words appear (see `lanes_dc.rs`), and the result
/// is each lane's mask of the disturbance vectors they rule out (zero
/// without `FILTER`).
///
/// # Safety
///
/// The CPU must have the target features of `V`'s kernel, and the caller
/// must have them enabled (this inlines into its entry point).
#[inline(always)]
pub(super) unsafe fn compress_block<V: LaneVec, P: Keep<V>, const FILTER: bool>(
    s: &mut [V; 5],
    mut w: [V; 16],
    keep: &mut P,
) -> V {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let mut kill = V::splat(0);
        let [mut a, mut b, mut c, mut d, mut e] = *s;
        let k0 = V::splat(K[0]);
        rounds5!(keep, kill, w, 0, a, b, c, d, e, ch, k0);
        rounds5!(keep, kill, w, 5, a, b, c, d, e, ch, k0);
        rounds5!(keep, kill, w, 10, a, b, c, d, e, ch, k0);
        rounds5!(keep, kill, w, 15, a, b, c, d, e, ch, k0);
        let k1 = V::splat(K[1]);
        rounds5!(keep, kill, w, 20, a, b, c, d, e, parity, k1);
        rounds5!(keep, kill, w, 25, a, b, c, d, e, parity, k1);
        rounds5!(keep, kill, w, 30, a, b, c, d, e, parity, k1);
        rounds5!(keep, kill, w, 35, a, b, c, d, e, parity, k1);
        let k2 = V::splat(K[2]);
        rounds5!(keep, kill, w, 40, a, b, c, d, e, maj, k2);
        rounds5!(keep, kill, w, 45, a, b, c, d, e, maj, k2);
        rounds5!(keep, kill, w, 50, a, b, c, d, e, maj, k2);
        rounds5!(keep, kill, w, 55, a, b, c, d, e, maj, k2);
        let k3 = V::splat(K[3]);
        rounds5!(keep, kill, w, 60, a, b, c, d, e, parity, k3);
        rounds5!(keep, kill, w, 65, a, b, c, d, e, parity, k3);
        rounds5!(keep, kill, w, 70, a, b, c, d, e, parity, k3);
        rounds5!(keep, kill, w, 75, a, b, c, d, e, parity, k3);
        *s = [
            s[0].add(a),
            s[1].add(b),
            s[2].add(c),
            s[3].add(d),
            s[4].add(e),
        ];
        kill
    }
}

/// `n` PBKDF2-HMAC-SHA1 iterations (RFC 8018, section 5.2) on one chain
/// per lane: `u = HMAC(u)`, `t ^= u`. Each lane has its own password,
/// keyed once: `inner` and `outer` are the lanes' chaining values after
/// `key ^ ipad` and `key ^ opad`. The HMAC of a 20-byte `u` is then two
/// compressions of one block each, the 20 bytes followed by SHA-1's
/// padding for 84 bytes (one key block and the digest): from `inner`, and
/// from `outer` over the inner digest. The padding words are constants,
/// so the schedule steps that read only them fold away, and the first
/// round terms of each compression, which read only the loop-invariant
/// key state, are hoisted out of the loop.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(super) unsafe fn pbkdf2_iterations<V: LaneVec>(
    inner: &[V; 5],
    outer: &[V; 5],
    u: &mut [V; 5],
    t: &mut [V; 5],
    n: u32,
) {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let pad = V::splat(0x8000_0000);
        let zero = V::splat(0);
        let bits = V::splat(super::super::hmac::DIGEST_BLOCK_LEN_BITS as u32);
        let block = |d: &[V; 5]| {
            [
                d[0], d[1], d[2], d[3], d[4], pad, zero, zero, zero, zero, zero, zero, zero, zero,
                zero, bits,
            ]
        };
        for _ in 0..n {
            let mut s = *inner;
            compress_block::<_, _, false>(&mut s, block(u), &mut NoKeep);
            *u = *outer;
            compress_block::<_, _, false>(u, block(&s), &mut NoKeep);
            for (t, u) in t.iter_mut().zip(u.iter()) {
                *t = t.xor(*u);
            }
        }
    }
}
