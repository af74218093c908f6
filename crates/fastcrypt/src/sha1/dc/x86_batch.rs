//! The full tests of several candidate blocks at once, one disturbance
//! vector per vector lane: 8 with AVX2, 4 with SSE2.
//!
//! About one random block in twenty passes the filter, and each vector
//! it passes costs a recompression: some 76 scalar SHA-1 steps, bound by
//! the core's integer ports rather than by latency, so no interleaving
//! of scalar code makes it cheaper. The SSSE3 and AVX2 loops instead keep
//! their candidates in a [`Batch`] and test them together in vector
//! lanes ([`hits_avx2`], [`hits_sse2`]), which the rounds of those
//! kernels leave mostly idle. Only a candidate with a lane whose full
//! test holds (a block of an attack) goes on to the exact scalar check,
//! [`after_block`](super::after_block), which also does the reduced-round
//! test, the safe hash and the callback.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::{Expanded, TestStates, DVS, K};

/// The fewest vectors worth a batch: below it, scalar recompressions
/// are cheaper. On an AMD EPYC Zen 4 one scalar check took ~90 ns and a
/// batch of eight AVX2 lanes ~250 ns (`perf`, 1 MiB messages), so the
/// break-even is near three.
pub(crate) const MIN_LANES: usize = 3;

/// A block the filter left a candidate, waiting for its recompressions.
#[derive(Clone, Copy)]
pub(crate) struct Candidate {
    /// The block's index in the call's blocks.
    pub(crate) block: usize,
    /// Its chaining values.
    pub(crate) ihv_in: [u32; 5],
    pub(crate) ihv_out: [u32; 5],
    /// Its working states before the test steps.
    pub(crate) known: TestStates,
    /// The vectors it is a candidate for (bit `n`: `DVS[n]`).
    pub(crate) mask: u32,
    /// Its expanded message.
    pub(crate) w: Expanded,
}

/// Up to `L` candidates in block order, with at most `L` vectors between
/// them: one lane each.
pub(crate) struct Batch<const L: usize> {
    /// The first `len` are written. Not zeroed: a one-block call, which
    /// rarely has a candidate, would pay for zeroing 3 KiB.
    held: [MaybeUninit<Candidate>; L],
    len: usize,
    lanes: usize,
}

impl<const L: usize> Batch<L> {
    pub(crate) fn new() -> Self {
        Batch {
            held: [const { MaybeUninit::uninit() }; L],
            len: 0,
            lanes: 0,
        }
    }

    /// Whether a candidate for the vectors of `mask` fits beside the
    /// ones held.
    pub(crate) fn fits(&self, mask: u32) -> bool {
        self.lanes + mask.count_ones() as usize <= L
    }

    /// Adds a candidate after the ones held, built in place. Its
    /// schedule is copied with 16-byte moves, not LLVM's `memcpy` call.
    ///
    /// # Panics
    ///
    /// If it does not [fit](Self::fits).
    ///
    /// # Safety
    ///
    /// The CPU must have SSE2.
    #[inline(always)]
    pub(crate) unsafe fn push(
        &mut self,
        block: usize,
        ihv_in: [u32; 5],
        ihv_out: [u32; 5],
        known: TestStates,
        mask: u32,
        w: &Expanded,
    ) {
        assert!(self.fits(mask));
        let slot = self.held[self.len].as_mut_ptr();
        // SAFETY: `slot` points to a `Candidate` in `self.held`; every
        // field is written before `len` counts it. The caller guarantees
        // SSE2, and both schedules are 80 words.
        unsafe {
            core::ptr::addr_of_mut!((*slot).block).write(block);
            core::ptr::addr_of_mut!((*slot).ihv_in).write(ihv_in);
            core::ptr::addr_of_mut!((*slot).ihv_out).write(ihv_out);
            core::ptr::addr_of_mut!((*slot).known).write(known);
            core::ptr::addr_of_mut!((*slot).mask).write(mask);
            let dst: *mut __m128i = core::ptr::addr_of_mut!((*slot).w).cast();
            let src: *const __m128i = w.as_ptr().cast();
            // Unrolled: as a loop, LLVM turns it back into `memcpy`.
            unroll!(20, |I| {
                _mm_storeu_si128(dst.add(I), _mm_loadu_si128(src.add(I)));
            });
        }
        self.len += 1;
        self.lanes += mask.count_ones() as usize;
    }

    /// The candidates held, in the order they were pushed.
    pub(crate) fn held(&self) -> &[Candidate] {
        // SAFETY: the first `len` elements were written by `push`, and
        // `MaybeUninit<Candidate>` has `Candidate`'s layout.
        unsafe { core::slice::from_raw_parts(self.held.as_ptr().cast(), self.len) }
    }

    /// How many vectors the held candidates are tested for.
    pub(crate) fn lanes(&self) -> usize {
        self.lanes
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.lanes = 0;
    }
}

/// The vector operations [`hits`] needs, on 32-bit lanes.
trait Lanes: Copy {
    /// The number of lanes.
    const L: usize;
    /// # Safety
    /// `p` must be valid for reading `L` words; the CPU must have the
    /// instructions.
    unsafe fn load(p: *const u32) -> Self;
    /// # Safety
    /// The CPU must have the instructions (and so for every method).
    unsafe fn splat(x: u32) -> Self;
    unsafe fn add(self, y: Self) -> Self;
    unsafe fn sub(self, y: Self) -> Self;
    unsafe fn xor(self, y: Self) -> Self;
    unsafe fn and(self, y: Self) -> Self;
    unsafe fn or(self, y: Self) -> Self;
    /// Rotates left by `N`; `M` must be `32 - N`.
    unsafe fn rol<const N: i32, const M: i32>(self) -> Self;
    /// Bit `l` set iff lane `l` of `self` and `y` are equal.
    unsafe fn eq_bits(self, y: Self) -> u32;
}

impl Lanes for __m256i {
    const L: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        // SAFETY: as the caller guarantees.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: as the caller guarantees (and so below).
        unsafe { _mm256_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn add(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_add_epi32(self, y) }
    }
    #[inline(always)]
    unsafe fn sub(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_sub_epi32(self, y) }
    }
    #[inline(always)]
    unsafe fn xor(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_xor_si256(self, y) }
    }
    #[inline(always)]
    unsafe fn and(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_and_si256(self, y) }
    }
    #[inline(always)]
    unsafe fn or(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_or_si256(self, y) }
    }
    #[inline(always)]
    unsafe fn rol<const N: i32, const M: i32>(self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm256_or_si256(_mm256_slli_epi32::<N>(self), _mm256_srli_epi32::<M>(self)) }
    }
    #[inline(always)]
    unsafe fn eq_bits(self, y: Self) -> u32 {
        // SAFETY: see `splat`.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(self, y))) as u32 }
    }
}

impl Lanes for __m128i {
    const L: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        // SAFETY: as the caller guarantees.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: as the caller guarantees (and so below).
        unsafe { _mm_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn add(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_add_epi32(self, y) }
    }
    #[inline(always)]
    unsafe fn sub(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_sub_epi32(self, y) }
    }
    #[inline(always)]
    unsafe fn xor(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_xor_si128(self, y) }
    }
    #[inline(always)]
    unsafe fn and(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_and_si128(self, y) }
    }
    #[inline(always)]
    unsafe fn or(self, y: Self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_or_si128(self, y) }
    }
    #[inline(always)]
    unsafe fn rol<const N: i32, const M: i32>(self) -> Self {
        // SAFETY: see `splat`.
        unsafe { _mm_or_si128(_mm_slli_epi32::<N>(self), _mm_srli_epi32::<M>(self)) }
    }
    #[inline(always)]
    unsafe fn eq_bits(self, y: Self) -> u32 {
        // SAFETY: see `splat`.
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(self, y))) as u32 }
    }
}

/// SHA-1 steps `from..to` in every lane, one loop per round function.
///
/// # Safety
///
/// The CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn steps<V: Lanes>(s: &mut [V; 5], w: &[V; 80], from: usize, to: usize) {
    macro_rules! run {
        ($lo:expr, $hi:expr, $k:expr, |$x:ident, $y:ident, $z:ident| $f:expr) => {
            // SAFETY: the caller guarantees the instructions.
            unsafe {
                let k = V::splat($k);
                for &wt in &w[from.clamp($lo, $hi)..to.clamp($lo, $hi)] {
                    let [a, b, c, d, e] = *s;
                    let ($x, $y, $z) = (b, c, d);
                    let n = a.rol::<5, 27>().add($f).add(e.add(k).add(wt));
                    *s = [n, a, b.rol::<30, 2>(), c, d];
                }
            }
        };
    }
    run!(0, 20, K[0], |x, y, z| z.xor(x.and(y.xor(z))));
    run!(20, 40, K[1], |x, y, z| x.xor(y).xor(z));
    run!(40, 60, K[2], |x, y, z| x.and(y).or(z.and(x.xor(y))));
    run!(60, 80, K[3], |x, y, z| x.xor(y).xor(z));
}

/// Which held candidates have a vector whose full test holds (bit `j`:
/// candidate `j`), the test of [`Forward::full_test`](super::Forward):
/// with `F2` the steps `tt..80` of `m2` from the state `st` before the
/// test step `tt`, the steps `0..tt` of `m2` from `ihv_out - F2` must
/// reach `st`. A candidate with no bit set is clean; one with a bit set
/// needs [`after_block`](super::after_block).
///
/// # Safety
///
/// The CPU must have `V`'s instructions, and `L` must be `V::L`.
#[inline(always)]
unsafe fn hits<V: Lanes, const L: usize>(batch: &Batch<L>) -> u32 {
    debug_assert_eq!(L, V::L);
    // Lane `l` tests vector `dv[l]` of candidate `owner[l]`. Lanes past
    // `used` test zeros, and their answers are dropped.
    let mut w16 = [[0u32; L]; 16];
    let mut st = [[0u32; L]; 5];
    let mut out = [[0u32; L]; 5];
    let mut late = [0u32; L];
    let mut owner = [0u32; L];
    let mut used = 0;
    for (j, c) in batch.held().iter().enumerate() {
        let mut mask = c.mask;
        while mask != 0 {
            let dv = &DVS[mask.trailing_zeros() as usize];
            mask &= mask - 1;
            for (t, x) in w16.iter_mut().enumerate() {
                x[used] = c.w[t] ^ dv.dm[t];
            }
            let s = if dv.test_step == 58 {
                c.known.s58
            } else {
                late[used] = !0;
                c.known.s65
            };
            for i in 0..5 {
                st[i][used] = s[i];
                out[i][used] = c.ihv_out[i];
            }
            owner[used] = j as u32;
            used += 1;
        }
    }
    // SAFETY: every pointer is to an array of `L` words, and the caller
    // guarantees the instructions.
    unsafe {
        // The other message, `m2 = w ^ dm`, follows SHA-1's message
        // expansion as both `w` and `dm` do: expand it from 16 words.
        let mut m2 = [V::splat(0); 80];
        for t in 0..16 {
            m2[t] = V::load(w16[t].as_ptr());
        }
        for t in 16..80 {
            m2[t] = m2[t - 3]
                .xor(m2[t - 8])
                .xor(m2[t - 14])
                .xor(m2[t - 16])
                .rol::<1, 31>();
        }
        let st: [V; 5] = core::array::from_fn(|i| V::load(st[i].as_ptr()));
        let late = V::load(late.as_ptr());
        // Steps 58..80 from each lane's test state; the lanes tested at
        // step 65 take theirs there.
        let mut s = st;
        steps(&mut s, &m2, 58, 65);
        for i in 0..5 {
            s[i] = s[i].xor(s[i].xor(st[i]).and(late));
        }
        steps(&mut s, &m2, 65, 80);
        // The other block's input, and the steps from it to the test.
        for i in 0..5 {
            s[i] = V::load(out[i].as_ptr()).sub(s[i]);
        }
        steps(&mut s, &m2, 0, 58);
        let all = |s: &[V; 5]| (0..5).fold(!0u32, |m, i| m & s[i].eq_bits(st[i]));
        let late_bits = late.eq_bits(V::splat(!0));
        let mut lanes = all(&s) & !late_bits;
        if late_bits != 0 {
            steps(&mut s, &m2, 58, 65);
            lanes |= all(&s) & late_bits;
        }
        lanes &= (1u32 << used) - 1;
        let mut cands = 0;
        while lanes != 0 {
            cands |= 1 << owner[lanes.trailing_zeros() as usize];
            lanes &= lanes - 1;
        }
        cands
    }
}

/// [`hits`] in the 8 lanes of AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn hits_avx2(batch: &Batch<8>) -> u32 {
    // SAFETY: the caller guarantees AVX2.
    unsafe { hits::<__m256i, 8>(batch) }
}

/// [`hits`] in the 4 lanes of SSE2.
///
/// # Safety
///
/// The CPU must have SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn hits_sse2(batch: &Batch<4>) -> u32 {
    // SAFETY: the caller guarantees SSE2.
    unsafe { hits::<__m128i, 4>(batch) }
}

#[cfg(test)]
mod tests {
    use super::super::{check_block, compress_expanded, expand, unstep, DcConfig, ScalarSteps};
    use super::super::{Forward, DVS};
    use super::*;
    use crate::cpu::{Avx2Token, Sse2Token};

    /// A random candidate, and whether the scalar check finds a match.
    /// Random blocks never match, so one in three is made to: the output
    /// of one of its vectors is set to the other block's, which the
    /// reference's backward steps give.
    fn candidate(rnd: &mut impl FnMut() -> u32, block: usize) -> (Candidate, bool) {
        let bytes: [u8; 64] = core::array::from_fn(|_| rnd() as u8);
        let w = expand(&bytes);
        let ihv_in: [u32; 5] = core::array::from_fn(|_| rnd());
        let mut ihv_out = ihv_in;
        compress_expanded(&mut ihv_out, &w);
        let known = TestStates {
            s58: ScalarSteps.forward(ihv_in, &w, 0, 58),
            s65: ScalarSteps.forward(ihv_in, &w, 0, 65),
        };
        // One to three vectors, mixing test steps 58 and 65.
        let mut mask = 0u32;
        for _ in 0..1 + rnd() % 3 {
            mask |= 1 << (rnd() % 32);
        }
        if rnd().is_multiple_of(3) {
            // One of the mask's vectors, at random.
            let pick = rnd() % mask.count_ones();
            let n = (0..32)
                .filter(|&n| mask >> n & 1 != 0)
                .nth(pick as usize)
                .unwrap();
            let dv = &DVS[n];
            let tt = dv.test_step;
            let st = if tt == 58 { known.s58 } else { known.s65 };
            let m2: Expanded = core::array::from_fn(|t| w[t] ^ dv.dm[t]);
            let ihv2 = (0..tt).rev().fold(st, |s, t| unstep(s, t, m2[t]));
            let f2 = ScalarSteps.forward(st, &m2, tt, 80);
            ihv_out = core::array::from_fn(|i| ihv2[i].wrapping_add(f2[i]));
        }
        let cfg = DcConfig::default();
        let hit = check_block(
            &cfg,
            0,
            ihv_in,
            ihv_out,
            &w,
            mask,
            Some(known),
            &ScalarSteps,
        );
        let c = Candidate {
            block,
            ihv_in,
            ihv_out,
            known,
            mask,
            w,
        };
        (c, hit.is_some())
    }

    /// Fills batches of `L` lanes with random candidates and compares the
    /// lanes' verdicts with the scalar check's.
    fn lanes_equal_the_scalar_check<const L: usize>(hits: impl Fn(&Batch<L>) -> u32) {
        let mut rand = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15 ^ L as u64);
        let mut rnd = move || rand() as u32;
        let (mut matches, mut late_and_not) = (0, 0);
        for round in 0..400 {
            let mut batch = Batch::<L>::new();
            let mut want = 0u32;
            for j in 0..L {
                let (c, hit) = candidate(&mut rnd, j);
                if !batch.fits(c.mask) {
                    break;
                }
                // SAFETY: SSE2 is in every x86 CPU this test runs on (the
                // callers check for it).
                unsafe { batch.push(c.block, c.ihv_in, c.ihv_out, c.known, c.mask, &c.w) };
                want |= u32::from(hit) << j;
            }
            let got = hits(&batch);
            assert_eq!(got, want, "round {round}");
            matches += want.count_ones();
            let tts = batch.held().iter().fold(0, |m, c| {
                let mut r = c.mask;
                let mut t = 0;
                while r != 0 {
                    t |= if DVS[r.trailing_zeros() as usize].test_step == 58 {
                        1
                    } else {
                        2
                    };
                    r &= r - 1;
                }
                m | t
            });
            late_and_not += u32::from(tts == 3);
        }
        assert!(
            matches > 200 && late_and_not > 100,
            "{matches} {late_and_not}"
        );
    }

    #[test]
    fn avx2_lanes_equal_the_scalar_check() {
        if Avx2Token::get().is_none() {
            return;
        }
        // SAFETY: the token proves AVX2.
        lanes_equal_the_scalar_check::<8>(|b| unsafe { hits_avx2(b) });
    }

    #[test]
    fn sse2_lanes_equal_the_scalar_check() {
        if Sse2Token::get().is_none() {
            return;
        }
        // SAFETY: the token proves SSE2.
        lanes_equal_the_scalar_check::<4>(|b| unsafe { hits_sse2(b) });
    }
}
