//! RC4 for x86-64 in `asm!`: the schedule of `portable.rs` with every
//! register and addressing mode chosen by hand.
//!
//! Why assembly: the schedule needs thirteen values live in registers for
//! the whole loop (table, block base, next base, j, the collision test,
//! four loaded-early `S[i]` values, y, the keystream word, and the buffer
//! end and offset), which is every general register x86-64 gives `asm!`.
//! Compiled from Rust, some of them spill to the stack, and a spill store
//! costs a store-port slot, the resource RC4 runs out of first (two table
//! stores per byte, one per cycle when they fall in different cache lines).
//!
//! The loop body is 16 rounds; `i + 1` is a multiple of 16 at its start, so
//! each `S[i]` is `[s + b + k]` with a constant `k`. Round `k` does:
//!
//! ```text
//! movzx  x[k+3], S[i+3]    ; load three rounds early, before our stores
//! add    j8, x[k]          ; j += x, an 8-bit add: wraps, and j stays < 256
//! movzx  y, S[j]
//! mov    S[i], y8
//! mov    S[j], x[k]8
//! add    x[k]8, y8         ; t = x + y mod 256, reusing x's register
//! lea    y, [j + nb - k-1] ; y = j - (i + 1): did S[j] hit a slot loaded early?
//! movzx  x[k], S[t]        ; the keystream byte
//! shl/or acc               ; gathered into a u64, XORed in every 8 rounds
//! cmp    y8, 3
//! jb     fix_k             ; ~1.2% taken: reload the three early slots
//! ```
//!
//! The collision test subtracts `i + 1` through `nb = -b` in a
//! three-operand `lea` that is off the `j` chain, so its latency (three
//! cycles on some cores) only delays the branch, never the next round.
//! Zero-extending byte loads (`movzx`) and 8-bit adds on registers whose
//! upper bits are zero avoid partial-register merges.

use super::{portable, State};
use crate::cpu::X86_64Token;

/// One round of the 16-round block, as `asm!` text. `$pre` is the address
/// of `S[i]` three rounds on; `$xc` holds this round's `S[i]`, `$xp`
/// receives the early load; `$fix`/`$back` are the numeric labels of this
/// round's collision stub and of the point it returns to. The three arms
/// differ only in how the keystream byte joins the 64-bit word: the first
/// of eight starts it, the last XORs it into the data at `$flush`.
macro_rules! round {
    (first, $k:literal, $nk:literal, $pre:literal, $xc:literal, $xp:literal, $fix:literal, $back:literal) => {
        concat!(
            round!(@core, $k, $nk, $pre, $xc, $xp),
            // The keystream byte starts the word.
            "mov {acc}, {", $xc, "}\n",
            round!(@test, $fix, $back),
        )
    };
    (mid, $k:literal, $nk:literal, $sh:literal, $pre:literal, $xc:literal, $xp:literal, $fix:literal, $back:literal) => {
        concat!(
            round!(@core, $k, $nk, $pre, $xc, $xp),
            // Byte k % 8 of the word.
            "shl {", $xc, "}, ", $sh, "\n",
            "or {acc}, {", $xc, "}\n",
            round!(@test, $fix, $back),
        )
    };
    (last, $k:literal, $nk:literal, $flush:literal, $pre:literal, $xc:literal, $xp:literal, $fix:literal, $back:literal) => {
        concat!(
            round!(@core, $k, $nk, $pre, $xc, $xp),
            // The eighth byte completes the word.
            "shl {", $xc, "}, 56\n",
            "or {acc}, {", $xc, "}\n",
            round!(@test, $fix, $back),
            // XOR the eight keystream bytes into the data.
            "xor {acc}, qword ptr [{end} + {n} + ", $flush, "]\n",
            "mov qword ptr [{end} + {n} + ", $flush, "], {acc}\n",
        )
    };
    (@core, $k:literal, $nk:literal, $pre:literal, $xc:literal, $xp:literal) => {
        concat!(
            // S[i] for round k + 3, loaded before this round's stores so it
            // never waits for their addresses.
            "movzx {", $xp, ":e}, byte ptr [", $pre, "]\n",
            // j += x: an 8-bit add wraps mod 256; j's upper bits stay zero.
            "add {j:l}, {", $xc, ":l}\n",
            // y = S[j], zero-extended.
            "movzx {y:e}, byte ptr [{s} + {j}]\n",
            // S[i] = y; i is the constant slot b + k.
            "mov byte ptr [{s} + {b} + ", $k, "], {y:l}\n",
            // S[j] = x.
            "mov byte ptr [{s} + {j}], {", $xc, ":l}\n",
            // t = x + y mod 256, in x's register (its upper bits are zero).
            "add {", $xc, ":l}, {y:l}\n",
            // y = j - (i + 1) = j + nb - (k + 1), for the collision test.
            "lea {y}, [{j} + {nb} - ", $nk, "]\n",
            // The keystream byte S[t], zero-extended.
            "movzx {", $xc, ":e}, byte ptr [{s} + {", $xc, "}]\n",
        )
    };
    (@test, $fix:literal, $back:literal) => {
        concat!(
            // Did S[j] = x hit one of the three slots loaded early?
            "cmp {y:l}, 3\n",
            // Rarely: reload them in the stub, which jumps back here.
            "jb ", $fix, "f\n",
            $back, ":\n",
        )
    };
}

/// The collision stub of one round: loads the three pending `S[i]` again,
/// now that this round's stores are done, and resumes the block.
macro_rules! fix {
    ($fix:literal, $back:literal, $xa:literal, $pa:literal, $xb:literal, $pb:literal, $xc:literal, $pc:literal) => {
        concat!(
            $fix,
            ":\n",
            // S[i] of the next round, again.
            "movzx {",
            $xa,
            ":e}, byte ptr [",
            $pa,
            "]\n",
            // S[i] two rounds on, again.
            "movzx {",
            $xb,
            ":e}, byte ptr [",
            $pb,
            "]\n",
            // S[i] three rounds on, again.
            "movzx {",
            $xc,
            ":e}, byte ptr [",
            $pc,
            "]\n",
            // Back to the end of the round that collided.
            "jmp ",
            $back,
            "b\n",
        )
    };
}

/// XORs the next `buf.len()` keystream bytes into `buf`.
pub(super) fn apply(_token: X86_64Token, st: &mut State, buf: &mut [u8]) {
    let head = portable::head_len(st);
    if buf.len() < head + 16 {
        portable::apply_plain(st, buf);
        return;
    }
    let (head, rest) = buf.split_at_mut(head);
    portable::apply_plain(st, head);
    let whole = rest.len() / 16 * 16;
    let (body, tail) = rest.split_at_mut(whole);
    blocks(st, body);
    portable::apply_plain(st, tail);
}

/// Whole 16-byte blocks; `i + 1` is a multiple of 16 on entry and
/// `body.len()` a non-zero multiple of 16.
fn blocks(st: &mut State, body: &mut [u8]) {
    debug_assert!(portable::head_len(st) == 0 && body.len() & 15 == 0 && !body.is_empty());
    let b = usize::from(st.i.wrapping_add(1));
    let x0 = usize::from(st.s[b]);
    let x1 = usize::from(st.s[b + 1]);
    let x2 = usize::from(st.s[b + 2]);
    let end = body.as_mut_ptr_range().end;
    let neg_len = body.len().wrapping_neg();
    let s = st.s.as_mut_ptr();
    let b_out: usize;
    let j_out: usize;
    // SAFETY: the asm reads and writes only (1) the table: `[s + b + k]`
    // with b a multiple of 16 below 256 and k < 16, `[s + bn + m]` with bn
    // likewise and m < 3, and `[s + r]` with r a byte zero-extended (j, t)
    // -- all inside `st.s`, which is exclusively borrowed; and (2) the
    // buffer: qwords at `end + n + 0` and `end + n + 8`, with n running
    // from -len to -16 in steps of 16, which lie inside `body`, also
    // exclusively borrowed. It uses no stack, and every register it writes
    // is an operand.
    unsafe {
        core::arch::asm!(
            "2:",
            round!(first, "0", "1", "{s} + {b} + 3", "x0", "x3", "20", "40"),
            round!(mid, "1", "2", "8", "{s} + {b} + 4", "x1", "x0", "21", "41"),
            round!(mid, "2", "3", "16", "{s} + {b} + 5", "x2", "x1", "22", "42"),
            round!(mid, "3", "4", "24", "{s} + {b} + 6", "x3", "x2", "23", "43"),
            round!(mid, "4", "5", "32", "{s} + {b} + 7", "x0", "x3", "24", "44"),
            round!(mid, "5", "6", "40", "{s} + {b} + 8", "x1", "x0", "25", "45"),
            round!(mid, "6", "7", "48", "{s} + {b} + 9", "x2", "x1", "26", "46"),
            round!(last, "7", "8", "0", "{s} + {b} + 10", "x3", "x2", "27", "47"),
            round!(first, "8", "9", "{s} + {b} + 11", "x0", "x3", "28", "48"),
            round!(mid, "9", "10", "8", "{s} + {b} + 12", "x1", "x0", "29", "49"),
            round!(mid, "10", "11", "16", "{s} + {b} + 13", "x2", "x1", "30", "50"),
            round!(mid, "11", "12", "24", "{s} + {b} + 14", "x3", "x2", "31", "51"),
            round!(mid, "12", "13", "32", "{s} + {b} + 15", "x0", "x3", "32", "52"),
            round!(mid, "13", "14", "40", "{s} + {bn} + 0", "x1", "x0", "33", "53"),
            round!(mid, "14", "15", "48", "{s} + {bn} + 1", "x2", "x1", "34", "54"),
            round!(last, "15", "16", "8", "{s} + {bn} + 2", "x3", "x2", "35", "55"),
            // Next block: its base, the one after it (mod 256), and -base.
            "mov {b}, {bn}",
            "add {bn:l}, 16",
            "sub {nb}, 16",
            // Sixteen bytes done; n reaches zero at the end of the buffer.
            "add {n}, 16",
            "jnz 2b",
            "jmp 9f",
            // Collision stubs: round k reloads the slots of rounds k+1..k+3.
            fix!("20", "40", "x1", "{s} + {b} + 1", "x2", "{s} + {b} + 2", "x3", "{s} + {b} + 3"),
            fix!("21", "41", "x2", "{s} + {b} + 2", "x3", "{s} + {b} + 3", "x0", "{s} + {b} + 4"),
            fix!("22", "42", "x3", "{s} + {b} + 3", "x0", "{s} + {b} + 4", "x1", "{s} + {b} + 5"),
            fix!("23", "43", "x0", "{s} + {b} + 4", "x1", "{s} + {b} + 5", "x2", "{s} + {b} + 6"),
            fix!("24", "44", "x1", "{s} + {b} + 5", "x2", "{s} + {b} + 6", "x3", "{s} + {b} + 7"),
            fix!("25", "45", "x2", "{s} + {b} + 6", "x3", "{s} + {b} + 7", "x0", "{s} + {b} + 8"),
            fix!("26", "46", "x3", "{s} + {b} + 7", "x0", "{s} + {b} + 8", "x1", "{s} + {b} + 9"),
            fix!("27", "47", "x0", "{s} + {b} + 8", "x1", "{s} + {b} + 9", "x2", "{s} + {b} + 10"),
            fix!("28", "48", "x1", "{s} + {b} + 9", "x2", "{s} + {b} + 10", "x3", "{s} + {b} + 11"),
            fix!("29", "49", "x2", "{s} + {b} + 10", "x3", "{s} + {b} + 11", "x0", "{s} + {b} + 12"),
            fix!("30", "50", "x3", "{s} + {b} + 11", "x0", "{s} + {b} + 12", "x1", "{s} + {b} + 13"),
            fix!("31", "51", "x0", "{s} + {b} + 12", "x1", "{s} + {b} + 13", "x2", "{s} + {b} + 14"),
            fix!("32", "52", "x1", "{s} + {b} + 13", "x2", "{s} + {b} + 14", "x3", "{s} + {b} + 15"),
            fix!("33", "53", "x2", "{s} + {b} + 14", "x3", "{s} + {b} + 15", "x0", "{s} + {bn} + 0"),
            fix!("34", "54", "x3", "{s} + {b} + 15", "x0", "{s} + {bn} + 0", "x1", "{s} + {bn} + 1"),
            fix!("35", "55", "x0", "{s} + {bn} + 0", "x1", "{s} + {bn} + 1", "x2", "{s} + {bn} + 2"),
            "9:",
            s = in(reg) s,
            b = inout(reg) b => b_out,
            bn = inout(reg) (b + 16) & 0xff => _,
            nb = inout(reg) b.wrapping_neg() => _,
            j = inout(reg) usize::from(st.j) => j_out,
            x0 = inout(reg) x0 => _,
            x1 = inout(reg) x1 => _,
            x2 = inout(reg) x2 => _,
            x3 = out(reg) _,
            y = out(reg) _,
            acc = out(reg) _,
            end = in(reg) end,
            n = inout(reg) neg_len => _,
            options(nostack),
        );
    }
    st.i = (b_out as u8).wrapping_sub(1);
    st.j = j_out as u8;
}
