//! Portable SHA-1: safe Rust, fully unrolled rounds over a 16-word ring of
//! schedule words. This is the oracle every other backend is tested against.

const K: [u32; 4] = [0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6];

#[inline(always)]
fn f_ch(b: u32, c: u32, d: u32) -> u32 {
    // (b & c) | (!b & d), written with one fewer operation.
    d ^ (b & (c ^ d))
}
#[inline(always)]
fn f_parity(b: u32, c: u32, d: u32) -> u32 {
    b ^ c ^ d
}
#[inline(always)]
fn f_maj(b: u32, c: u32, d: u32) -> u32 {
    // The two terms have no bit in common, so `+` equals `|` and lets the
    // adds of the round be reassociated off the critical path.
    (b & c).wrapping_add(d & (b ^ c))
}

/// Schedule word `t` (16 <= t < 80) computed in place in the ring (and
/// kept in `$keep` when the kernel hands its schedule out).
macro_rules! sched {
    ($w:ident, $t:expr, $keep:ident) => {{
        let v = ($w[($t + 13) & 15] ^ $w[($t + 8) & 15] ^ $w[($t + 2) & 15] ^ $w[$t & 15])
            .rotate_left(1);
        $w[$t & 15] = v;
        if let Some(k) = $keep.as_deref_mut() {
            k[$t] = v;
        }
        v
    }};
}

/// One round; the caller rotates the variable names instead of the values.
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $wt:expr) => {
        $e = $e
            .wrapping_add($wt)
            .wrapping_add($k)
            .wrapping_add($f($b, $c, $d))
            .wrapping_add($a.rotate_left(5));
        $b = $b.rotate_left(30);
    };
}

/// Five rounds starting at round `$t`, after which the names are back in
/// their original roles.
macro_rules! rounds5 {
    ($w:ident, $keep:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $t:expr, load) => {
        round!($a, $b, $c, $d, $e, $f, $k, $w[$t]);
        round!($e, $a, $b, $c, $d, $f, $k, $w[$t + 1]);
        round!($d, $e, $a, $b, $c, $f, $k, $w[$t + 2]);
        round!($c, $d, $e, $a, $b, $f, $k, $w[$t + 3]);
        round!($b, $c, $d, $e, $a, $f, $k, $w[$t + 4]);
    };
    ($w:ident, $keep:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $t:expr) => {
        round!($a, $b, $c, $d, $e, $f, $k, sched!($w, $t, $keep));
        round!($e, $a, $b, $c, $d, $f, $k, sched!($w, $t + 1, $keep));
        round!($d, $e, $a, $b, $c, $f, $k, sched!($w, $t + 2, $keep));
        round!($c, $d, $e, $a, $b, $f, $k, sched!($w, $t + 3, $keep));
        round!($b, $c, $d, $e, $a, $f, $k, sched!($w, $t + 4, $keep));
    };
}

/// Compresses every 64-byte block of `blocks` into `state`.
pub(super) fn compress(state: &mut [u32; 5], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        compress_block(state, block.try_into().expect("64-byte chunk"));
    }
}

#[inline(always)]
pub(crate) fn compress_block(state: &mut [u32; 5], block: &[u8; 64]) {
    compress_block_keep(state, block, None);
}

/// [`compress_block`], also writing the block's 80 schedule words to
/// `keep` (for collision detection, which filters on them).
// The last schedule words written are never read again: that is the ring.
#[allow(unused_assignments)]
#[inline(always)]
pub(crate) fn compress_block_keep(
    state: &mut [u32; 5],
    block: &[u8; 64],
    mut keep: Option<&mut [u32; 80]>,
) {
    let mut w = [0u32; 16];
    for (wi, c) in w.iter_mut().zip(block.chunks_exact(4)) {
        *wi = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    if let Some(k) = keep.as_deref_mut() {
        k[..16].copy_from_slice(&w);
    }
    let [mut a, mut b, mut c, mut d, mut e] = *state;

    rounds5!(w, keep, a, b, c, d, e, f_ch, K[0], 0, load);
    rounds5!(w, keep, a, b, c, d, e, f_ch, K[0], 5, load);
    rounds5!(w, keep, a, b, c, d, e, f_ch, K[0], 10, load);
    // Round 15 is the last to read a message word; 16.. compute theirs.
    round!(a, b, c, d, e, f_ch, K[0], w[15]);
    round!(e, a, b, c, d, f_ch, K[0], sched!(w, 16, keep));
    round!(d, e, a, b, c, f_ch, K[0], sched!(w, 17, keep));
    round!(c, d, e, a, b, f_ch, K[0], sched!(w, 18, keep));
    round!(b, c, d, e, a, f_ch, K[0], sched!(w, 19, keep));
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[1], 20);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[1], 25);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[1], 30);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[1], 35);
    rounds5!(w, keep, a, b, c, d, e, f_maj, K[2], 40);
    rounds5!(w, keep, a, b, c, d, e, f_maj, K[2], 45);
    rounds5!(w, keep, a, b, c, d, e, f_maj, K[2], 50);
    rounds5!(w, keep, a, b, c, d, e, f_maj, K[2], 55);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[3], 60);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[3], 65);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[3], 70);
    rounds5!(w, keep, a, b, c, d, e, f_parity, K[3], 75);

    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
    state[4] = state[4].wrapping_add(e);
}
