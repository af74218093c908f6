//! RC4 for x86-64 in `asm!`: the schedule of `portable.rs` with every
//! register and addressing mode chosen by hand.
//!
//! Why assembly: the schedule wants fifteen values in registers for the
//! whole loop (table, block base, next base, minus the base, j, y, the
//! buffer pointer, and eight loaded-early `S[i]` values), which is every
//! general register x86-64 has, `rbx` and `rbp` included; `asm!` operands
//! cannot name those two, and compiled Rust spills some values to the
//! stack, where each spill store competes with the two table stores per
//! byte that bound RC4.
//!
//! The loop body is 16 rounds; `i + 1` is a multiple of 16 at its start, so
//! each `S[i]` is `[s + b + k]` with a constant `k`. Round `k` does:
//!
//! ```text
//! movzx  x[k+4], S[i+4]    ; load four rounds early, before our stores
//! add    j8, x[k]          ; j += x, an 8-bit add: wraps, and j stays < 256
//! movzx  y, S[j]
//! mov    S[i], y8
//! mov    S[j], x[k]8
//! add    x[k]8, y8         ; t = x + y mod 256, reusing x's register
//! lea    y, [j + nb - k-1] ; y = j - (i + 1): did S[j] hit a slot loaded early?
//! pinsrb xmm0, S[t], k     ; the keystream byte, into lane k
//! cmp    y8, 4
//! jb     fix_k             ; ~1.6% taken: reload the four early slots
//! ```
//!
//! and every 16 rounds XORs `xmm0` into the data. The eight `S[i]`
//! registers form a ring: round k reads `x[k % 8]` and loads into
//! `x[(k + 4) % 8]`. The collision test subtracts `i + 1` through
//! `nb = -b` in a three-operand `lea` that is off the `j` chain, so its
//! latency (three cycles on some cores) only delays the branch, never the
//! next round. Zero-extending byte loads (`movzx`) and 8-bit adds on
//! registers whose upper bits are zero avoid partial-register merges.
//! `pinsrb` (SSE4.1) gathers the keystream without a general register,
//! which the ring has used up.

use super::{portable, State};
use crate::cpu::Sse41Token;

/// One round of the 16-round block, as `asm!` text. `$pre` is the address
/// of `S[i]` four rounds on; `$xc`/`$xcb` hold this round's `S[i]` (64-
/// and 8-bit names), `$xpe` (32-bit name) receives the early load;
/// `$fix`/`$back` are the numeric labels of this round's collision stub
/// and of the point it returns to.
#[rustfmt::skip]
macro_rules! round {
    ($k:literal, $nk:literal, $pre:literal, $xc:literal, $xcb:literal, $xpe:literal, $fix:literal, $back:literal) => {
        concat!(
            // S[i] for round k + 4, loaded before this round's stores so it
            // never waits for their addresses.
            "movzx ", $xpe, ", byte ptr [", $pre, "]\n",
            // j += x: an 8-bit add wraps mod 256; rdx's upper bits stay zero.
            "add dl, ", $xcb, "\n",
            // y = S[j], zero-extended.
            "movzx r12d, byte ptr [rdi + rdx]\n",
            // S[i] = y; i is the constant slot b + k.
            "mov byte ptr [rdi + rsi + ", $k, "], r12b\n",
            // S[j] = x.
            "mov byte ptr [rdi + rdx], ", $xcb, "\n",
            // t = x + y mod 256, in x's register (its upper bits are zero).
            "add ", $xcb, ", r12b\n",
            // y = j - (i + 1) = j + nb - (k + 1), for the collision test.
            "lea r12, [rdx + r13 - ", $nk, "]\n",
            // The keystream byte S[t] into lane k of xmm0.
            "pinsrb xmm0, byte ptr [rdi + ", $xc, "], ", $k, "\n",
            // Did S[j] = x hit one of the four slots loaded early?
            "cmp r12b, 4\n",
            // Rarely: reload them in the stub, which jumps back here.
            "jb ", $fix, "f\n",
            $back, ":\n",
        )
    };
}

/// The collision stub of one round: loads the four pending `S[i]` again,
/// now that this round's stores are done, and resumes the block.
#[rustfmt::skip]
macro_rules! fix {
    ($fix:literal, $back:literal, $xa:literal, $pa:literal, $xb:literal, $pb:literal,
     $xc:literal, $pc:literal, $xd:literal, $pd:literal) => {
        concat!(
            $fix, ":\n",
            // S[i] of the next round, again.
            "movzx ", $xa, ", byte ptr [", $pa, "]\n",
            // S[i] two rounds on, again.
            "movzx ", $xb, ", byte ptr [", $pb, "]\n",
            // S[i] three rounds on, again.
            "movzx ", $xc, ", byte ptr [", $pc, "]\n",
            // S[i] four rounds on, again.
            "movzx ", $xd, ", byte ptr [", $pd, "]\n",
            // Back to the end of the round that collided.
            "jmp ", $back, "b\n",
        )
    };
}

/// XORs the next `buf.len()` keystream bytes into `buf`.
pub(super) fn apply(token: Sse41Token, st: &mut State, buf: &mut [u8]) {
    portable::apply_with(st, buf, |st, body| {
        // SAFETY: the token proves SSE4.1 (`pinsrb`), the one extension
        // `blocks` enables; `body` is a non-empty multiple of 16 bytes and
        // `i + 1` is a multiple of 16 after the head, as `blocks` requires.
        unsafe { blocks(token, st, body) }
    });
}

/// Whole 16-byte blocks.
///
/// # Safety
///
/// The CPU has SSE4.1; `i + 1` is a multiple of 16 and `body.len()` a
/// non-zero multiple of 16.
#[target_feature(enable = "sse4.1")]
unsafe fn blocks(_token: Sse41Token, st: &mut State, body: &mut [u8]) {
    debug_assert!(portable::head_len(st) == 0 && body.len() & 15 == 0 && !body.is_empty());
    let b = usize::from(st.i.wrapping_add(1));
    let range = body.as_mut_ptr_range();
    let s = st.s.as_mut_ptr();
    let b_out: usize;
    let j_out: usize;
    // SAFETY: the asm reads and writes only (1) the table: `[s + b + k]`
    // with b a multiple of 16 below 256 and k < 16, `[s + bn + m]` with bn
    // likewise and m < 4, and `[s + r]` with r a byte zero-extended (j, t)
    // -- all inside `st.s`, which is exclusively borrowed; (2) the buffer,
    // 16 bytes at a time from `range.start` up to `range.end`, a non-zero
    // multiple of 16 bytes apart (the caller's contract), inside `body`,
    // also exclusively borrowed; (3) three words it pushes on the stack
    // and pops before it ends (so no `nostack`). `rbx` and `rbp`, which
    // cannot be operands, are saved and restored that way; every other
    // register it writes is an operand or a clobber. `pinsrb` needs
    // SSE4.1, which this function enables and its caller proved.
    unsafe {
        core::arch::asm!(
            // rbx and rbp join the ring; the buffer end goes on the stack.
            "push rbx",
            "push rbp",
            "push r12",
            // The first four S[i] of the block, loaded ahead.
            "movzx eax, byte ptr [rdi + rsi + 0]",
            "movzx ecx, byte ptr [rdi + rsi + 1]",
            "movzx r9d, byte ptr [rdi + rsi + 2]",
            "movzx r10d, byte ptr [rdi + rsi + 3]",
            "2:",
            round!("0", "1", "rdi + rsi + 4", "rax", "al", "r11d", "20", "40"),
            round!("1", "2", "rdi + rsi + 5", "rcx", "cl", "r14d", "21", "41"),
            round!("2", "3", "rdi + rsi + 6", "r9", "r9b", "ebx", "22", "42"),
            round!("3", "4", "rdi + rsi + 7", "r10", "r10b", "ebp", "23", "43"),
            round!("4", "5", "rdi + rsi + 8", "r11", "r11b", "eax", "24", "44"),
            round!("5", "6", "rdi + rsi + 9", "r14", "r14b", "ecx", "25", "45"),
            round!("6", "7", "rdi + rsi + 10", "rbx", "bl", "r9d", "26", "46"),
            round!("7", "8", "rdi + rsi + 11", "rbp", "bpl", "r10d", "27", "47"),
            round!("8", "9", "rdi + rsi + 12", "rax", "al", "r11d", "28", "48"),
            round!("9", "10", "rdi + rsi + 13", "rcx", "cl", "r14d", "29", "49"),
            round!("10", "11", "rdi + rsi + 14", "r9", "r9b", "ebx", "30", "50"),
            round!("11", "12", "rdi + rsi + 15", "r10", "r10b", "ebp", "31", "51"),
            round!("12", "13", "rdi + r8 + 0", "r11", "r11b", "eax", "32", "52"),
            round!("13", "14", "rdi + r8 + 1", "r14", "r14b", "ecx", "33", "53"),
            round!("14", "15", "rdi + r8 + 2", "rbx", "bl", "r9d", "34", "54"),
            round!("15", "16", "rdi + r8 + 3", "rbp", "bpl", "r10d", "35", "55"),
            // XOR the sixteen keystream bytes into the data.
            "movdqu xmm1, xmmword ptr [r15]",
            "pxor xmm0, xmm1",
            "movdqu xmmword ptr [r15], xmm0",
            // Next block: its base, the one after it (mod 256), and -base.
            "mov rsi, r8",
            "add r8b, 16",
            "sub r13, 16",
            // Sixteen bytes done; on to the next unless at the end.
            "add r15, 16",
            "cmp r15, qword ptr [rsp]",
            "jb 2b",
            "jmp 9f",
            // Collision stubs: round k reloads the slots of rounds k+1..k+4.
            fix!("20", "40", "ecx", "rdi + rsi + 1", "r9d", "rdi + rsi + 2", "r10d", "rdi + rsi + 3", "r11d", "rdi + rsi + 4"),
            fix!("21", "41", "r9d", "rdi + rsi + 2", "r10d", "rdi + rsi + 3", "r11d", "rdi + rsi + 4", "r14d", "rdi + rsi + 5"),
            fix!("22", "42", "r10d", "rdi + rsi + 3", "r11d", "rdi + rsi + 4", "r14d", "rdi + rsi + 5", "ebx", "rdi + rsi + 6"),
            fix!("23", "43", "r11d", "rdi + rsi + 4", "r14d", "rdi + rsi + 5", "ebx", "rdi + rsi + 6", "ebp", "rdi + rsi + 7"),
            fix!("24", "44", "r14d", "rdi + rsi + 5", "ebx", "rdi + rsi + 6", "ebp", "rdi + rsi + 7", "eax", "rdi + rsi + 8"),
            fix!("25", "45", "ebx", "rdi + rsi + 6", "ebp", "rdi + rsi + 7", "eax", "rdi + rsi + 8", "ecx", "rdi + rsi + 9"),
            fix!("26", "46", "ebp", "rdi + rsi + 7", "eax", "rdi + rsi + 8", "ecx", "rdi + rsi + 9", "r9d", "rdi + rsi + 10"),
            fix!("27", "47", "eax", "rdi + rsi + 8", "ecx", "rdi + rsi + 9", "r9d", "rdi + rsi + 10", "r10d", "rdi + rsi + 11"),
            fix!("28", "48", "ecx", "rdi + rsi + 9", "r9d", "rdi + rsi + 10", "r10d", "rdi + rsi + 11", "r11d", "rdi + rsi + 12"),
            fix!("29", "49", "r9d", "rdi + rsi + 10", "r10d", "rdi + rsi + 11", "r11d", "rdi + rsi + 12", "r14d", "rdi + rsi + 13"),
            fix!("30", "50", "r10d", "rdi + rsi + 11", "r11d", "rdi + rsi + 12", "r14d", "rdi + rsi + 13", "ebx", "rdi + rsi + 14"),
            fix!("31", "51", "r11d", "rdi + rsi + 12", "r14d", "rdi + rsi + 13", "ebx", "rdi + rsi + 14", "ebp", "rdi + rsi + 15"),
            fix!("32", "52", "r14d", "rdi + rsi + 13", "ebx", "rdi + rsi + 14", "ebp", "rdi + rsi + 15", "eax", "rdi + r8 + 0"),
            fix!("33", "53", "ebx", "rdi + rsi + 14", "ebp", "rdi + rsi + 15", "eax", "rdi + r8 + 0", "ecx", "rdi + r8 + 1"),
            fix!("34", "54", "ebp", "rdi + rsi + 15", "eax", "rdi + r8 + 0", "ecx", "rdi + r8 + 1", "r9d", "rdi + r8 + 2"),
            fix!("35", "55", "eax", "rdi + r8 + 0", "ecx", "rdi + r8 + 1", "r9d", "rdi + r8 + 2", "r10d", "rdi + r8 + 3"),
            "9:",
            // Drop the buffer end; restore rbp and rbx.
            "add rsp, 8",
            "pop rbp",
            "pop rbx",
            in("rdi") s,
            inout("rsi") b => b_out,
            inout("r8") (b + 16) & 0xff => _,
            inout("r13") b.wrapping_neg() => _,
            inout("rdx") usize::from(st.j) => j_out,
            inout("r12") range.end => _,
            inout("r15") range.start => _,
            out("rax") _,
            out("rcx") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r14") _,
            out("xmm0") _,
            out("xmm1") _,
        );
    }
    st.i = (b_out as u8).wrapping_sub(1);
    st.j = j_out as u8;
}
