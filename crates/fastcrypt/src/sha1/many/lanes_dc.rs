//! Collision detection in the lane kernels (see `sha1::dc` for the
//! algorithm): the unavoidable-bit-condition filter and the
//! recompressions run on the same vectors as the rounds, one block of a
//! different message per lane.
//!
//! - The filter tests every condition for all lanes at once: a few vector
//!   instructions per condition and no branch. (The one-stream kernels run
//!   a prefix and test the rest per surviving candidate; with 16 blocks in
//!   flight some lane nearly always survives a prefix, so that saves
//!   nothing here.)
//! - About one block in twenty of random data leaves the filter with a
//!   candidate disturbance vector. For each vector that some lane has as a
//!   candidate, the recompression runs for all lanes (each from its own
//!   saved test-step state), and only the lanes that had it count: one
//!   vectorised recompression per vector instead of one scalar one per
//!   (block, vector).
//! - A lane whose recompression matches is part of an attack; that block
//!   is redone by the one-stream detector, which reports the collision,
//!   applies the safe hash and calls back exactly as `Sha1Dc` does. Only
//!   attack data gets there.

use super::super::dc::{dv_difference, LANE_CONDS};
use super::lanes::{compress_block, Keep, LaneVec, K};

/// What the detector keeps of a block's compression.
pub(super) struct DcKeep<V> {
    w: [V; 80],
    s58: [V; 5],
    s65: [V; 5],
}

impl<V: Copy> Keep<V> for DcKeep<V> {
    #[inline(always)]
    fn w(&mut self, t: usize, v: V) {
        self.w[t] = v;
    }
    #[inline(always)]
    fn state(&mut self, t: usize, s: [V; 5]) {
        if t == 58 {
            self.s58 = s;
        } else {
            self.s65 = s;
        }
    }
}

/// The candidate masks of the filter: lane `i` of the result has bit `d`
/// set when no condition rules out disturbance vector `d` for lane `i`'s
/// block.
///
/// # Safety
///
/// As [`compress_block`]: `V`'s kernel's features must be enabled.
#[inline(always)]
unsafe fn filter<V: LaneVec>(w: &[V; 80]) -> V {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let mut kill = V::splat(0);
        // Two runs of at most 80 (the limit of `unroll!`).
        const HALF: usize = LANE_CONDS.len() / 2;
        unroll!(HALF, |I| {
            let c = &LANE_CONDS[I];
            kill = V::kill_if::<{ LANE_CONDS[I].shl }, { LANE_CONDS[I].shr }>(
                kill, w[c.a], w[c.b], c.bit, c.expect, c.dvs,
            );
        });
        unroll!(LANE_CONDS.len() - HALF, |I| {
            let c = &LANE_CONDS[HALF + I];
            kill = V::kill_if::<{ LANE_CONDS[HALF + I].shl }, { LANE_CONDS[HALF + I].shr }>(
                kill, w[c.a], w[c.b], c.bit, c.expect, c.dvs,
            );
        });
        kill.xor(V::splat(!0))
    }
}

/// SHA-1 steps `from..to` of the message `w ^ dm` (the other block of a
/// near-collision along a disturbance vector) from the working state `s`,
/// in every lane.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
unsafe fn forward<V: LaneVec>(
    s: [V; 5],
    w: &[V; 80],
    dm: &[u32; 80],
    from: usize,
    to: usize,
) -> [V; 5] {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let [mut a, mut b, mut c, mut d, mut e] = s;
        macro_rules! steps {
            ($lo:expr, $hi:expr, $k:expr, $f:ident) => {
                let k = V::splat($k);
                for t in from.clamp($lo, $hi)..to.clamp($lo, $hi) {
                    let m = w[t].xor(V::splat(dm[t]));
                    let n = a.rol5().add(V::$f(b, c, d)).add(e.add(m.add(k)));
                    (a, b, c, d, e) = (n, a, b.rol30(), c, d);
                }
            };
        }
        steps!(0, 20, K[0], ch);
        steps!(20, 40, K[1], parity);
        steps!(40, 60, K[2], maj);
        steps!(60, 80, K[3], parity);
        [a, b, c, d, e]
    }
}

/// The lanes whose five words are equal in `x` and `y`.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
unsafe fn eq5<V: LaneVec>(x: [V; 5], y: [V; 5]) -> u32 {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        x[0].eq_lanes(y[0])
            & x[1].eq_lanes(y[1])
            & x[2].eq_lanes(y[2])
            & x[3].eq_lanes(y[3])
            & x[4].eq_lanes(y[4])
    }
}

/// The recompressions of one block per lane: for every disturbance
/// vector some lane of `mask` has as a candidate, the test of that vector
/// in every lane, counted for the lanes that have it. Returns the lanes
/// where a test matched: the other block of the near-collision ends in the
/// block's output chaining value `ihv_out`, or (with `reduced_round`)
/// starts from its input `ihv_in`. The forward-only form of the
/// reference's test, as `dc::check_block` explains.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
unsafe fn check<V: LaneVec>(
    mask: V,
    keep: &DcKeep<V>,
    ihv_in: [V; 5],
    ihv_out: [V; 5],
    reduced_round: bool,
) -> u32 {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let mut dvs = mask.or_lanes();
        let mut hits = 0;
        while dvs != 0 {
            let d = dvs.trailing_zeros() as usize;
            dvs &= dvs - 1;
            let lanes = mask.any_lanes(1 << d);
            let (dm, tt) = dv_difference(d);
            let st = match tt {
                58 => keep.s58,
                65 => keep.s65,
                _ => forward(ihv_in, &keep.w, &[0; 80], 0, tt),
            };
            let f2 = forward(st, &keep.w, dm, tt, 80);
            let x = [
                ihv_out[0].sub(f2[0]),
                ihv_out[1].sub(f2[1]),
                ihv_out[2].sub(f2[2]),
                ihv_out[3].sub(f2[3]),
                ihv_out[4].sub(f2[4]),
            ];
            let mut hit = eq5(forward(x, &keep.w, dm, 0, tt), st);
            if reduced_round {
                hit |= eq5(forward(ihv_in, &keep.w, dm, 0, tt), st);
            }
            hits |= hit & lanes;
        }
        hits
    }
}

/// Compresses one block per lane into `s`, as [`compress_block`], with
/// collision detection: returns the lanes whose block is part of an
/// attack (see [`check`]) and the chaining values the block started from.
///
/// # Safety
///
/// As [`compress_block`].
#[inline(always)]
pub(super) unsafe fn compress_block_dc<V: LaneVec>(
    s: &mut [V; 5],
    w: [V; 16],
    reduced_round: bool,
) -> (u32, [V; 5]) {
    // SAFETY: the caller's entry point enables `V`'s features.
    unsafe {
        let ihv_in = *s;
        let zero = V::splat(0);
        let mut keep = DcKeep {
            w: [zero; 80],
            s58: [zero; 5],
            s65: [zero; 5],
        };
        compress_block(s, w, &mut keep);
        let mask = filter(&keep.w);
        let hits = if mask.nonzero_lanes() == 0 {
            0
        } else {
            check(mask, &keep, ihv_in, *s, reduced_round)
        };
        (hits, ihv_in)
    }
}

/// Tests of the lane detector's parts, generic over the vector type;
/// each kernel runs them with its features enabled.
#[cfg(test)]
pub(super) mod tests {
    use super::super::super::dc::{expand, ubc_mask, Forward, ScalarSteps};
    use super::*;

    fn xorshift(x: &mut u64) -> u32 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x as u32
    }

    /// Word `t` of every lane's `w`, as one vector.
    unsafe fn column<V: LaneVec>(w: &[[u32; 80]], t: usize) -> V {
        let col: alloc::vec::Vec<u32> = w.iter().map(|w| w[t]).collect();
        // SAFETY: the caller enables `V`'s features.
        unsafe { V::load(&col) }
    }

    unsafe fn columns<V: LaneVec>(s: &[[u32; 5]]) -> [V; 5] {
        let w: alloc::vec::Vec<[u32; 80]> = s
            .iter()
            .map(|s| core::array::from_fn(|t| if t < 5 { s[t] } else { 0 }))
            .collect();
        // SAFETY: the caller enables `V`'s features.
        core::array::from_fn(|i| unsafe { column(&w, i) })
    }

    /// The filter's masks against the table's, lane by lane, on random
    /// blocks and on sparse ones (few bits set: many candidates survive,
    /// so every condition decides some lane).
    ///
    /// # Safety
    ///
    /// `V`'s kernel's features must be enabled.
    pub(in super::super) unsafe fn filter_matches_the_table<V: LaneVec>() {
        let mut x = 0x5EED_F117_u64;
        for round in 0..3000 {
            let w: alloc::vec::Vec<[u32; 80]> = (0..V::LANES)
                .map(|_| {
                    let block: [u8; 64] = core::array::from_fn(|_| {
                        let r = xorshift(&mut x);
                        if round % 2 == 0 {
                            r as u8
                        } else {
                            (r & r >> 8 & r >> 16 & r >> 24) as u8
                        }
                    });
                    expand(&block)
                })
                .collect();
            // SAFETY: the caller enables `V`'s features.
            let got = unsafe {
                let wv: [V; 80] = core::array::from_fn(|t| column(&w, t));
                let mut out = [0u32; 16];
                filter(&wv).store(&mut out);
                out
            };
            for (lane, w) in w.iter().enumerate() {
                assert_eq!(got[lane], ubc_mask(w), "round {round}, lane {lane}");
            }
        }
    }

    /// The recompression test for every disturbance vector: lanes whose
    /// output chaining value was constructed to match must hit, the same
    /// with one bit flipped must not, and with reduced-round detection a
    /// lane whose input is the other block's must hit.
    ///
    /// # Safety
    ///
    /// `V`'s kernel's features must be enabled.
    pub(in super::super) unsafe fn check_matches_the_test<V: LaneVec>() {
        let mut x = 0x0DDC_0FFE_u64;
        let lanes = V::LANES;
        for d in 0..32 {
            let (dm, tt) = dv_difference(d);
            let mut w = alloc::vec::Vec::new();
            let (mut st, mut out, mut ihv_in, mut want, mut want_rr) = (
                alloc::vec::Vec::new(),
                alloc::vec::Vec::new(),
                alloc::vec::Vec::new(),
                0,
                0,
            );
            for lane in 0..lanes {
                let block: [u8; 64] = core::array::from_fn(|_| xorshift(&mut x) as u8);
                let wl = expand(&block);
                let m2: [u32; 80] = core::array::from_fn(|t| wl[t] ^ dm[t]);
                let ihv2: [u32; 5] = core::array::from_fn(|_| xorshift(&mut x));
                let s = ScalarSteps.forward(ihv2, &m2, 0, tt);
                let f2 = ScalarSteps.forward(s, &m2, tt, 80);
                let mut o: [u32; 5] = core::array::from_fn(|i| ihv2[i].wrapping_add(f2[i]));
                let mut input: [u32; 5] = core::array::from_fn(|_| xorshift(&mut x));
                match lane % 3 {
                    0 => want |= 1 << lane,
                    1 => o[lane % 5] ^= 1 << (lane % 32),
                    _ => {
                        o[0] ^= 1;
                        input = ihv2;
                        want_rr |= 1 << lane;
                    }
                }
                w.push(wl);
                st.push(s);
                out.push(o);
                ihv_in.push(input);
            }
            // SAFETY: the caller enables `V`'s features.
            unsafe {
                let keep = DcKeep {
                    w: core::array::from_fn(|t| column(&w, t)),
                    s58: columns(&st),
                    s65: columns(&st),
                };
                let mask = V::splat(1 << d);
                let (ihv_in, out) = (columns(&ihv_in), columns(&out));
                assert_eq!(check(mask, &keep, ihv_in, out, false), want, "DV {d}");
                assert_eq!(
                    check(mask, &keep, ihv_in, out, true),
                    want | want_rr,
                    "DV {d}, reduced-round"
                );
                // A lane without the candidate never counts.
                let other = V::splat(1 << ((d + 1) % 32));
                assert_eq!(
                    check(other, &keep, ihv_in, out, true) & want,
                    0,
                    "DV {d}, masked"
                );
            }
        }
    }
}
