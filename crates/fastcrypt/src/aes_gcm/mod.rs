//! AES-GCM (NIST SP 800-38D): AES-128/192/256 in counter mode with a GHASH
//! tag, for TLS, QUIC and SSH.
//!
//! ```
//! use fastcrypt::aes_gcm::Aes128Gcm;
//!
//! let key = [0x42; 16];
//! let gcm = Aes128Gcm::new(&key);
//! let nonce = [7u8; 12]; // never reuse a nonce with the same key
//!
//! let mut buf = *b"attack at dawn";
//! let tag = gcm.seal_in_place_detached(&nonce, b"header", &mut buf).unwrap();
//! assert_ne!(&buf, b"attack at dawn");
//!
//! gcm.open_in_place_detached(&nonce, b"header", &mut buf, tag.as_ref()).unwrap();
//! assert_eq!(&buf, b"attack at dawn");
//!
//! // A wrong tag is refused and the buffer is wiped.
//! let mut buf2 = *b"attack at dawn";
//! let tag2 = gcm.seal_in_place_detached(&nonce, b"", &mut buf2).unwrap();
//! assert!(gcm.open_in_place_detached(&nonce, b"other aad", &mut buf2, tag2.as_ref()).is_err());
//! assert_eq!(buf2, [0u8; 14]);
//! ```
//!
//! # Backends
//!
//! Each key pairs an AES kernel with a GHASH kernel once, at construction:
//!
//! - `portable`: the RustCrypto `aes` crate (AES-NI when present, else its
//!   constant-time fixsliced software) with fastcrypt's constant-time
//!   portable GHASH, interleaved over 4 KiB chunks (CTR a chunk while it is
//!   in L1, then hash it), never two passes over the whole message; the
//!   oracle the other backends are checked against;
//! - `aes_sse2`: the same pairing with the constant-time SIMD GHASH for
//!   CPUs without carry-less multiplication (the `avx2` GHASH kernel where
//!   AVX2 runs, else `ssse3`, else `sse2`; all compute the same function),
//!   so a CPU
//!   with AES-NI but no PCLMULQDQ, or with neither, gets SIMD GHASH;
//!   needs SSE2, and is what [`Aes128Gcm::new`] picks where the fused
//!   backends cannot run;
//! - `aesni_pclmul`: a fused kernel that encrypts counter blocks n..n+7 with
//!   AES-NI while it hashes the previous 8 ciphertext blocks with
//!   PCLMULQDQ (one reduction per 8 blocks, H^1..H^8 precomputed);
//! - `vaes_vpclmul`: the same on 256-bit registers, 16 blocks per
//!   iteration (two per instruction), needing VAES + VPCLMULQDQ + AVX2 and
//!   OS-saved YMM state, not AVX-512;
//! - `vaes_avx512`: the same on 512-bit registers, four blocks per
//!   instruction, needing AVX-512 F/BW/VL with OS-saved opmask and ZMM
//!   state; the last 0..=256 bytes of a message go through one batch of
//!   counter blocks and E(K, J0), loaded and stored with byte masks, and
//!   one GHASH reduction that takes the lengths block too. Messages under
//!   128 bytes take `vaes_vpclmul`'s path, which measured faster for them.
//!
//! # Failure
//!
//! Opening is one fused pass, as sealing is: each block of ciphertext is
//! hashed and decrypted while it is in registers. The computed tag is then
//! compared in constant time with the given one; on a mismatch the whole
//! buffer is zeroed before [`Error::Authentication`] is returned, so the
//! caller never receives unauthenticated plaintext (the allocating `open`
//! drops its buffer). A wrong nonce or tag length also zeroes the buffer;
//! an over-long message or AAD ([`P_MAX`], [`A_MAX`]) is refused before
//! the buffer is touched. Either way no plaintext is produced. Round keys
//! and the powers of H are zeroized on drop. As with RustCrypto's crates,
//! that covers the value where it is dropped: moving a cipher (returning
//! it from `new`, say) may leave earlier copies on the stack, and round
//! keys the kernels spill to the stack are not wiped. Keep a cipher in
//! one place (a `Box`) if that matters.
//!
//! # Nonces and tags
//!
//! `new`/`with_backend` take 96-bit nonces (the only length to use in new
//! designs) and 16-byte tags. [`Aes128Gcm::with_params`] turns a cipher
//! into one for other nonce lengths (any non-zero length, hashed into the initial
//! counter as SP 800-38D section 7.1 says) or shorter tags (12..=16, or 8
//! and 4 bytes for the restricted uses of SP 800-38D Appendix C).

mod portable;

#[cfg(fastcrypt_x86)]
use crate::cpu;
#[cfg(fastcrypt_x86)]
mod x86;
#[cfg(fastcrypt_x86)]
mod x86_aesni_pclmul;
#[cfg(fastcrypt_x86)]
mod x86_vaes_avx512;
#[cfg(fastcrypt_x86)]
mod x86_vaes_vpclmul;

use crate::{ct_eq, ByteArray};
use core::fmt;

// What RustCrypto's `aes-gcm` re-exports, so its users' `use` lines carry
// over (the allocating `Aead` is `aead::Aead`, with the `alloc` feature).
#[cfg(feature = "rustcrypto")]
pub use aead::{self, AeadCore, AeadInOut, Key, KeyInit, KeySizeUser};

/// RustCrypto's nonce type (`aes_gcm::Nonce`), 12 bytes unless said
/// otherwise, for the `aead` traits. fastcrypt's own methods take any
/// `&[u8]`.
#[cfg(feature = "rustcrypto")]
pub type Nonce<NonceSize = aead::consts::U12> = aead::array::Array<u8, NonceSize>;

/// Length of the standard (96-bit) nonce.
pub const NONCE_LEN: usize = 12;
/// Length of a full tag.
pub const TAG_LEN: usize = 16;
/// Longest plaintext one nonce can seal: 2^36 - 32 bytes (2^32 - 2 blocks).
pub const P_MAX: u64 = (1 << 36) - 32;
/// Longest additional data: 2^61 - 1 bytes.
pub const A_MAX: u64 = (1 << 61) - 1;

define_backends! {
    primitive: "aes-gcm";
    /// `aes` crate + constant-time portable GHASH, interleaved per 4 KiB.
    Portable => "portable";
    /// `aes` crate (AES-NI when present) + constant-time SIMD GHASH without
    /// carry-less multiplication (AVX2 when present, else SSSE3, else SSE2),
    /// per 4 KiB.
    AesSse2 => "aes_sse2", #[cfg(fastcrypt_x86)] Sse2Token;
    /// Fused AES-NI + PCLMULQDQ kernel, 8 blocks per iteration.
    AesniPclmul => "aesni_pclmul", #[cfg(fastcrypt_x86)] AesNiToken;
    /// Fused VAES + VPCLMULQDQ kernel on 256-bit registers, 16 blocks per iteration.
    VaesVpclmul => "vaes_vpclmul", #[cfg(fastcrypt_x86)] VaesToken;
    /// Fused VAES + VPCLMULQDQ kernel on 512-bit registers (AVX-512), 32
    /// blocks per iteration, masked tails; messages under 128 bytes on
    /// the 256-bit kernel's path.
    VaesAvx512 => "vaes_avx512", #[cfg(fastcrypt_x86)] Vaes512Token;
}

/// Why a seal or open failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The tag does not match: wrong key, nonce, AAD, ciphertext or tag.
    Authentication,
    /// The nonce length is not the one this cipher was built for.
    NonceLength {
        /// Length given.
        got: usize,
    },
    /// The tag length is not the one this cipher was built for, or a
    /// tag length that GCM does not allow was requested.
    TagLength {
        /// Length given.
        got: usize,
    },
    /// The input to the allocating `open` is shorter than one tag, so it
    /// holds no ciphertext-and-tag to check.
    SealedTooShort {
        /// Length given.
        got: usize,
        /// The tag length this cipher expects.
        tag_len: usize,
    },
    /// More than [`P_MAX`] bytes of plaintext or ciphertext.
    MessageTooLong,
    /// More than [`A_MAX`] bytes of additional data.
    AadTooLong,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Authentication => f.write_str("AES-GCM: authentication failed"),
            Error::NonceLength { got } => write!(f, "AES-GCM: wrong nonce length {got}"),
            Error::TagLength { got } => write!(f, "AES-GCM: wrong tag length {got}"),
            Error::SealedTooShort { got, tag_len } => write!(
                f,
                "AES-GCM: sealed input of {got} bytes is shorter than the {tag_len}-byte tag"
            ),
            Error::MessageTooLong => write!(f, "AES-GCM: message longer than {P_MAX} bytes"),
            Error::AadTooLong => write!(f, "AES-GCM: additional data longer than {A_MAX} bytes"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// A key of the wrong length for the cipher, from `new_from_slice`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidKeyLength {
    /// Length given.
    pub got: usize,
    /// The length the cipher takes.
    pub want: usize,
}

impl fmt::Display for InvalidKeyLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "AES-GCM: {}-byte key, this cipher takes {} bytes",
            self.got, self.want
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InvalidKeyLength {}

/// An authentication tag: 16 bytes, or fewer for a cipher built with a
/// shorter tag length. `as_ref()` gives exactly the tag's bytes. `==`
/// compares in constant time (tags are compared against secrets).
///
/// Aligned to 16 bytes, so that the tag's bytes never straddle two cache
/// lines wherever a caller keeps it (a `Result<Tag, Error>` on the stack,
/// a struct field): the seal writes them with one 16-byte store, and a
/// caller's 16-byte read of them is then forwarded from that store. A
/// read across a line boundary is not, and waits for the store to retire.
#[derive(Clone, Copy)]
#[repr(align(16))]
pub struct Tag {
    bytes: [u8; TAG_LEN],
    len: u8,
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        ct_eq(self.as_ref(), other.as_ref())
    }
}

impl Eq for Tag {}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag(")?;
        self.as_ref()
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))?;
        write!(f, ")")
    }
}

/// Nonce lengths a cipher accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NonceLen {
    /// 96-bit nonces only (the default, and the only choice for new designs).
    Standard,
    /// Any non-zero length; lengths other than 12 bytes are hashed with
    /// GHASH into the initial counter (SP 800-38D section 7.1).
    Any,
}

/// What every engine (a key schedule and GHASH key in the form a backend
/// wants, and the code that uses them) does; the public types only
/// orchestrate these operations: nonce and length checks, tag truncation
/// and comparison, wiping on failure.
trait GcmEngine {
    /// Absorbs `data` into the POLYVAL-form accumulator `acc` (see
    /// `crate::ghash`), zero-padding a final partial block: J0 from a
    /// nonce that is not 96 bits.
    fn ghash_padded(&self, acc: &mut u128, data: &[u8]);

    /// CTR-encrypts `buf` from inc32(J0), hashes AAD, ciphertext and
    /// lengths, and returns the full 16-byte tag. `j0` is J0 as a value
    /// (see [`Gcm::j0`]).
    fn seal(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16];

    /// Decrypts `buf` in place from inc32(J0) while hashing its
    /// ciphertext (one fused pass, as `seal`), and returns the full tag
    /// of AAD and ciphertext. The caller compares it and wipes `buf` on a
    /// mismatch, so nothing unauthenticated leaves [`Gcm::open`].
    fn open(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16];
}

/// The engine a key was built with (see [`on_engine!`]).
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Engine {
    Portable(portable::Engine),
    #[cfg(fastcrypt_x86)]
    AesSse2(portable::Engine),
    #[cfg(fastcrypt_x86)]
    AesniPclmul(x86::Engine<cpu::AesNiToken>),
    #[cfg(fastcrypt_x86)]
    VaesVpclmul(x86::Engine<cpu::VaesToken>),
    #[cfg(fastcrypt_x86)]
    VaesAvx512(x86::Engine<cpu::Vaes512Token>),
}

impl Engine {
    fn new(kernel: Kernel, key: &[u8]) -> Engine {
        match kernel {
            Kernel::Portable => {
                Engine::Portable(portable::Engine::new(key, crate::ghash::Kernel::Portable))
            }
            #[cfg(fastcrypt_x86)]
            Kernel::AesSse2(t) => {
                use crate::ghash::Kernel as G;
                // The fastest GHASH without CLMUL that runs (AVX2, else
                // SSSE3, else SSE2): they compute the same function.
                let g = cpu::Avx2MulToken::get().map_or_else(
                    || cpu::Ssse3Token::get().map_or(G::Sse2(t), G::Ssse3),
                    G::Avx2,
                );
                Engine::AesSse2(portable::Engine::new(key, g))
            }
            #[cfg(fastcrypt_x86)]
            Kernel::AesniPclmul(t) => Engine::AesniPclmul(x86::Engine::new(t, key)),
            #[cfg(fastcrypt_x86)]
            Kernel::VaesVpclmul(t) => Engine::VaesVpclmul(x86::Engine::new(t, key)),
            #[cfg(fastcrypt_x86)]
            Kernel::VaesAvx512(t) => Engine::VaesAvx512(x86::Engine::new(t, key)),
        }
    }
}

/// Calls one [`GcmEngine`] operation on whichever engine `$e` holds,
/// statically: each arm is a direct call that can inline (a `dyn` call
/// would cost an indirect branch per message, which short messages feel).
macro_rules! on_engine {
    ($e:expr, $x:ident => $call:expr) => {
        match $e {
            Engine::Portable($x) => $call,
            #[cfg(fastcrypt_x86)]
            Engine::AesSse2($x) => $call,
            #[cfg(fastcrypt_x86)]
            Engine::AesniPclmul($x) => $call,
            #[cfg(fastcrypt_x86)]
            Engine::VaesVpclmul($x) => $call,
            #[cfg(fastcrypt_x86)]
            Engine::VaesAvx512($x) => $call,
        }
    };
}

/// The GHASH input's last block: bit lengths of AAD and message.
pub(crate) fn lengths_block(aad_len: usize, msg_len: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad_len as u64 * 8).to_be_bytes());
    b[8..].copy_from_slice(&(msg_len as u64 * 8).to_be_bytes());
    b
}

/// 16 bytes of 0xff then 16 of zeros: the 16 bytes from offset `16 - n`
/// keep the first `n` of a block (`n` public: a tag's length, the length
/// of a message's last partial block).
static KEEP: [u8; 32] = {
    let mut k = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        k[i] = 0xff;
        i += 1;
    }
    k
};

/// The key-size-independent cipher under `Aes128Gcm`, `Aes192Gcm` and
/// `Aes256Gcm`.
#[derive(Clone)]
struct Gcm {
    engine: Engine,
    backend: Backend,
    nonce_len: NonceLen,
    tag_len: usize,
}

/// Adds `n` to the big-endian 32-bit counter in the last word (inc32).
fn inc32(block: &mut [u8; 16], n: u32) {
    let c = u32::from_be_bytes([block[12], block[13], block[14], block[15]]).wrapping_add(n);
    block[12..].copy_from_slice(&c.to_be_bytes());
}

impl Gcm {
    fn new(kernel: Kernel, backend: Backend, key: &[u8]) -> Gcm {
        Gcm {
            engine: Engine::new(kernel, key),
            backend,
            nonce_len: NonceLen::Standard,
            tag_len: TAG_LEN,
        }
    }

    /// J0 from the nonce (SP 800-38D section 7.1, step 2): its 16 bytes
    /// in memory order read as a little-endian `u128`
    /// (`u128::from_le_bytes`).
    ///
    /// A value, not an array, because of what the x86 kernels do with it:
    /// they take it into a vector register from the two integer registers
    /// it is passed in. An array written here byte-wise and read there as
    /// one 16-byte vector load is a failed store-to-load forward (the load
    /// spans several stores), which cost a 64-byte seal ~17 ns of ~41 on
    /// an AMD EPYC Zen 5.
    fn j0(&self, nonce: &[u8]) -> Result<u128, Error> {
        if let [n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11] = *nonce {
            let lo = u64::from_le_bytes([n0, n1, n2, n3, n4, n5, n6, n7]);
            let hi = u32::from_le_bytes([n8, n9, n10, n11]);
            // The counter word is 1, big-endian: byte 15 is 1.
            return Ok(u128::from(lo) | u128::from(hi) << 64 | 1 << 120);
        }
        if self.nonce_len == NonceLen::Standard || nonce.is_empty() || nonce.len() as u64 > A_MAX {
            return Err(Error::NonceLength { got: nonce.len() });
        }
        let mut acc = 0u128;
        on_engine!(&self.engine, e => e.ghash_padded(&mut acc, nonce));
        let mut len_block = [0u8; 16];
        len_block[8..].copy_from_slice(&(nonce.len() as u64 * 8).to_be_bytes());
        on_engine!(&self.engine, e => e.ghash_padded(&mut acc, &len_block));
        Ok(u128::from_le_bytes(acc.to_be_bytes()))
    }

    fn check_lengths(aad: &[u8], msg: &[u8]) -> Result<(), Error> {
        if aad.len() as u64 > A_MAX {
            return Err(Error::AadTooLong);
        }
        if msg.len() as u64 > P_MAX {
            return Err(Error::MessageTooLong);
        }
        Ok(())
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag, Error> {
        Self::check_lengths(aad, buf)?;
        let j0 = self.j0(nonce)?;
        let full = on_engine!(&self.engine, e => e.seal(j0, aad, buf));
        // A truncated tag's unused bytes are zeroed with one 16-byte AND
        // against a window of `KEEP`, which LLVM makes one vector
        // operation and one 16-byte store. The earlier per-byte `if i < n`
        // became sixteen byte stores, and a caller's 16-byte read of the
        // tag then waited for them to retire (a failed store-to-load
        // forward): a 16-byte seal went from 39.2 to 26.5 ns with this
        // alone (AES-128, AMD EPYC Zen 4, speed lab).
        let n = self.tag_len;
        let keep = &KEEP[16 - n..][..16];
        let bytes = core::array::from_fn(|i| full[i] & keep[i]);
        Ok(Tag {
            bytes,
            len: n as u8,
        })
    }

    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        // Too long to be a GCM message: refused before a byte is touched
        // (wiping up to 2^64 bytes would be no service to anyone).
        Self::check_lengths(aad, buf)?;
        let checked = if tag.len() == self.tag_len {
            self.j0(nonce)
        } else {
            Err(Error::TagLength { got: tag.len() })
        };
        let j0 = match checked {
            Ok(j0) => j0,
            Err(e) => {
                wipe(buf);
                return Err(e);
            }
        };
        // One fused pass decrypts while it hashes the ciphertext; a wrong
        // tag wipes the whole buffer before the error is returned, so no
        // unauthenticated plaintext leaves this function.
        let want = on_engine!(&self.engine, e => e.open(j0, aad, buf));
        if ct_eq(&want[..self.tag_len], tag) {
            Ok(())
        } else {
            wipe(buf);
            Err(Error::Authentication)
        }
    }
}

/// Zeroes a buffer that held unauthenticated plaintext: a `memset` (the
/// caller owns the buffer, so the stores are observable and stay), then
/// `black_box` so that not even an inlined caller that drops the buffer
/// can have them removed.
fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    core::hint::black_box(buf);
}

macro_rules! define_gcm {
    ($name:ident, $key_len:literal, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM. See the [module docs](self).")]
        ///
        /// `Clone`, as RustCrypto's `AesGcm` is: each clone holds its own
        /// copy of the key material, zeroed when it is dropped.
        #[derive(Clone)]
        pub struct $name {
            inner: Gcm,
        }

        /// Round keys and powers of H are zeroed on drop.
        impl zeroize::ZeroizeOnDrop for $name {}

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("backend", &self.inner.backend)
                    .field("nonce_len", &self.inner.nonce_len)
                    .field("tag_len", &self.inner.tag_len)
                    .finish_non_exhaustive()
            }
        }

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $key_len;

            /// A cipher with the fastest backend this CPU runs, 96-bit
            #[doc = concat!("nonces and 16-byte tags. `key` is a `[u8; ", stringify!($key_len), "]` or RustCrypto's")]
            /// `Key<Self>` (see [`ByteArray`]).
            pub fn new<K: ByteArray<$key_len> + ?Sized>(key: &K) -> $name {
                let (backend, kernel) = Backend::auto();
                $name { inner: Gcm::new(kernel, backend, key.as_byte_array()) }
            }

            #[doc = concat!("A cipher from a key of any slice type; fails unless it is ", stringify!($key_len), " bytes.")]
            /// Named as RustCrypto's `KeyInit::new_from_slice`, whose
            /// callers it serves too (its error converts into
            /// `crypto_common::InvalidLength`).
            pub fn new_from_slice(key: &[u8]) -> Result<$name, InvalidKeyLength> {
                let key: &[u8; $key_len] = key.try_into().map_err(|_| InvalidKeyLength { got: key.len(), want: $key_len })?;
                Ok(Self::new(key))
            }

            /// A cipher using `backend`, or [`Unsupported`](crate::Unsupported)
            /// if this CPU (or build) cannot run it.
            pub fn with_backend<K: ByteArray<$key_len> + ?Sized>(backend: Backend, key: &K) -> Result<$name, crate::Unsupported> {
                Ok($name { inner: Gcm::new(backend.kernel()?, backend, key.as_byte_array()) })
            }

            /// The same cipher, accepting other nonce lengths or producing
            /// shorter tags. `tag_len` must be 12..=16, or 8 or 4 (SP 800-38D
            /// section 5.2.1.2 and Appendix C: only for protocols that bound
            /// the number of forgery attempts). Appendix C also bounds, for
            /// 8- and 4-byte tags, the length of each message and how many
            /// times one key may open messages that fail; this library
            /// does not count either, so the protocol must.
            ///
            /// ```
            #[doc = concat!("use fastcrypt::aes_gcm::{", stringify!($name), ", NonceLen};")]
            #[doc = concat!("let gcm = ", stringify!($name), "::new(&[1; ", stringify!($key_len), "]).with_params(NonceLen::Any, 12).unwrap();")]
            /// let mut msg = *b"hi";
            /// let tag = gcm.seal_in_place_detached(&[9; 60], b"", &mut msg).unwrap();
            /// assert_eq!(tag.as_ref().len(), 12);
            /// ```
            pub fn with_params(mut self, nonce_len: NonceLen, tag_len: usize) -> Result<$name, Error> {
                if !matches!(tag_len, 4 | 8 | 12..=16) {
                    return Err(Error::TagLength { got: tag_len });
                }
                self.inner.nonce_len = nonce_len;
                self.inner.tag_len = tag_len;
                Ok(self)
            }

            /// The backend this cipher uses.
            pub fn backend(&self) -> Backend {
                self.inner.backend
            }

            /// The tag length [`with_params`](Self::with_params) set (16
            /// unless changed). Only the RustCrypto traits ask.
            #[cfg(feature = "rustcrypto")]
            pub(crate) fn tag_len(&self) -> usize {
                self.inner.tag_len
            }

            /// Encrypts `buf` in place and returns the tag.
            pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag, Error> {
                self.inner.seal(nonce, aad, buf)
            }

            /// Checks `tag` over `aad` and the ciphertext in `buf`, then
            /// decrypts `buf` in place. On an authentication, nonce-length or
            /// tag-length error `buf` is zeroed; an over-long input is refused
            /// untouched. No plaintext is ever left behind.
            pub fn open_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
                self.inner.open(nonce, aad, buf, tag)
            }

            /// Returns ciphertext followed by the tag.
            pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
                let mut out = alloc::vec::Vec::with_capacity(plaintext.len() + self.inner.tag_len);
                out.extend_from_slice(plaintext);
                let tag = match self.inner.seal(nonce, aad, &mut out) {
                    Ok(tag) => tag,
                    Err(e) => {
                        // A refused seal left the plaintext's copy as it was.
                        zeroize::Zeroize::zeroize(&mut out);
                        return Err(e);
                    }
                };
                out.extend_from_slice(tag.as_ref());
                Ok(out)
            }

            /// Takes ciphertext followed by the tag; returns the plaintext
            /// only if the tag is right.
            pub fn open(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
                let n = sealed.len().checked_sub(self.inner.tag_len).ok_or(Error::SealedTooShort { got: sealed.len(), tag_len: self.inner.tag_len })?;
                let (ct, tag) = sealed.split_at(n);
                let mut out = ct.to_vec();
                self.inner.open(nonce, aad, &mut out, tag)?;
                Ok(out)
            }
        }
    };
}

define_gcm!(Aes128Gcm, 16, "128");
define_gcm!(Aes192Gcm, 24, "192");
define_gcm!(Aes256Gcm, 32, "256");
