//! `libsha1detectcoll`: the C API of the reference collision-detecting
//! SHA-1 library ([sha1collisiondetection], Stevens and Shumow) over
//! fastcrypt's [`Sha1Dc`](fastcrypt::sha1::Sha1Dc) kernels.
//!
//! The crate builds `libsha1detectcoll.so` (soname `libsha1detectcoll.so.1`
//! on ELF systems) and `libsha1detectcoll.a`, with the header
//! `include/sha1dc/sha1.h`. Programs written for the reference, such as git
//! built with `DC_SHA1_EXTERNAL`, compile against that header and link with
//! `-lsha1detectcoll` unchanged; the context structure has the reference's
//! layout, so binaries built against the reference's shared library run
//! with this one installed in its place. See the crate's README for
//! building, installing and building git against it.
//!
//! The exported functions are the reference's, with its names, types and
//! semantics: [`SHA1DCInit`], [`SHA1DCSetSafeHash`], [`SHA1DCSetUseUBC`],
//! [`SHA1DCSetUseDetectColl`], [`SHA1DCSetDetectReducedRoundCollision`],
//! [`SHA1DCSetCallback`], [`SHA1DCUpdate`] and [`SHA1DCFinal`]. Digests,
//! safe hashes and the detected / not detected answer are bit-identical to
//! the reference's.
//!
//! One deliberate difference: the reference's header says the collision
//! callback "can be set to be called when a collision block has been
//! found", but the upstream reference (to its current HEAD) only stores it
//! and never calls it. This library calls it, once per block found to be
//! part of an attack, with the block's byte offset, `ihv1`, `ihv2`, `m1`
//! and `m2`, as that header describes. The reference's internals
//! `sha1_compression_states`, `ubc_check` and `sha1_dvs` are not exported.
//!
//! Rust code can use the same functions through the `rlib`:
//!
//! ```
//! use sha1detectcoll::{SHA1DCFinal, SHA1DCUpdate, SHA1_CTX};
//!
//! let mut ctx = SHA1_CTX::new(); // as after SHA1DCInit
//! let data = b"abc";
//! let mut digest = [0u8; 20];
//! // SAFETY: `ctx` is an initialised context and `data` is valid for
//! // `data.len()` bytes; `digest` has room for 20 bytes.
//! let found = unsafe {
//!     SHA1DCUpdate(&mut ctx, data.as_ptr().cast(), data.len());
//!     SHA1DCFinal(digest.as_mut_ptr(), &mut ctx)
//! };
//! assert_eq!(found, 0);
//! assert_eq!(digest, fastcrypt::sha1::digest(b"abc"));
//! ```
//!
//! [sha1collisiondetection]: https://github.com/cr-marcstevens/sha1collisiondetection

use core::ffi::{c_char, c_int, c_uchar};
use std::io::Write as _;

use fastcrypt::sha1::{self, Backend, Collision, DcConfig};

/// The collision callback, `collision_block_callback` in the header:
/// `callback(byte_offset, ihv1, ihv2, m1, m2)`, or `None` (C `NULL`).
///
/// Called once for every block found to be part of an attack, inside
/// [`SHA1DCUpdate`] or [`SHA1DCFinal`]: `byte_offset` is the block's
/// offset in the message, `ihv1` its input chaining value (5 words),
/// `ihv2` the reconstructed input chaining value of the colliding block
/// (5 words), `m1` and `m2` the two blocks' expanded messages (80 words
/// each). The pointers are valid for the call only; the callback must not
/// use the context it was called for, and must return normally (an
/// `extern "C"` function: a panic or C++ exception unwinding out of it
/// aborts the process).
#[allow(non_camel_case_types)]
pub type collision_block_callback =
    Option<unsafe extern "C" fn(u64, *const u32, *const u32, *const u32, *const u32)>;

/// The hashing context, `SHA1_CTX` in the header, field for field the
/// reference's layout (checked against the C header by the tests).
///
/// It holds no pointer into itself, so C callers allocate it anywhere and
/// copy it with `memcpy`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SHA1_CTX {
    /// Bytes hashed so far.
    pub total: u64,
    /// The chaining value.
    pub ihv: [u32; 5],
    /// The partial block not yet compressed (`total % 64` bytes).
    pub buffer: [c_uchar; 64],
    /// Non-zero once an attack was detected; cleared only by
    /// [`SHA1DCInit`].
    pub found_collision: c_int,
    /// The safe hash switch ([`SHA1DCSetSafeHash`]).
    pub safe_hash: c_int,
    /// The detection switch ([`SHA1DCSetUseDetectColl`]).
    pub detect_coll: c_int,
    /// The unavoidable bit conditions filter switch ([`SHA1DCSetUseUBC`]).
    pub ubc_check: c_int,
    /// The reduced-round detection switch
    /// ([`SHA1DCSetDetectReducedRoundCollision`]).
    pub reduced_round_coll: c_int,
    /// The collision callback ([`SHA1DCSetCallback`]).
    pub callback: collision_block_callback,
    /// The input chaining value of the last block found to be part of an
    /// attack.
    pub ihv1: [u32; 5],
    /// The colliding block's reconstructed input chaining value.
    pub ihv2: [u32; 5],
    /// The expanded message of the last block found to be part of an
    /// attack.
    pub m1: [u32; 80],
    /// The colliding block's expanded message.
    pub m2: [u32; 80],
    /// The reference's scratch space for intermediate states: kept for the
    /// layout, unused (zero after [`SHA1DCInit`]).
    pub states: [[u32; 5]; 80],
}

/// SHA-1's initial chaining value.
const IV: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

/// The padding's first bytes: a one bit, then zeros.
const PADDING: [u8; 64] = {
    let mut p = [0u8; 64];
    p[0] = 0x80;
    p
};

impl Default for SHA1_CTX {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for SHA1_CTX {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The buffered data and the chaining value are left out: they
        // are (derived from) the caller's data.
        f.debug_struct("SHA1_CTX")
            .field("total", &self.total)
            .field("found_collision", &self.found_collision)
            .field("config", &self.config())
            .field("callback", &self.callback.is_some())
            .finish_non_exhaustive()
    }
}

impl SHA1_CTX {
    /// A context as [`SHA1DCInit`] leaves it: nothing hashed, safe hash,
    /// detection and the filter on, reduced-round detection off, no
    /// callback; the remaining fields zero.
    pub const fn new() -> Self {
        SHA1_CTX {
            total: 0,
            ihv: IV,
            buffer: [0; 64],
            found_collision: 0,
            safe_hash: 1,
            detect_coll: 1,
            ubc_check: 1,
            reduced_round_coll: 0,
            callback: None,
            ihv1: [0; 5],
            ihv2: [0; 5],
            m1: [0; 80],
            m2: [0; 80],
            states: [[0; 5]; 80],
        }
    }

    /// The switches as they stand in the fields now.
    pub fn config(&self) -> DcConfig {
        DcConfig {
            safe_hash: self.safe_hash != 0,
            ubc: self.ubc_check != 0,
            detect: self.detect_coll != 0,
            reduced_round: self.reduced_round_coll != 0,
        }
    }

    /// Compresses whole blocks at byte `offset` of the message with the
    /// switches in the fields, recording (and reporting to the callback)
    /// every block found to be part of an attack.
    fn compress(&mut self, offset: u64, blocks: &[u8]) {
        let config = self.config();
        let callback = self.callback;
        let SHA1_CTX {
            ihv,
            found_collision,
            ihv1,
            ihv2,
            m1,
            m2,
            ..
        } = self;
        let mut on_collision = |c: &Collision, w1: &[u32; 80], w2: &[u32; 80]| {
            *found_collision = 1;
            *ihv1 = c.ihv1;
            *ihv2 = c.ihv2;
            *m1 = *w1;
            *m2 = *w2;
            if let Some(f) = callback {
                // SAFETY: `f` was set by the caller through
                // SHA1DCSetCallback (or the field) as a function of the
                // header's collision_block_callback type, whose contract is
                // this call: four pointers to 5, 5, 80 and 80 readable
                // words, valid for the duration of the call (they point
                // into this context, which is not otherwise touched until
                // the call returns).
                unsafe {
                    f(
                        c.offset,
                        ihv1.as_ptr(),
                        ihv2.as_ptr(),
                        m1.as_ptr(),
                        m2.as_ptr(),
                    )
                };
            }
        };
        // `fastest()` is always a backend this CPU runs, so this cannot
        // fail; if it ever did, nothing was compressed.
        if sha1::compress_dc(
            Backend::fastest(),
            &config,
            ihv,
            offset,
            blocks,
            &mut on_collision,
        )
        .is_err()
        {
            fatal("no SHA-1 kernel can run on this CPU");
        }
    }

    /// `SHA1DCUpdate` on a slice: the reference's buffering, with whole
    /// blocks compressed straight from `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let left = (self.total % 64) as usize;
        if left > 0 {
            let fill = 64 - left;
            if data.len() < fill {
                self.buffer[left..left + data.len()].copy_from_slice(data);
                self.total = self.total.wrapping_add(data.len() as u64);
                return;
            }
            self.buffer[left..].copy_from_slice(&data[..fill]);
            let offset = self.total.wrapping_sub(left as u64);
            self.total = self.total.wrapping_add(fill as u64);
            let block = self.buffer;
            self.compress(offset, &block);
            data = &data[fill..];
        }
        let whole = data.len() - data.len() % 64;
        if whole > 0 {
            let offset = self.total;
            self.total = self.total.wrapping_add(whole as u64);
            self.compress(offset, &data[..whole]);
        }
        let rest = &data[whole..];
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.total = self.total.wrapping_add(rest.len() as u64);
    }

    /// `SHA1DCFinal` in Rust: pads as the reference does (leaving `total`
    /// and `buffer` as it leaves them) and returns the digest and whether
    /// an attack was found in this message.
    pub fn finalize(&mut self) -> ([u8; 20], bool) {
        let last = (self.total % 64) as usize;
        let padn = if last < 56 { 56 - last } else { 120 - last };
        self.update(&PADDING[..padn]);
        let bits = self.total.wrapping_sub(padn as u64).wrapping_mul(8);
        self.buffer[56..].copy_from_slice(&bits.to_be_bytes());
        let block = self.buffer;
        self.compress(self.total.wrapping_sub(56), &block);
        let mut digest = [0u8; 20];
        for (out, word) in digest.chunks_exact_mut(4).zip(self.ihv) {
            out.copy_from_slice(&word.to_be_bytes());
        }
        (digest, self.found_collision != 0)
    }
}

/// Reports a caller error the reference would crash on, and aborts: no
/// panic may unwind into C.
#[cold]
fn fatal(what: &str) -> ! {
    // A failed write to stderr changes nothing: the process aborts.
    let _ = writeln!(std::io::stderr(), "libsha1detectcoll: {what}");
    std::process::abort()
}

/// The context behind `ctx`, or abort on `NULL`.
///
/// # Safety
///
/// `ctx` is `NULL` or points to a `SHA1_CTX` that was initialised (by
/// [`SHA1DCInit`] or by copying an initialised one) and that nothing else
/// accesses during the returned borrow.
unsafe fn context<'a>(ctx: *mut SHA1_CTX, function: &str) -> &'a mut SHA1_CTX {
    // SAFETY: the caller guarantees that a non-null `ctx` is an exclusive,
    // initialised context (the header's contract for every function).
    match unsafe { ctx.as_mut() } {
        Some(c) => c,
        None => fatal(&format!("{function}: NULL context")),
    }
}

/// Starts a new hash in `*ctx` (see the header): SHA-1's initial value,
/// nothing hashed, no collision found, safe hash, detection and the
/// filter on, reduced-round detection off, no callback.
///
/// Unlike the reference, which leaves them as they were, the `ihv1`,
/// `ihv2`, `m1`, `m2` and `states` fields are zeroed.
///
/// # Safety
///
/// `ctx` points to writable memory for a `SHA1_CTX` (initialised or not)
/// that nothing else accesses during the call. `NULL` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCInit(ctx: *mut SHA1_CTX) {
    if ctx.is_null() {
        fatal("SHA1DCInit: NULL context");
    }
    // SAFETY: `ctx` is non-null and, by the contract above, valid for a
    // write of a whole `SHA1_CTX`; `write` does not read (or drop) the
    // possibly uninitialised old contents. The alignment is the C
    // compiler's for the same `repr(C)` layout.
    unsafe { ctx.write(SHA1_CTX::new()) };
}

/// Turns the safe hash on (`safehash != 0`, the default) or off.
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX` that nothing else accesses
/// during the call. `NULL` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCSetSafeHash(ctx: *mut SHA1_CTX, safehash: c_int) {
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCSetSafeHash") };
    ctx.safe_hash = c_int::from(safehash != 0);
}

/// Turns the unavoidable bit conditions filter on (`ubc_check != 0`, the
/// default) or off.
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX` that nothing else accesses
/// during the call. `NULL` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCSetUseUBC(ctx: *mut SHA1_CTX, ubc_check: c_int) {
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCSetUseUBC") };
    ctx.ubc_check = c_int::from(ubc_check != 0);
}

/// Turns collision detection on (`detect_coll != 0`, the default) or off.
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX` that nothing else accesses
/// during the call. `NULL` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCSetUseDetectColl(ctx: *mut SHA1_CTX, detect_coll: c_int) {
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCSetUseDetectColl") };
    ctx.detect_coll = c_int::from(detect_coll != 0);
}

/// Turns reduced-round collision detection on (`reduced_round_coll != 0`)
/// or off (the default).
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX` that nothing else accesses
/// during the call. `NULL` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCSetDetectReducedRoundCollision(
    ctx: *mut SHA1_CTX,
    reduced_round_coll: c_int,
) {
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCSetDetectReducedRoundCollision") };
    ctx.reduced_round_coll = c_int::from(reduced_round_coll != 0);
}

/// Sets the collision callback (`None`, C `NULL`, for none: the default).
/// See [`collision_block_callback`] for when and how it is called.
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX` that nothing else accesses
/// during the call. `NULL` aborts. `callback` must be safe to call as the
/// header describes, for as long as it stays set in the context.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCSetCallback(ctx: *mut SHA1_CTX, callback: collision_block_callback) {
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCSetCallback") };
    ctx.callback = callback;
}

/// Hashes `len` bytes at `buf`. `len == 0` returns at once, whatever the
/// pointers, as in the reference.
///
/// # Safety
///
/// When `len > 0`: `ctx` points to an initialised `SHA1_CTX` and `buf` to
/// `len` readable bytes, neither accessed by anything else during the
/// call (the callback included). A `NULL` `ctx` or `buf` aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCUpdate(ctx: *mut SHA1_CTX, buf: *const c_char, len: usize) {
    if len == 0 {
        return;
    }
    if buf.is_null() {
        fatal("SHA1DCUpdate: NULL buffer with a non-zero length");
    }
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCUpdate") };
    // A Rust slice holds at most `isize::MAX` bytes; a 32-bit process can
    // pass more (a mapped file over 2 GiB), which the reference hashes.
    let (mut at, mut left) = (buf.cast::<u8>(), len);
    while left > 0 {
        let n = left.min(isize::MAX as usize);
        // SAFETY: `at` points into the `len` readable bytes at `buf`, with
        // `left >= n` of them from `at` on, which nothing writes during
        // the call (this function's contract); `n <= isize::MAX`; `u8`
        // has the size and alignment of `c_char`.
        let data = unsafe { core::slice::from_raw_parts(at, n) };
        ctx.update(data);
        // SAFETY: `at + n` is at most one past the end of the caller's
        // buffer.
        at = unsafe { at.add(n) };
        left -= n;
    }
}

/// Pads, finishes the hash and writes the 20-byte digest to `output`.
/// Returns the context's `found_collision`: 0 when no attack was detected
/// in the message, non-zero when one was (in any of its blocks).
///
/// # Safety
///
/// `ctx` points to an initialised `SHA1_CTX`, `output` to 20 writable
/// bytes, neither accessed by anything else during the call. `NULL`
/// aborts.
#[no_mangle]
pub unsafe extern "C" fn SHA1DCFinal(output: *mut c_uchar, ctx: *mut SHA1_CTX) -> c_int {
    if output.is_null() {
        fatal("SHA1DCFinal: NULL output");
    }
    // SAFETY: forwarded from this function's contract.
    let ctx = unsafe { context(ctx, "SHA1DCFinal") };
    let (digest, _) = ctx.finalize();
    let found = ctx.found_collision;
    // SAFETY: `output` is non-null and points to 20 writable bytes (this
    // function's contract); `digest` is a local array, so the two do not
    // overlap.
    unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), output, digest.len()) };
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastcrypt::sha1::Sha1Dc;

    fn data(len: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn layout_is_the_reference_s() {
        use core::mem::{align_of, offset_of, size_of};
        let p = size_of::<usize>();
        assert_eq!(offset_of!(SHA1_CTX, total), 0);
        assert_eq!(offset_of!(SHA1_CTX, ihv), 8);
        assert_eq!(offset_of!(SHA1_CTX, buffer), 28);
        assert_eq!(offset_of!(SHA1_CTX, found_collision), 92);
        assert_eq!(offset_of!(SHA1_CTX, reduced_round_coll), 108);
        assert_eq!(offset_of!(SHA1_CTX, callback), 112);
        assert_eq!(offset_of!(SHA1_CTX, ihv1), 112 + p);
        assert_eq!(offset_of!(SHA1_CTX, states), 112 + p + 40 + 640);
        let end = 112 + p + 40 + 640 + 1600;
        assert_eq!(
            size_of::<SHA1_CTX>(),
            end.next_multiple_of(align_of::<SHA1_CTX>())
        );
        assert_eq!(size_of::<collision_block_callback>(), p);
    }

    #[test]
    fn agrees_with_sha1dc_for_every_split() {
        let msg = data(700);
        let want = sha1::digest_dc(&msg);
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 500, 700] {
            let mut ctx = SHA1_CTX::new();
            ctx.update(&msg[..split]);
            ctx.update(&msg[split..]);
            assert_eq!(ctx.finalize(), (want.digest, false), "split {split}");
        }
        for len in 0..=130 {
            let mut ctx = SHA1_CTX::new();
            for b in &msg[..len] {
                ctx.update(core::slice::from_ref(b));
            }
            assert_eq!(ctx.finalize().0, sha1::digest(&msg[..len]), "len {len}");
        }
    }

    #[test]
    fn switches_are_read_from_the_fields() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fastcrypt/testdata/sha1dc/shattered-1.pdf"
        );
        let pdf = std::fs::read(path).unwrap();
        for (safe_hash, detect, ubc) in [(1, 1, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0)] {
            let mut ctx = SHA1_CTX::new();
            ctx.safe_hash = safe_hash;
            ctx.detect_coll = detect;
            ctx.ubc_check = ubc;
            let cfg = ctx.config();
            ctx.update(&pdf);
            let mut rust = Sha1Dc::new().with_config(cfg);
            rust.update(&pdf);
            let want = rust.finalize();
            assert_eq!(ctx.finalize(), (want.digest, want.is_collision()));
            if let Some(c) = want.collision {
                assert_eq!((ctx.ihv1, ctx.ihv2), (c.ihv1, c.ihv2));
            }
        }
    }
}
