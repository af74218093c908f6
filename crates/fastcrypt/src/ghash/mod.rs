//! GHASH, GCM's universal hash (NIST SP 800-38D, section 6.4).
//!
//! ```
//! use fastcrypt::ghash::{Backend, GHash};
//!
//! let h = [0x66, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b,
//!          0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b, 0x2e];
//! let mut g = GHash::new(&h);
//! g.update(&[[0u8; 16]; 4]);
//! g.update_padded(b"a partial block is padded with zeros");
//! let tag = g.finalize();
//!
//! // Every backend this CPU has gives the same answer.
//! for b in Backend::available() {
//!     let mut g = GHash::with_backend(b, &h).unwrap();
//!     g.update(&[[0u8; 16]; 4]);
//!     g.update_padded(b"a partial block is padded with zeros");
//!     assert_eq!(g.finalize(), tag);
//! }
//! ```
//!
//! # Backends
//!
//! - `portable`: constant time (no table indexed by secret data, no branch
//!   on secret data). 64x64-bit carry-less products come from ordinary
//!   integer multiplications of operands with "holes" (BearSSL's trick,
//!   see the `portable` module), three per block (Karatsuba), and four blocks
//!   share one reduction thanks to precomputed H^1..H^4. Checked under
//!   valgrind with H marked undefined by `scripts/ct-check.sh`.
//! - `sse2`: constant time, for x86 CPUs without carry-less
//!   multiplication (32- and 64-bit): the portable backend's integer
//!   multiplications with holes on SIMD lanes, `pmuludq` (32x32 -> 64
//!   bits), two blocks per register, nine products per block (Karatsuba
//!   twice), eight blocks per reduction. See the `x86_sse2` module.
//! - `ssse3`: constant time, for x86 CPUs without carry-less
//!   multiplication (32- and 64-bit): `X * H` as the sum over X's bytes of
//!   16-entry tables of nibble multiples of H, each lookup done by
//!   `pshufb` inside a register (byte-sliced tables, no secret address),
//!   eight blocks per reduction. See the `x86_ssse3` module.
//! - `avx2`: the `ssse3` kernel on 256-bit registers (`vpshufb`, two
//!   blocks per register); needs AVX2 and OS-saved YMM state. `new()`
//!   picks these three only where PCLMULQDQ is absent.
//! - `pclmul`: PCLMULQDQ on 128-bit registers, H^1..H^8 precomputed,
//!   8 blocks per reduction.
//! - `vpclmul`: VPCLMULQDQ on 256-bit registers (two blocks per
//!   instruction; needs AVX2 and OS-saved YMM state, *not* AVX-512),
//!   H^1..H^16 precomputed, 16 blocks per reduction.
//! - `vpclmul_avx512`: VPCLMULQDQ on 512-bit registers (four blocks per
//!   instruction; needs AVX-512 F/BW/VL and OS-saved opmask and ZMM
//!   state), 32 blocks per step with H^1..H^32 precomputed, the
//!   accumulator XORed into the first block, each lane reduced before the
//!   lanes are folded, tails loaded with byte masks (no copies).
//!
//! # Field representation
//!
//! Every backend computes GHASH as POLYVAL (RFC 8452, Appendix A):
//! `GHASH(H, X1..Xn) = rev(POLYVAL(mulX(rev(H)), rev(X1), ..., rev(Xn)))`
//! where `rev` reverses the 16 bytes of a block. Reading a block as a
//! big-endian `u128` *is* `rev` followed by POLYVAL's little-endian read,
//! so blocks, accumulator and powers of H are plain little-endian 128-bit
//! integers whose bit i is the coefficient of x^i, and carry-less
//! multiplication needs no bit reflection. POLYVAL multiplies in
//! Montgomery form, `a * b * x^-128 mod P` with
//! `P = x^128 + x^127 + x^126 + x^121 + 1`; the extra `x` folded into the
//! key by `mulX` absorbs GHASH's reflected-bit off-by-one.
//!
//! # Interface for the AES-GCM kernels (crate-internal)
//!
//! The fused AES-GCM kernels feed ciphertext blocks into an ongoing GHASH
//! from inside their own `#[target_feature]` loop, without going through
//! [`GHash`] or its dispatch. Everything they need is `pub(crate)`:
//!
//! - `ClmulKey::new(token, &h)`: H (GCM byte order) expanded to
//!   H^32..H^1 plus Karatsuba halves, for every x86 kernel. Zeroize it
//!   (`ClmulKey::zeroize`) when the AES-GCM key is dropped.
//! - `x86_pclmul::{load_acc, store_acc}`: the accumulator lives in an
//!   `__m128i` (or as a `u128`, [`GHash`]'s storage form) in POLYVAL
//!   representation; zero is the initial state.
//! - `x86_pclmul::fold8(token, &key, acc, &[__m128i; 8]) -> __m128i`:
//!   absorbs 8 blocks, *in GCM byte order as they sit in memory* (the
//!   function byte-reverses them), one reduction. `#[inline(always)]`, so
//!   it compiles into the caller's `#[target_feature]` function. Takes any
//!   token implementing `cpu::Clmul` (`PclmulToken`, `VpclmulToken`,
//!   `AesNiToken`, `VaesToken`; `cpu.rs` says which tokens grant it).
//! - `x86_vpclmul::fold16(token, &key, acc, &[__m256i; 8])`: the same
//!   for 16 blocks, two per 256-bit register (block `2i` in the low lane),
//!   for any token implementing `cpu::Vclmul` (`VpclmulToken`,
//!   `VaesToken`).
//! - `x86_pclmul::update(token, &key, &mut acc_u128, bytes)` and
//!   `x86_vpclmul::update(...)`: whole-slice kernels (AAD, tails, the
//!   length block); `bytes` is a multiple of 16 long. Safe to call with
//!   any token of the right trait: they enter their own
//!   `#[target_feature]` function.
//! - The accumulator's GHASH output (GCM byte order) is
//!   `acc.to_be_bytes()`, ready to be XORed with E(K, J0).
//!
//! The `portable` and `aes_sse2` AES-GCM pairs drive the crate-internal
//! `Engine` (what [`GHash`] dispatches to) built on the `portable`, or the
//! `avx2`/`ssse3`/`sse2`, kernel over each L1-sized chunk.

pub(crate) mod portable;

#[cfg(fastcrypt_x86)]
use crate::cpu;
#[cfg(fastcrypt_x86)]
pub(crate) use x86_pclmul::ClmulKey;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_avx2;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_pclmul;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_sse2;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_ssse3;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_vpclmul;
#[cfg(fastcrypt_x86)]
pub(crate) mod x86_vpclmul512;

use crate::ByteArray;
use zeroize::Zeroize;

/// GHASH block and output size in bytes.
pub const BLOCK_LEN: usize = 16;

#[cfg(feature = "rustcrypto")]
pub use universal_hash::{self, KeyInit, UniversalHash};

/// RustCrypto's name for GHASH's key (`H`), as the `ghash` crate has it.
#[cfg(feature = "rustcrypto")]
pub type Key = universal_hash::Key<GHash>;
/// RustCrypto's name for one 16-byte block, as the `ghash` crate has it.
#[cfg(feature = "rustcrypto")]
pub type Block = universal_hash::Block<GHash>;
/// RustCrypto's name for GHASH's output, as the `ghash` crate has it.
#[cfg(feature = "rustcrypto")]
pub type Tag = universal_hash::Block<GHash>;

define_backends! {
    primitive: "ghash";
    /// Constant-time portable Rust: the oracle the other backends are checked against.
    Portable => "portable";
    /// SSE2 integer multipliers with holes, for CPUs without carry-less
    /// multiplication: 8 blocks per reduction, constant time.
    Sse2 => "sse2", #[cfg(fastcrypt_x86)] Sse2Token;
    /// SSSE3 byte shuffles as constant-time 16-entry tables, for CPUs
    /// without carry-less multiplication: 8 blocks per reduction.
    Ssse3 => "ssse3", #[cfg(fastcrypt_x86)] Ssse3Token;
    /// The `ssse3` method on AVX2's 256-bit shuffles: two blocks per
    /// register.
    Avx2 => "avx2", #[cfg(fastcrypt_x86)] Avx2MulToken;
    /// PCLMULQDQ, 8 blocks per reduction.
    Pclmul => "pclmul", #[cfg(fastcrypt_x86)] PclmulToken;
    /// VPCLMULQDQ on 256-bit registers, 16 blocks per reduction.
    Vpclmul => "vpclmul", #[cfg(fastcrypt_x86)] VpclmulToken;
    /// VPCLMULQDQ on 512-bit registers (AVX-512), 32 blocks per step,
    /// masked tails.
    VpclmulAvx512 => "vpclmul_avx512", #[cfg(fastcrypt_x86)] Vpclmul512Token;
}

/// A kernel with the key expanded in the form it wants. The key lives
/// inline (no allocation, `no_std`), so the enum is as big as its largest
/// key; a [`GHash`] is keyed once and reused, so the size is not copied
/// per message.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Engine {
    Portable(portable::Key),
    #[cfg(fastcrypt_x86)]
    Sse2(cpu::Sse2Token, x86_sse2::MulKey),
    #[cfg(fastcrypt_x86)]
    Ssse3(cpu::Ssse3Token, x86_ssse3::ShufKey),
    #[cfg(fastcrypt_x86)]
    Avx2(cpu::Avx2MulToken, x86_ssse3::ShufKey),
    #[cfg(fastcrypt_x86)]
    Pclmul(cpu::PclmulToken, ClmulKey),
    #[cfg(fastcrypt_x86)]
    Vpclmul(cpu::VpclmulToken, ClmulKey),
    #[cfg(fastcrypt_x86)]
    VpclmulAvx512(cpu::Vpclmul512Token, ClmulKey),
}

impl Engine {
    pub(crate) fn new(kernel: Kernel, h: &[u8; BLOCK_LEN]) -> Engine {
        match kernel {
            Kernel::Portable => Engine::Portable(portable::Key::new(h)),
            #[cfg(fastcrypt_x86)]
            Kernel::Sse2(t) => Engine::Sse2(t, x86_sse2::new_key(h)),
            #[cfg(fastcrypt_x86)]
            Kernel::Ssse3(t) => Engine::Ssse3(t, x86_ssse3::new_key(h)),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => Engine::Avx2(t, x86_avx2::new_key(h)),
            #[cfg(fastcrypt_x86)]
            Kernel::Pclmul(t) => Engine::Pclmul(t, ClmulKey::new(t, h)),
            #[cfg(fastcrypt_x86)]
            Kernel::Vpclmul(t) => Engine::Vpclmul(t, ClmulKey::new(t, h)),
            #[cfg(fastcrypt_x86)]
            Kernel::VpclmulAvx512(t) => Engine::VpclmulAvx512(t, ClmulKey::new(t, h)),
        }
    }

    /// Absorbs `blocks` (whole 16-byte blocks) into `acc`: called once per
    /// bulk update.
    #[inline]
    pub(crate) fn update(&self, acc: &mut u128, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % BLOCK_LEN, 0);
        match self {
            Engine::Portable(k) => portable::update(k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::Sse2(t, k) => x86_sse2::update(*t, k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::Ssse3(t, k) => x86_ssse3::update(*t, k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::Avx2(t, k) => x86_avx2::update(*t, k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::Pclmul(t, k) => x86_pclmul::update(*t, k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::Vpclmul(t, k) => x86_vpclmul::update(*t, k, acc, blocks),
            #[cfg(fastcrypt_x86)]
            Engine::VpclmulAvx512(t, k) => x86_vpclmul512::update(*t, k, acc, blocks),
        }
    }

    pub(crate) fn zeroize(&mut self) {
        match self {
            Engine::Portable(k) => k.zeroize(),
            #[cfg(fastcrypt_x86)]
            Engine::Sse2(_, k) => k.zeroize(),
            #[cfg(fastcrypt_x86)]
            Engine::Ssse3(_, k) | Engine::Avx2(_, k) => k.zeroize(),
            #[cfg(fastcrypt_x86)]
            Engine::Pclmul(_, k) | Engine::Vpclmul(_, k) | Engine::VpclmulAvx512(_, k) => {
                k.zeroize()
            }
        }
    }
}

/// Incremental GHASH keyed with `H` (in GCM, `H = E(K, 0^128)`).
///
/// The input is a sequence of 16-byte blocks;
/// [`update_padded`](Self::update_padded) zero-pads a final partial block, as GCM does for
/// the AAD and the ciphertext. The key material (H and its powers) and the
/// accumulator are zeroized on drop. As with RustCrypto's crates, that
/// covers the value where it is dropped: building it and moving it
/// (returning it from `new`) may leave earlier copies of H on the stack.
/// Keep it in one place (a `Box`) if that matters.
#[derive(Clone)]
pub struct GHash {
    engine: Engine,
    /// The running value, POLYVAL representation (see the module docs).
    acc: u128,
    backend: Backend,
}

impl core::fmt::Debug for GHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GHash")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Drop for GHash {
    fn drop(&mut self) {
        self.engine.zeroize();
        self.acc.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for GHash {}

impl GHash {
    /// GHASH keyed with `h`, using the fastest backend this CPU runs.
    /// `h` is a `[u8; 16]` or RustCrypto's `Key<GHash>` (see
    /// [`ByteArray`]).
    pub fn new<K: ByteArray<BLOCK_LEN> + ?Sized>(h: &K) -> GHash {
        let (backend, kernel) = Backend::auto();
        Self::from_kernel(backend, kernel, h.as_byte_array())
    }

    /// GHASH keyed with `h` using `backend`, or
    /// [`Unsupported`](crate::Unsupported) if this CPU (or build) cannot
    /// run it.
    ///
    /// ```
    /// use fastcrypt::ghash::{Backend, GHash};
    /// for b in Backend::ALL {
    ///     match GHash::with_backend(*b, &[7; 16]) {
    ///         Ok(g) => assert_eq!(g.backend(), *b),
    ///         Err(e) => println!("skipping: {e}"),
    ///     }
    /// }
    /// ```
    pub fn with_backend<K: ByteArray<BLOCK_LEN> + ?Sized>(
        backend: Backend,
        h: &K,
    ) -> Result<GHash, crate::Unsupported> {
        Ok(Self::from_kernel(
            backend,
            backend.kernel()?,
            h.as_byte_array(),
        ))
    }

    fn from_kernel(backend: Backend, kernel: Kernel, h: &[u8; BLOCK_LEN]) -> GHash {
        GHash {
            engine: Engine::new(kernel, h),
            acc: 0,
            backend,
        }
    }

    /// The backend this instance uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Absorbs whole blocks: `[u8; 16]`s, or RustCrypto's `Block<GHash>`s
    /// (see [`ByteArray`]).
    #[inline]
    pub fn update<B: ByteArray<BLOCK_LEN>>(&mut self, blocks: &[B]) {
        match B::cast_slice(blocks) {
            Some(b) if !b.is_empty() => self.engine.update(&mut self.acc, b.as_flattened()),
            Some(_) => {}
            // References to blocks: gather them so the kernel still sees
            // many blocks per call.
            None => {
                let mut staged = [[0u8; BLOCK_LEN]; 16];
                for chunk in blocks.chunks(staged.len()) {
                    for (s, b) in staged.iter_mut().zip(chunk) {
                        *s = *b.as_byte_array();
                    }
                    self.engine
                        .update(&mut self.acc, staged[..chunk.len()].as_flattened());
                }
                // As in `update_padded`: the caller's blocks may be secret.
                zeroize::Zeroize::zeroize(&mut staged);
            }
        }
    }

    /// Absorbs `data`, zero-padding a final partial block. Each call pads
    /// on its own: `update_padded(a); update_padded(b)` equals
    /// `update_padded(a ++ b)` only when `a.len()` is a multiple of 16.
    pub fn update_padded(&mut self, data: &[u8]) {
        let whole = data.len() / BLOCK_LEN * BLOCK_LEN;
        let (blocks, tail) = data.split_at(whole);
        if !blocks.is_empty() {
            self.engine.update(&mut self.acc, blocks);
        }
        if !tail.is_empty() {
            let mut last = [0u8; BLOCK_LEN];
            last[..tail.len()].copy_from_slice(tail);
            self.engine.update(&mut self.acc, &last);
            // The caller's data may be secret (the GHASH of a key, say).
            zeroize::Zeroize::zeroize(&mut last);
        }
    }

    /// The GHASH value of everything absorbed.
    pub fn finalize(self) -> [u8; BLOCK_LEN] {
        self.acc.to_be_bytes()
    }

    /// Returns the GHASH value and starts over with the same key.
    pub fn finalize_reset(&mut self) -> [u8; BLOCK_LEN] {
        let out = self.acc.to_be_bytes();
        self.reset();
        out
    }

    /// Back to the initial state (nothing absorbed), keeping key and
    /// backend.
    pub fn reset(&mut self) {
        self.acc = 0;
    }
}
