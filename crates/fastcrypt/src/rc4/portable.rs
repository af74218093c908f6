//! Portable RC4 in safe Rust: the oracle every other backend is checked
//! against, and fast on its own.
//!
//! One RC4 round is
//!
//! ```text
//! i += 1; x = S[i]; j += x; y = S[j]; S[i] = y; S[j] = x; out = S[x + y]
//! ```
//!
//! Written that way, the load `S[i]` of round n+1 comes after the store
//! `S[j]` of round n, whose address is known only once `x` of round n has
//! arrived. Out-of-order cores that cannot prove the two differ either wait
//! for the store address or speculate and flush on the one-in-256 clash;
//! either way the textbook loop runs at one round per load-to-use latency
//! plus the add, and so does OpenSSL's assembly.
//!
//! The schedule here removes the load from that chain. Rounds run in
//! blocks of 16 whose first `i` is a multiple of 16, so every `S[i]`
//! address is a constant offset from the block base. Each round loads the
//! `S[i]` of the round `AHEAD` (= 3) rounds later, *before* its own stores
//! in program order: the load is issued long before the add that needs
//! it, instead of right behind a store it cannot see past. The value is
//! stale only if one of the three intervening `S[j] = x` stores hit that
//! slot, that is if `j - (i + 1)` (mod 256) is below `AHEAD` right after a
//! round's `j` update. That register test is a branch taken about 1.2% of
//! the time; when taken, the three pending loads are simply redone after
//! the stores, on a path kept out of line.
//!
//! With the load off the chain, `j += x` costs one cycle per byte and the
//! loop is bound by throughput instead: about eleven instructions and two
//! stores per byte, the random-address `S[j]` store being the expensive
//! one. The measured figures, and the variants tried, are in
//! `docs/rc4-variants.md`.
//!
//! The sixteen keystream bytes of a block are gathered into two `u64`s and
//! XORed into the data eight bytes at a time. Indices are `u8` or masked
//! block bases, so every table access is provably in bounds and compiles
//! without a check.

use super::State;

/// How many rounds ahead each `S[i]` load is issued.
const AHEAD: usize = 3;
/// Rounds per block. A block starts when `i + 1` is a multiple of it.
const BLOCK: usize = 16;

/// One byte at a time, for the heads and tails of the blocked schedule and
/// for short inputs. The next round's `S[i]` is loaded before this round's
/// stores and corrected with a select when `S[j] = x` landed on it (then
/// it is `x`): the load leaves the `j` chain, which becomes add, compare,
/// select, about three cycles instead of a load's five or more.
pub(super) fn apply_plain(st: &mut State, buf: &mut [u8]) {
    let (mut i, mut j) = (st.i, st.j);
    let s = &mut st.s;
    let mut x = s[usize::from(i.wrapping_add(1))];
    for b in buf {
        i = i.wrapping_add(1);
        j = j.wrapping_add(x);
        let next = i.wrapping_add(1);
        let ahead = s[usize::from(next)];
        let y = s[usize::from(j)];
        s[usize::from(i)] = y;
        s[usize::from(j)] = x;
        *b ^= s[usize::from(x.wrapping_add(y))];
        x = if j == next { x } else { ahead };
    }
    st.i = i;
    st.j = j;
}

/// How many bytes the textbook loop must take before `i + 1` is a multiple
/// of `BLOCK`.
#[inline]
pub(super) fn head_len(st: &State) -> usize {
    usize::from((BLOCK as u8 - 1).wrapping_sub(st.i)) % BLOCK
}

/// XORs the next `buf.len()` keystream bytes into `buf` with `blocks`
/// doing the whole 16-byte blocks, which start where `i + 1` is a multiple
/// of 16: the textbook loop takes the head up to there and the tail after
/// the last whole block, and all of a buffer too short for one block.
/// Every backend enters its block loop through this.
#[inline(always)]
pub(super) fn apply_with(
    st: &mut State,
    buf: &mut [u8],
    blocks: impl FnOnce(&mut State, &mut [u8]),
) {
    let head = head_len(st);
    if buf.len() < head + BLOCK {
        apply_plain(st, buf);
        return;
    }
    let (head, rest) = buf.split_at_mut(head);
    apply_plain(st, head);
    let whole = rest.len() / BLOCK * BLOCK;
    let (body, tail) = rest.split_at_mut(whole);
    blocks(st, body);
    apply_plain(st, tail);
}

/// XORs the next `buf.len()` keystream bytes into `buf`.
pub(super) fn apply(st: &mut State, buf: &mut [u8]) {
    apply_with(st, buf, |st, body| {
        apply_blocks(st, &mut body.chunks_exact_mut(BLOCK))
    });
}

/// The slot `S[i]` of round `m` of the block based at `base` (rounds 16 and
/// up belong to the next block, based at `next`).
#[inline(always)]
fn slot(m: usize, base: usize, next: usize) -> usize {
    if m < BLOCK {
        base + m
    } else {
        next + (m - BLOCK)
    }
}

/// Marks the collision path as cold, so the compiler keeps it a branch
/// out of the hot loop (a conditional move there would load the three
/// slots after the stores on every round, which is what the schedule
/// avoids).
#[cold]
#[inline(never)]
fn collision() {}

/// Round `R` (0..16) of a block. `xs` is a ring of the loaded `S[i]`
/// values: `xs[R % 4]` is this round's, the next `AHEAD` are pending.
/// `e` is `j - (i + 1)` mod 256, kept up to date with one add.
#[inline(always)]
fn step<const R: usize>(
    s: &mut [u8; 256],
    base: usize,
    next: usize,
    j: &mut u8,
    e: &mut u8,
    xs: &mut [u8; 4],
    ks: &mut [u64; 2],
) {
    // S[i] for round R + AHEAD, read before this round's stores.
    let ahead = s[slot(R + AHEAD, base, next)];
    let x = xs[R % 4];
    *j = j.wrapping_add(x);
    *e = e.wrapping_add(x).wrapping_sub(1);
    let y = s[usize::from(*j)];
    s[base + R] = y;
    s[usize::from(*j)] = x;
    let out = s[usize::from(x.wrapping_add(y))];
    // Shifted in from the top: after eight rounds byte k is round k's. (A
    // `|= out << 8k` tree lets the compiler defer all eight ORs and spill
    // the bytes: a store each, on a loop that is short of stores.)
    ks[R / 8] = (ks[R / 8] >> 8) | (u64::from(out) << 56);
    xs[(R + AHEAD) % 4] = ahead;
    // Did `S[j] = x` land on a slot loaded early? Then load those again,
    // now that the stores are done.
    if usize::from(*e) < AHEAD {
        collision();
        for d in 1..=AHEAD {
            xs[(R + d) % 4] = s[slot(R + d, base, next)];
        }
    }
}

/// Whole blocks, with `i + 1` a multiple of `BLOCK` on entry.
fn apply_blocks(st: &mut State, blocks: &mut core::slice::ChunksExactMut<'_, u8>) {
    debug_assert_eq!(head_len(st), 0);
    let s = &mut st.s;
    let mut j = st.j;
    // The mask restates what the caller guarantees (the low bits are
    // zero) and tells the compiler that base + 15 < 256.
    let mut base = usize::from(st.i.wrapping_add(1)) & 0xf0;
    let mut e = j.wrapping_sub(base as u8);
    let mut xs = [0u8; 4];
    for (d, x) in xs.iter_mut().enumerate().take(AHEAD) {
        *x = s[base + d];
    }
    for block in blocks {
        let next = (base + BLOCK) & 0xf0;
        let mut ks = [0u64; 2];
        macro_rules! rounds {
            ($($r:literal)*) => { $( step::<$r>(s, base, next, &mut j, &mut e, &mut xs, &mut ks); )* };
        }
        rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        base = next;
        for (c, k) in block.chunks_exact_mut(8).zip(ks) {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ k;
            c.copy_from_slice(&v.to_le_bytes());
        }
    }
    st.i = (base as u8).wrapping_sub(1);
    st.j = j;
}
