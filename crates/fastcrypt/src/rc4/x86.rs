//! RC4 for 32-bit x86 in `asm!`: the schedule of `portable.rs` fitted into
//! seven general registers.
//!
//! Why assembly: compiled Rust for i686 spills most of the schedule's
//! values to the stack (four `S[i]` values loaded early, two keystream
//! words of two registers each, `j`, the block bases), and each spill
//! store competes with the two table stores per byte that bound RC4.
//!
//! Where the x86-64 kernel keeps a block base in a register, this one
//! has no register to spare, so the loop is unrolled over the whole
//! table: 256 rounds, one per slot, with every `S[i]` address a constant
//! `[s + i]`. A call enters at the block of 16 rounds that its `i + 1`
//! starts (a chain of compares, once per call) and leaves after any block,
//! when the buffer is done. Round `i` does:
//!
//! ```text
//! mov    ecx, R              ; x = S[i], loaded three rounds ago
//! movzx  R, S[i+3]           ; load three rounds early, before our stores
//! add    dl, cl              ; j += x, an 8-bit add: wraps, and j stays < 256
//! movzx  eax, S[j]           ; y (odd rounds: mov ah, S[j])
//! mov    S[i], al
//! mov    S[j], cl
//! add    cl, al              ; t = x + y mod 256, in x's register
//! movzx  eax, S[t]           ; the keystream byte (odd rounds: mov ah, S[t])
//! pinsrw xmm0, eax, k/2      ; odd rounds: two keystream bytes into a lane
//! lea    ecx, [edx - (i+1)]  ; j - (i + 1): did S[j] hit a slot loaded early?
//! cmp    cl, 3
//! jb     fix                 ; ~1.2% taken: reload the three early slots
//! ```
//!
//! Registers: `edi` the table, `edx` j, `ecx` x then t then the collision
//! test, `eax` y and the keystream pair (`al` from the even round, `ah`
//! from the odd one: the odd round's `y` also goes into `ah`, since `al`
//! is taken), and `ebx`, `esi`, `ebp` a ring of three early `S[i]`: round
//! `g` reads and then reloads ring register `g % 3`. The ring is copied
//! out (`mov ecx, R`, which the renamer eliminates) so that only
//! byte-addressable registers (`eax`..`edx`) need 8-bit names, and so
//! that the freed ring register takes the new early load: three registers
//! keep three loads in flight. Because 256 is not a multiple of three,
//! the registers rotate once at the wrap from slot 255 to slot 0 (four
//! moves every 256 bytes), and each block's entry loads its first three
//! slots in that block's order. The buffer pointer and its end live on
//! the stack, read once per 16 bytes.
//!
//! Every 16 rounds `xmm0` holds the block's keystream, gathered with
//! SSE2's `pinsrw` (SSE4.1's `pinsrb` is not assumed on 32-bit x86), and
//! is XORed into the data with one unaligned load and store.

use super::{portable, State};
use crate::cpu::Sse2Token;

/// One even round (`$k` even) of a block based at `$b`: `$r` holds this
/// round's `S[i]` and takes the early load; `$fix`/`$back` are the
/// numeric labels of its collision stub and of the point it returns to.
#[rustfmt::skip]
macro_rules! round_even {
    ($b:literal, $k:literal, $r:literal, $fix:literal, $back:literal) => {
        concat!(
            // x = S[i], loaded three rounds ago; frees the ring register.
            "mov ecx, ", $r, "\n",
            // S[i] three rounds on, before this round's stores.
            "movzx ", $r, ", byte ptr [edi + ((", $b, " + ", $k, " + 3) & 255)]\n",
            // j += x: an 8-bit add wraps mod 256; edx's upper bits stay zero.
            "add dl, cl\n",
            // y = S[j], zero-extended.
            "movzx eax, byte ptr [edi + edx]\n",
            // S[i] = y; i is the constant slot b + k.
            "mov byte ptr [edi + ", $b, " + ", $k, "], al\n",
            // S[j] = x.
            "mov byte ptr [edi + edx], cl\n",
            // t = x + y mod 256, in x's register (its upper bits are zero).
            "add cl, al\n",
            // The keystream byte S[t] into al, to be paired in the next round.
            "movzx eax, byte ptr [edi + ecx]\n",
            // j - (i + 1) mod 256, in cl, for the collision test.
            "lea ecx, [edx - (", $b, " + ", $k, " + 1)]\n",
            // Did S[j] = x hit one of the three slots loaded early?
            "cmp cl, 3\n",
            // Rarely: reload them in the stub, which jumps back here.
            "jb ", $fix, "f\n",
            $back, ":\n",
        )
    };
}

/// One odd round: as [`round_even!`], but `al` holds the previous
/// keystream byte, so `y` and this round's byte go to `ah`, and the pair
/// goes into word `$lane` of `xmm0`.
#[rustfmt::skip]
macro_rules! round_odd {
    ($b:literal, $k:literal, $lane:literal, $r:literal, $fix:literal, $back:literal) => {
        concat!(
            // x = S[i], loaded three rounds ago; frees the ring register.
            "mov ecx, ", $r, "\n",
            // S[i] three rounds on, before this round's stores.
            "movzx ", $r, ", byte ptr [edi + ((", $b, " + ", $k, " + 3) & 255)]\n",
            // j += x.
            "add dl, cl\n",
            // y = S[j], into ah (al holds the even round's keystream byte).
            "mov ah, byte ptr [edi + edx]\n",
            // S[i] = y.
            "mov byte ptr [edi + ", $b, " + ", $k, "], ah\n",
            // S[j] = x.
            "mov byte ptr [edi + edx], cl\n",
            // t = x + y mod 256.
            "add cl, ah\n",
            // The keystream byte S[t] into ah, next to the even round's.
            "mov ah, byte ptr [edi + ecx]\n",
            // Both bytes into their 16-bit lane of the block's keystream.
            "pinsrw xmm0, eax, ", $lane, "\n",
            // j - (i + 1) mod 256, in cl, for the collision test.
            "lea ecx, [edx - (", $b, " + ", $k, " + 1)]\n",
            // Did S[j] = x hit one of the three slots loaded early?
            "cmp cl, 3\n",
            // Rarely: reload them in the stub, which jumps back here.
            "jb ", $fix, "f\n",
            $back, ":\n",
        )
    };
}

/// The collision stub of round `$k`: loads the three pending `S[i]` again,
/// now that the round's stores are done, and resumes the block. `$ra`,
/// `$rb`, `$rc` are the ring registers of rounds `k + 1`, `k + 2`, `k + 3`.
#[rustfmt::skip]
macro_rules! fix {
    ($b:literal, $k:literal, $ra:literal, $rb:literal, $rc:literal, $fix:literal, $back:literal) => {
        concat!(
            $fix, ":\n",
            // S[i] of the next round, again.
            "movzx ", $ra, ", byte ptr [edi + ((", $b, " + ", $k, " + 1) & 255)]\n",
            // S[i] two rounds on, again.
            "movzx ", $rb, ", byte ptr [edi + ((", $b, " + ", $k, " + 2) & 255)]\n",
            // S[i] three rounds on, again.
            "movzx ", $rc, ", byte ptr [edi + ((", $b, " + ", $k, " + 3) & 255)]\n",
            // Back to the end of the round that collided.
            "jmp ", $back, "b\n",
        )
    };
}

/// The 16 rounds of the block based at slot `$b`, the keystream XOR, the
/// exit test and the jump to `$next`, then the block's collision stubs.
/// `$r0`, `$r1`, `$r2` are the ring registers of rounds 0, 1, 2 (round `k`
/// uses the one of `k % 3`); `$start` is the block's label.
#[rustfmt::skip]
macro_rules! block {
    ($b:literal, $start:literal, $next:literal, $r0:literal, $r1:literal, $r2:literal) => {
        concat!(
            $start, ":\n",
            round_even!($b, "0", $r0, "20", "40"),
            round_odd!($b, "1", "0", $r1, "21", "41"),
            round_even!($b, "2", $r2, "22", "42"),
            round_odd!($b, "3", "1", $r0, "23", "43"),
            round_even!($b, "4", $r1, "24", "44"),
            round_odd!($b, "5", "2", $r2, "25", "45"),
            round_even!($b, "6", $r0, "26", "46"),
            round_odd!($b, "7", "3", $r1, "27", "47"),
            round_even!($b, "8", $r2, "28", "48"),
            round_odd!($b, "9", "4", $r0, "29", "49"),
            round_even!($b, "10", $r1, "30", "50"),
            round_odd!($b, "11", "5", $r2, "31", "51"),
            round_even!($b, "12", $r0, "32", "52"),
            round_odd!($b, "13", "6", $r1, "33", "53"),
            round_even!($b, "14", $r2, "34", "54"),
            round_odd!($b, "15", "7", $r0, "35", "55"),
            // XOR the sixteen keystream bytes into the data.
            "mov ecx, dword ptr [esp]\n",
            "movdqu xmm1, xmmword ptr [ecx]\n",
            "pxor xmm0, xmm1\n",
            "movdqu xmmword ptr [ecx], xmm0\n",
            // Sixteen bytes done; on to the next block unless at the end.
            "add ecx, 16\n",
            "mov dword ptr [esp], ecx\n",
            "cmp ecx, dword ptr [esp + 4]\n",
            "jb ", $next, "\n",
            "jmp 9f\n",
            // Collision stubs: round k reloads the slots of rounds k+1..k+3.
            fix!($b, "0", $r1, $r2, $r0, "20", "40"),
            fix!($b, "1", $r2, $r0, $r1, "21", "41"),
            fix!($b, "2", $r0, $r1, $r2, "22", "42"),
            fix!($b, "3", $r1, $r2, $r0, "23", "43"),
            fix!($b, "4", $r2, $r0, $r1, "24", "44"),
            fix!($b, "5", $r0, $r1, $r2, "25", "45"),
            fix!($b, "6", $r1, $r2, $r0, "26", "46"),
            fix!($b, "7", $r2, $r0, $r1, "27", "47"),
            fix!($b, "8", $r0, $r1, $r2, "28", "48"),
            fix!($b, "9", $r1, $r2, $r0, "29", "49"),
            fix!($b, "10", $r2, $r0, $r1, "30", "50"),
            fix!($b, "11", $r0, $r1, $r2, "31", "51"),
            fix!($b, "12", $r1, $r2, $r0, "32", "52"),
            fix!($b, "13", $r2, $r0, $r1, "33", "53"),
            fix!($b, "14", $r0, $r1, $r2, "34", "54"),
            fix!($b, "15", $r1, $r2, $r0, "35", "55"),
        )
    };
}

/// The entry of the block based at `$b`: its first three `S[i]` into the
/// block's ring registers, then a jump to the block.
#[rustfmt::skip]
macro_rules! entry {
    ($b:literal, $label:literal, $start:literal, $r0:literal, $r1:literal, $r2:literal) => {
        concat!(
            $label, ":\n",
            "movzx ", $r0, ", byte ptr [edi + ", $b, "]\n",
            "movzx ", $r1, ", byte ptr [edi + ", $b, " + 1]\n",
            "movzx ", $r2, ", byte ptr [edi + ", $b, " + 2]\n",
            "jmp ", $start, "f\n",
        )
    };
}

/// XORs the next `buf.len()` keystream bytes into `buf`.
pub(super) fn apply(token: Sse2Token, st: &mut State, buf: &mut [u8]) {
    portable::apply_with(st, buf, |st, body| {
        // SAFETY: the token proves SSE2 (`pinsrw`, `movdqu`, `pxor`), the one
        // extension `blocks` enables; `body` is a non-empty multiple of 16
        // bytes and `i + 1` is a multiple of 16 after the head, as `blocks`
        // requires.
        unsafe { blocks(token, st, body) }
    });
}

/// Whole 16-byte blocks.
///
/// # Safety
///
/// The CPU has SSE2; `i + 1` is a multiple of 16 and `body.len()` a
/// non-zero multiple of 16.
#[target_feature(enable = "sse2")]
unsafe fn blocks(_token: Sse2Token, st: &mut State, body: &mut [u8]) {
    debug_assert!(portable::head_len(st) == 0 && body.len() & 15 == 0 && !body.is_empty());
    let b = usize::from(st.i.wrapping_add(1));
    let range = body.as_mut_ptr_range();
    let s = st.s.as_mut_ptr();
    let j_out: usize;
    // SAFETY: the asm reads and writes only (1) the table: `[s + c]` with
    // c a constant below 256 (every slot expression is masked with 255 or
    // is at most 255), and `[s + r]` with r a register whose upper 24 bits
    // are zero (j in edx, t in ecx: each is zero-extended or a copy of a
    // zero-extended load, then changed only through its low byte) -- all
    // inside `st.s`, which is exclusively borrowed; (2) the buffer, 16
    // bytes at a time from `range.start` up to `range.end`, a non-zero
    // multiple of 16 bytes apart (the caller's contract), inside `body`,
    // also exclusively borrowed; (3) four words it pushes on the stack and
    // pops before it ends (so no `nostack`). `esi` and `ebp`, which cannot
    // be operands, are saved and restored that way; every other register
    // it writes is an operand or a clobber. It enters the block whose base
    // is b (a multiple of 16 below 256, the caller's contract); the chain
    // of compares covers every such value. SSE2 (`pinsrw`, `movdqu`) is
    // enabled by this function and proved by its caller.
    unsafe {
        core::arch::asm!(
            // esi and ebp join the ring; the buffer end and the running
            // pointer go on the stack: [esp] pointer, [esp + 4] end.
            "push esi",
            "push ebp",
            "push ebx",
            "push eax",
            // Enter the block that b (in ecx) starts; once per call.
            "cmp ecx, 16",
            "jb 230f",
            "cmp ecx, 32",
            "jb 231f",
            "cmp ecx, 48",
            "jb 232f",
            "cmp ecx, 64",
            "jb 233f",
            "cmp ecx, 80",
            "jb 234f",
            "cmp ecx, 96",
            "jb 235f",
            "cmp ecx, 112",
            "jb 236f",
            "cmp ecx, 128",
            "jb 237f",
            "cmp ecx, 144",
            "jb 238f",
            "cmp ecx, 160",
            "jb 239f",
            "cmp ecx, 176",
            "jb 240f",
            "cmp ecx, 192",
            "jb 241f",
            "cmp ecx, 208",
            "jb 242f",
            "cmp ecx, 224",
            "jb 243f",
            "cmp ecx, 240",
            "jb 244f",
            "jmp 245f",
            // Round g uses ring register g % 3 of (ebx, esi, ebp); block m
            // starts at m % 3.
            entry!("0", "230", "200", "ebx", "esi", "ebp"),
            entry!("16", "231", "201", "esi", "ebp", "ebx"),
            entry!("32", "232", "202", "ebp", "ebx", "esi"),
            entry!("48", "233", "203", "ebx", "esi", "ebp"),
            entry!("64", "234", "204", "esi", "ebp", "ebx"),
            entry!("80", "235", "205", "ebp", "ebx", "esi"),
            entry!("96", "236", "206", "ebx", "esi", "ebp"),
            entry!("112", "237", "207", "esi", "ebp", "ebx"),
            entry!("128", "238", "208", "ebp", "ebx", "esi"),
            entry!("144", "239", "209", "ebx", "esi", "ebp"),
            entry!("160", "240", "210", "esi", "ebp", "ebx"),
            entry!("176", "241", "211", "ebp", "ebx", "esi"),
            entry!("192", "242", "212", "ebx", "esi", "ebp"),
            entry!("208", "243", "213", "esi", "ebp", "ebx"),
            entry!("224", "244", "214", "ebp", "ebx", "esi"),
            entry!("240", "245", "215", "ebx", "esi", "ebp"),
            block!("0", "200", "201f", "ebx", "esi", "ebp"),
            block!("16", "201", "202f", "esi", "ebp", "ebx"),
            block!("32", "202", "203f", "ebp", "ebx", "esi"),
            block!("48", "203", "204f", "ebx", "esi", "ebp"),
            block!("64", "204", "205f", "esi", "ebp", "ebx"),
            block!("80", "205", "206f", "ebp", "ebx", "esi"),
            block!("96", "206", "207f", "ebx", "esi", "ebp"),
            block!("112", "207", "208f", "esi", "ebp", "ebx"),
            block!("128", "208", "209f", "ebp", "ebx", "esi"),
            block!("144", "209", "210f", "ebx", "esi", "ebp"),
            block!("160", "210", "211f", "esi", "ebp", "ebx"),
            block!("176", "211", "212f", "ebp", "ebx", "esi"),
            block!("192", "212", "213f", "ebx", "esi", "ebp"),
            block!("208", "213", "214f", "esi", "ebp", "ebx"),
            block!("224", "214", "215f", "ebp", "ebx", "esi"),
            block!("240", "215", "216f", "ebx", "esi", "ebp"),
            // Slot 255 wraps to slot 0: the early loads of slots 0, 1, 2
            // sit in esi, ebp, ebx (g % 3 for g = 256, 257, 258); block 0
            // wants them in ebx, esi, ebp.
            "216:",
            "mov ecx, ebx",
            "mov ebx, esi",
            "mov esi, ebp",
            "mov ebp, ecx",
            "jmp 200b",
            "9:",
            // Drop the pointer and the end; restore ebp and esi.
            "add esp, 8",
            "pop ebp",
            "pop esi",
            in("edi") s,
            inout("ecx") b => _,
            inout("edx") usize::from(st.j) => j_out,
            inout("eax") range.start => _,
            inout("ebx") range.end => _,
            out("xmm0") _,
            out("xmm1") _,
        );
    }
    // i advances by one per byte; b = i + 1 on entry.
    st.i = st.i.wrapping_add(body.len() as u8);
    st.j = j_out as u8;
}
