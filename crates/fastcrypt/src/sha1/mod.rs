//! SHA-1 (FIPS 180-4).
//!
//! **SHA-1 is broken for collision resistance** (SHAttered, 2017; chosen
//! prefix "SHA-1 is a Shambles", 2020). Use it only to interoperate with
//! formats that require it: git object ids, BitTorrent v1 pieces,
//! HMAC-SHA1 (still sound as a MAC), TOTP, UUIDv5.
//!
//! ```
//! use fastcrypt::sha1::{self, Backend, Sha1};
//!
//! let mut h = Sha1::new();
//! h.update(b"hello ");
//! h.update(b"world");
//! assert_eq!(h.finalize(), sha1::digest(b"hello world"));
//!
//! // Force the portable backend (always available):
//! let h = Sha1::with_backend(Backend::Portable).unwrap();
//! assert_eq!(h.backend(), Backend::Portable);
//! ```
//!
//! Backends: `portable` (safe Rust), `ssse3` and `avx2` (message schedule
//! computed with SIMD, feeding scalar rounds), `shani` (SHA extensions).

/// Runs `$body` with `$i` bound to each constant index below `$n` (at
/// most 80), so every step's shift counts and lane constants are
/// immediates rather than loads from a table (the collision detector's
/// filters and recompressions, and the lane kernels' filter).
macro_rules! unroll {
    ($n:expr, |$i:ident| $body:block) => {
        unroll!(@ $n, $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
            24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50
            51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77
            78 79)
    };
    (@ $n:expr, $i:ident, $body:block, $($k:literal)*) => {
        const _: () = assert!($n <= 80);
        $(
            if $k < $n {
                const $i: usize = if $k < $n { $k } else { 0 };
                $body
            }
        )*
    };
}

pub(crate) mod dc;
mod hmac;
pub mod many;
pub(crate) mod portable;

/// What a fused detection loop does with `dc::after_block`'s verdict on
/// block `$n`: count a detection, and after a safe-hash rehash (the new
/// chaining value is `$out`) restart from the next block with
/// `$again($pre.., state, offset, rest, on)`, because the blocks after it
/// were compressed from a void chaining value.
#[cfg(fastcrypt_x86)]
macro_rules! act_on_verdict {
    ($verdict:expr, $n:expr, $out:ident, $found:ident, $state:ident, $offset:ident,
     $blocks:ident, $on:ident, $again:ident $(::<$($g:ident),+>)? ($($pre:ident),*)) => {
        match $verdict {
            Verdict::Clean => {}
            Verdict::Detected => $found += 1,
            Verdict::Rehashed => {
                $found += 1;
                *$state = $out;
                let rest = &$blocks[($n + 1) * 64..];
                let next = $offset + (($n + 1) * 64) as u64;
                // SAFETY: the features of the entry point this expands in
                // are enabled.
                return $found + unsafe { $again $(::<$($g),+>)? ($($pre,)* $state, next, rest, $on) };
            }
        }
    };
}

#[cfg(fastcrypt_x86)]
mod x86_avx2;
#[cfg(fastcrypt_x86)]
mod x86_shani;
#[cfg(fastcrypt_x86)]
mod x86_ssse3;

pub use many::{digest_many, digest_pieces, pbkdf2_hmac_sha1_many, Sha1Many};

pub use hmac::{hmac_sha1, pbkdf2_hmac_sha1, HmacSha1, MacError, Pbkdf2Error};

pub use dc::{
    compress_dc, digest_dc, digest_dc_with, Collision, DcConfig, DcDigest, DisturbanceVector,
    DvType, OnCollision, Sha1Dc,
};

#[cfg(feature = "rustcrypto")]
pub use crate::traits::sha1::Sha1Core;
// What RustCrypto's `sha1` crate re-exports, so its users' `use` lines
// carry over.
#[cfg(feature = "rustcrypto")]
pub use digest::{self, Digest};

use zeroize::Zeroize;

/// SHA-1 block size in bytes.
pub const BLOCK_LEN: usize = 64;
/// SHA-1 digest size in bytes.
pub const DIGEST_LEN: usize = 20;

pub(crate) const IV: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

define_backends! {
    primitive: "sha1";
    /// Safe, portable Rust: the oracle the other backends are checked against.
    Portable => "portable";
    /// SSSE3 message schedule (4 words per vector) feeding scalar rounds.
    Ssse3 => "ssse3", #[cfg(fastcrypt_x86)] Ssse3Token;
    /// AVX2 message schedule for two blocks per pass, BMI2 rotates.
    Avx2 => "avx2", #[cfg(fastcrypt_x86)] Avx2Token;
    /// SHA extensions (`sha1rnds4`, `sha1msg1`, `sha1msg2`, `sha1nexte`).
    Shani => "shani", #[cfg(fastcrypt_x86)] ShaNiToken;
}

impl Kernel {
    /// Compresses every whole block of `blocks` (its length is a multiple of
    /// 64) into `state`. Called once per bulk update, never per block.
    #[inline]
    pub(crate) fn compress(self, state: &mut [u32; 5], blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % BLOCK_LEN, 0);
        match self {
            Kernel::Portable => portable::compress(state, blocks),
            #[cfg(fastcrypt_x86)]
            Kernel::Ssse3(t) => x86_ssse3::compress(t, state, blocks),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => x86_avx2::compress(t, state, blocks),
            #[cfg(fastcrypt_x86)]
            Kernel::Shani(t) => x86_shani::compress(t, state, blocks),
        }
    }
}

/// An incremental SHA-1 hasher.
///
/// The state and buffered input are zeroed when the value is dropped (a
/// hasher keyed by HMAC holds key material).
#[derive(Clone)]
pub struct Sha1 {
    pub(crate) state: [u32; 5],
    /// Bytes compressed so far (whole blocks only).
    pub(crate) compressed: u64,
    pub(crate) buf: [u8; BLOCK_LEN],
    pub(crate) buf_len: usize,
    pub(crate) backend: Backend,
    pub(crate) kernel: Kernel,
}

impl Drop for Sha1 {
    fn drop(&mut self) {
        // As slices: `zeroize` writes a slice in one fill behind an
        // optimisation barrier, an array element by element (volatile).
        self.state.as_mut_slice().zeroize();
        self.buf.as_mut_slice().zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for Sha1 {}

impl core::fmt::Debug for Sha1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sha1")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Default for Sha1 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha1 {
    /// A hasher using the fastest backend this CPU runs.
    #[inline]
    pub fn new() -> Sha1 {
        let (backend, kernel) = Backend::auto();
        Self::from_kernel(backend, kernel)
    }

    /// A hasher using `backend`, or [`Unsupported`](crate::Unsupported) if
    /// this CPU (or build) cannot run it.
    ///
    /// ```
    /// use fastcrypt::sha1::{Backend, Sha1};
    /// for b in Backend::ALL {
    ///     match Sha1::with_backend(*b) {
    ///         Ok(h) => assert_eq!(h.backend(), *b),
    ///         Err(e) => println!("skipping: {e}"),
    ///     }
    /// }
    /// ```
    #[inline]
    pub fn with_backend(backend: Backend) -> Result<Sha1, crate::Unsupported> {
        Ok(Self::from_kernel(backend, backend.kernel()?))
    }

    #[inline]
    fn from_kernel(backend: Backend, kernel: Kernel) -> Sha1 {
        Sha1 {
            state: IV,
            compressed: 0,
            buf: [0; BLOCK_LEN],
            buf_len: 0,
            backend,
            kernel,
        }
    }

    /// The backend this hasher uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Absorbs `data`; any length, any number of calls. Takes anything
    /// that is bytes (`&[u8]`, `&str`, `Vec<u8>`, arrays), as
    /// `digest::Digest::update` does.
    #[inline]
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        self.update_slice(data.as_ref());
    }

    fn update_slice(&mut self, data: &[u8]) {
        let (state, compressed, kernel) = (&mut self.state, &mut self.compressed, self.kernel);
        absorb(&mut self.buf, &mut self.buf_len, data, |blocks| {
            kernel.compress(state, blocks);
            *compressed = compressed.wrapping_add(blocks.len() as u64);
        });
    }

    /// Pads, compresses the last block(s) and returns the digest.
    pub fn finalize(mut self) -> [u8; DIGEST_LEN] {
        self.finalize_into_array()
    }

    /// Returns the digest and resets the hasher to its initial state,
    /// keeping its backend.
    pub fn finalize_reset(&mut self) -> [u8; DIGEST_LEN] {
        let out = self.finalize_into_array();
        self.reset();
        out
    }

    /// Back to the initial state, keeping the backend.
    pub fn reset(&mut self) {
        self.state = IV;
        self.compressed = 0;
        self.buf_len = 0;
    }

    fn finalize_into_array(&mut self) -> [u8; DIGEST_LEN] {
        let (state, kernel) = (&mut self.state, self.kernel);
        pad_final(
            &mut self.buf,
            self.buf_len,
            self.compressed.wrapping_add(self.buf_len as u64),
            |blocks| kernel.compress(state, blocks),
        );
        state_to_bytes(&self.state)
    }
}

/// Feeds `data` through a one-block buffer holding `*buf_len` bytes:
/// `compress` gets the buffered block once it is full, then all the whole
/// blocks of `data` in one call; the rest stays buffered. The update of
/// every SHA-1 hasher.
#[inline(always)]
pub(crate) fn absorb(
    buf: &mut [u8; BLOCK_LEN],
    buf_len: &mut usize,
    mut data: &[u8],
    mut compress: impl FnMut(&[u8]),
) {
    if *buf_len > 0 {
        let take = (BLOCK_LEN - *buf_len).min(data.len());
        buf[*buf_len..*buf_len + take].copy_from_slice(&data[..take]);
        *buf_len += take;
        data = &data[take..];
        if *buf_len < BLOCK_LEN {
            return;
        }
        compress(&buf[..]);
        *buf_len = 0;
    }
    let whole = data.len() / BLOCK_LEN * BLOCK_LEN;
    if whole > 0 {
        compress(&data[..whole]);
    }
    let rest = &data[whole..];
    buf[..rest.len()].copy_from_slice(rest);
    *buf_len = rest.len();
}

pub(crate) fn state_to_bytes(state: &[u32; 5]) -> [u8; DIGEST_LEN] {
    let mut out = [0u8; DIGEST_LEN];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// SHA-1 of `data` in one call, with the fastest backend.
///
/// ```
/// let d = fastcrypt::sha1::digest(b"abc");
/// assert_eq!(d[..4], [0xa9, 0x99, 0x3e, 0x36]);
/// ```
pub fn digest(data: &[u8]) -> [u8; DIGEST_LEN] {
    // No hasher object: whole blocks straight from `data`, then the padded
    // tail from the stack. For short messages this is one kernel call and
    // no 64-byte buffer to fill and copy (the per-call overhead is most of
    // what Hash8Bytes measures besides the one compression).
    digest_on(Backend::auto().1, data)
}

/// SHA-1 of `data` in one call, on `backend`: what [`digest()`] does with
/// the backend forced, or why this CPU cannot run it.
///
/// ```
/// use fastcrypt::sha1::{digest, digest_with, Backend};
/// for b in Backend::ALL {
///     if let Ok(d) = digest_with(*b, b"abc") {
///         assert_eq!(d, digest(b"abc"));
///     }
/// }
/// ```
pub fn digest_with(backend: Backend, data: &[u8]) -> Result<[u8; DIGEST_LEN], crate::Unsupported> {
    Ok(digest_on(backend.kernel()?, data))
}

#[inline(always)]
fn digest_on(kernel: Kernel, data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut state = IV;
    let whole = data.len() / BLOCK_LEN * BLOCK_LEN;
    if whole > 0 {
        kernel.compress(&mut state, &data[..whole]);
    }
    let mut tail = [0u8; 2 * BLOCK_LEN];
    let n = padded_tail(&mut tail, &data[whole..], data.len() as u64);
    kernel.compress(&mut state, &tail[..n]);
    state_to_bytes(&state)
}

/// Pads the last `n` buffered bytes of a message of `total_len` bytes in
/// place and hands the final block, or blocks, to `compress` in one call:
/// `buf` itself when the length fits behind the 0x80 byte, else `buf`
/// and a second block built on the stack, wiped afterwards (it holds key
/// bytes under HMAC). The finalisation of every one-buffer SHA-1 hasher.
/// (A fixed-size masked copy into a fresh stack block was tried and
/// measured slower: the byte loop does not vectorise.)
#[inline(always)]
pub(crate) fn pad_final(
    buf: &mut [u8; BLOCK_LEN],
    n: usize,
    total_len: u64,
    compress: impl FnOnce(&[u8]),
) {
    let bits = total_len.wrapping_mul(8).to_be_bytes();
    buf[n] = 0x80;
    buf[n + 1..].fill(0);
    if n < BLOCK_LEN - 8 {
        buf[BLOCK_LEN - 8..].copy_from_slice(&bits);
        compress(buf);
    } else {
        let mut two = [0u8; 2 * BLOCK_LEN];
        two[..BLOCK_LEN].copy_from_slice(buf);
        two[2 * BLOCK_LEN - 8..].copy_from_slice(&bits);
        compress(&two);
        two.as_mut_slice().zeroize();
    }
}

/// Writes the last blocks of a message of `total_len` bytes whose
/// unprocessed end is `rest` into `tail`, which must be zero from
/// `rest.len()` on (a fresh buffer of `N` bytes, a multiple of 64 with
/// room for `rest` and nine more bytes): `rest`, the 0x80 byte, zeros and
/// the length in bits. Returns the padded length, the fewest whole blocks
/// that hold it all. (It fills the caller's buffer rather than returning
/// one: a returned 256-byte array was copied with a `memcpy` call, which
/// cost short one-shot detections 3-5 ns.)
#[inline(always)]
pub(crate) fn padded_tail<const N: usize>(
    tail: &mut [u8; N],
    rest: &[u8],
    total_len: u64,
) -> usize {
    debug_assert!(N.is_multiple_of(BLOCK_LEN) && rest.len() + 9 <= N);
    debug_assert!(tail[rest.len()..].iter().all(|&b| b == 0));
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let n = (rest.len() + 8) / BLOCK_LEN * BLOCK_LEN + BLOCK_LEN;
    tail[n - 8..n].copy_from_slice(&total_len.wrapping_mul(8).to_be_bytes());
    n
}
