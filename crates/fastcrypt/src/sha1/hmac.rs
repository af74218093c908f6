//! HMAC-SHA1 (RFC 2104) and PBKDF2-HMAC-SHA1 (RFC 8018, section 5.2).
//!
//! HMAC-SHA1 is still a sound MAC (its security rests on SHA-1's
//! compression function as a PRF, not on collision resistance); it is
//! what TOTP/HOTP, Kerberos, WPA2 and many older protocols use. New
//! designs should prefer HMAC-SHA-256 or a modern MAC.
//!
//! ```
//! use fastcrypt::sha1::{hmac_sha1, pbkdf2_hmac_sha1, HmacSha1};
//!
//! // RFC 2202, test case 2.
//! let tag = hmac_sha1(b"Jefe", b"what do ya want for nothing?");
//! assert_eq!(tag[..4], [0xef, 0xfc, 0xdf, 0x6a]);
//!
//! // Keyed once, then reused: each `clone` starts from the keyed state.
//! let key = HmacSha1::new(b"Jefe");
//! let mut mac = key.clone();
//! mac.update(b"what do ya want ");
//! mac.update(b"for nothing?");
//! assert!(mac.verify(&tag).is_ok());
//!
//! // RFC 6070: "password", "salt", 2 iterations.
//! let mut dk = [0u8; 20];
//! pbkdf2_hmac_sha1(b"password", b"salt", 2, &mut dk).unwrap();
//! assert_eq!(dk[..4], [0xea, 0x6c, 0x01, 0x4d]);
//! ```

use super::{state_to_bytes, Backend, Kernel, Sha1, BLOCK_LEN, DIGEST_LEN, IV};
use zeroize::Zeroize;

/// The inner hash's block in every PBKDF2 iteration after the first, and
/// the outer hash's block in every HMAC: 20 bytes of digest, then SHA-1's
/// padding for a message of one key block plus 20 bytes (672 bits).
pub(crate) const DIGEST_BLOCK_LEN_BITS: u64 = ((BLOCK_LEN + DIGEST_LEN) * 8) as u64;

/// HMAC-SHA1, keyed once: the states after the inner and outer padded key
/// are computed by [`new`](HmacSha1::new), so each message costs its own
/// blocks plus one compression. `clone` a keyed value to reuse the key,
/// or call [`reset`](HmacSha1::reset) / [`finalize_reset`](HmacSha1::finalize_reset).
/// The keyed states and the buffered input are zeroed on drop. As with
/// RustCrypto's crates, that covers the value where it is dropped:
/// building and moving it (returning it from `new`) may leave earlier
/// copies on the stack, and so may the kernels' message-schedule scratch
/// while the padded key is compressed. Keep the value in one place (a
/// `Box`) and the key's own buffer in your hands if that matters.
///
/// It also implements RustCrypto's `Mac` (feature `rustcrypto`), but its
/// own methods are what a method call finds first, and `finalize` and
/// `finalize_reset` return the 20 bytes, not `Mac`'s `CtOutput`: code
/// written for `hmac::Hmac<Sha1>` that calls `.finalize().into_bytes()`
/// names the trait (`Mac::finalize(mac).into_bytes()`), or keeps
/// `hmac::Hmac<fastcrypt::sha1::Sha1>`, which drops in unchanged.
/// [`MacError`] converts to and from `digest::MacError` for `?`.
#[derive(Clone)]
pub struct HmacSha1 {
    /// The chaining value after `key ^ ipad`.
    inner_key: [u32; 5],
    /// The chaining value after `key ^ opad`.
    outer_key: [u32; 5],
    /// The running inner hash, started from `inner_key`.
    inner: Sha1,
}

/// A MAC did not match (its bytes or its length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacError;

impl core::fmt::Display for MacError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HMAC-SHA1: the MAC does not match")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for MacError {}

/// Why [`pbkdf2_hmac_sha1`] refused its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pbkdf2Error {
    /// The iteration count is 0 (RFC 8018 requires a positive count).
    ZeroIterations,
    /// The output is longer than `(2^32 - 1) * 20` bytes, the most
    /// PBKDF2 defines.
    OutputTooLong,
}

impl core::fmt::Display for Pbkdf2Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Pbkdf2Error::ZeroIterations => {
                f.write_str("PBKDF2: the iteration count must be at least 1")
            }
            Pbkdf2Error::OutputTooLong => {
                f.write_str("PBKDF2: the output is longer than (2^32 - 1) * 20 bytes")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Pbkdf2Error {}

impl Drop for HmacSha1 {
    fn drop(&mut self) {
        self.inner_key.as_mut_slice().zeroize();
        self.outer_key.as_mut_slice().zeroize();
        // `inner` zeroes itself.
    }
}

impl zeroize::ZeroizeOnDrop for HmacSha1 {}

impl core::fmt::Debug for HmacSha1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HmacSha1")
            .field("backend", &self.inner.backend)
            .finish_non_exhaustive()
    }
}

impl HmacSha1 {
    /// HMAC-SHA1 keyed with `key` (any length; keys longer than 64 bytes
    /// are hashed first, as RFC 2104 says), on the fastest backend.
    pub fn new(key: &[u8]) -> HmacSha1 {
        let (backend, kernel) = Backend::auto();
        Self::from_kernel(backend, kernel, key)
    }

    /// HMAC-SHA1 keyed with `key` on `backend`, or
    /// [`Unsupported`](crate::Unsupported) if this CPU (or build) cannot
    /// run it.
    pub fn with_backend(backend: Backend, key: &[u8]) -> Result<HmacSha1, crate::Unsupported> {
        Ok(Self::from_kernel(backend, backend.kernel()?, key))
    }

    fn from_kernel(backend: Backend, kernel: Kernel, key: &[u8]) -> HmacSha1 {
        let mut block = [0u8; BLOCK_LEN];
        if key.len() > BLOCK_LEN {
            let mut h = Sha1::from_kernel(backend, kernel);
            h.update(key);
            // SHA-1 of the key stands in for it: wiped like the key.
            let mut hashed = h.finalize();
            block[..DIGEST_LEN].copy_from_slice(&hashed);
            hashed.zeroize();
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let keyed = |pad: u8| {
            let mut state = IV;
            // In place, not through a temporary that would be left behind.
            let mut padded = block;
            padded.iter_mut().for_each(|b| *b ^= pad);
            kernel.compress(&mut state, &padded);
            padded.as_mut_slice().zeroize();
            state
        };
        let (inner_key, outer_key) = (keyed(0x36), keyed(0x5c));
        block.as_mut_slice().zeroize();
        let mut inner = Sha1::from_kernel(backend, kernel);
        inner.state = inner_key;
        inner.compressed = BLOCK_LEN as u64;
        HmacSha1 {
            inner_key,
            outer_key,
            inner,
        }
    }

    /// The backend this MAC computes with.
    pub fn backend(&self) -> Backend {
        self.inner.backend
    }

    /// Absorbs `data`; any length, any number of calls.
    #[inline]
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        self.inner.update(data);
    }

    /// The MAC of everything absorbed. To check a received MAC, use
    /// [`verify`](HmacSha1::verify) rather than `==`, which may return as
    /// soon as a byte differs.
    pub fn finalize(mut self) -> [u8; DIGEST_LEN] {
        state_to_bytes(&self.finalize_words())
    }

    /// The MAC, then back to the keyed state (same key, same backend).
    pub fn finalize_reset(&mut self) -> [u8; DIGEST_LEN] {
        let out = state_to_bytes(&self.finalize_words());
        self.reset();
        out
    }

    /// Back to the keyed state: the absorbed input is dropped, the key
    /// kept.
    pub fn reset(&mut self) {
        self.inner.state = self.inner_key;
        self.inner.compressed = BLOCK_LEN as u64;
        self.inner.buf_len = 0;
    }

    /// Compares the MAC of everything absorbed with `tag` (20 bytes) in
    /// constant time.
    pub fn verify(self, tag: impl AsRef<[u8]>) -> Result<(), MacError> {
        self.verify_prefix(tag.as_ref(), DIGEST_LEN..=DIGEST_LEN)
    }

    /// Compares the first `tag.len()` bytes of the MAC with `tag` in
    /// constant time, for protocols that truncate it. Tags shorter than
    /// 10 bytes (80 bits, the least RFC 2104 recommends) or longer than 20
    /// are refused.
    pub fn verify_truncated(self, tag: impl AsRef<[u8]>) -> Result<(), MacError> {
        self.verify_prefix(tag.as_ref(), 10..=DIGEST_LEN)
    }

    /// Compares `tag`, whose length must be in `lengths` (public), with
    /// as many first bytes of the MAC, in constant time.
    fn verify_prefix(
        self,
        tag: &[u8],
        lengths: core::ops::RangeInclusive<usize>,
    ) -> Result<(), MacError> {
        if !lengths.contains(&tag.len()) {
            return Err(MacError);
        }
        let mut mac = self.finalize();
        let ok = crate::ct_eq(&mac[..tag.len()], tag);
        mac.zeroize();
        if ok {
            Ok(())
        } else {
            Err(MacError)
        }
    }

    /// The MAC as SHA-1 state words: the inner hash's padded tail, then
    /// the outer block.
    fn finalize_words(&mut self) -> [u32; 5] {
        let h = &mut self.inner;
        let total = h.compressed.wrapping_add(h.buf_len as u64);
        // The tail holds message bytes and padding, no key material.
        let mut tail = [0u8; 2 * BLOCK_LEN];
        let n = super::padded_tail(&mut tail, &h.buf[..h.buf_len], total);
        h.kernel
            .hmac_finish(&mut h.state, &tail[..n], &self.outer_key)
    }

    /// The MAC of `data` alone, from the keyed state, without changing
    /// `self` (no copy of the hasher, no buffering): the fast path for
    /// one message per call with a prepared key. As with
    /// [`finalize`](HmacSha1::finalize), compare received MACs with
    /// [`verify`](HmacSha1::verify).
    ///
    /// ```
    /// use fastcrypt::sha1::HmacSha1;
    /// let key = HmacSha1::new(b"key");
    /// let mut streamed = key.clone();
    /// streamed.update(b"message");
    /// assert_eq!(key.mac(b"message"), streamed.finalize());
    /// ```
    pub fn mac(&self, data: impl AsRef<[u8]>) -> [u8; DIGEST_LEN] {
        let data = data.as_ref();
        let kernel = self.inner.kernel;
        let mut state = self.inner_key;
        let whole = data.len() / BLOCK_LEN * BLOCK_LEN;
        if whole > 0 {
            kernel.compress(&mut state, &data[..whole]);
        }
        let total = (BLOCK_LEN + data.len()) as u64;
        let mut tail = [0u8; 2 * BLOCK_LEN];
        let n = super::padded_tail(&mut tail, &data[whole..], total);
        let mut out = kernel.hmac_finish(&mut state, &tail[..n], &self.outer_key);
        let mac = state_to_bytes(&out);
        state.as_mut_slice().zeroize();
        out.as_mut_slice().zeroize();
        mac
    }

    /// PBKDF2-HMAC-SHA1 with this MAC's key as the password: fills `out`
    /// (any length) from `salt` and `iterations` (see
    /// [`pbkdf2_hmac_sha1`]). The absorbed input, if any, is ignored.
    pub fn pbkdf2(&self, salt: &[u8], iterations: u32, out: &mut [u8]) -> Result<(), Pbkdf2Error> {
        check_pbkdf2_args(iterations, out.len())?;
        // Output blocks two at a time: each is a chain of dependent
        // compressions, and a kernel runs two chains in the time of one.
        for (n, pair) in out.chunks_mut(2 * DIGEST_LEN).enumerate() {
            // Block numbers start at 1 and fit in 32 bits (checked above).
            let first = 2 * n as u32 + 1;
            if pair.len() > DIGEST_LEN {
                self.derive_blocks::<2>(salt, first, iterations, pair);
            } else {
                self.derive_blocks::<1>(salt, first, iterations, pair);
            }
        }
        Ok(())
    }

    /// Output blocks `first..first + N` of PBKDF2 into `out` (more than
    /// `N - 1` blocks long; the last block may be cut), as `N` chains.
    fn derive_blocks<const N: usize>(
        &self,
        salt: &[u8],
        first: u32,
        iterations: u32,
        out: &mut [u8],
    ) {
        let mut u: [[u32; 5]; N] = core::array::from_fn(|i| self.first_u(salt, first + i as u32));
        let mut t = u;
        self.inner.kernel.pbkdf2_chains(
            &self.inner_key,
            &self.outer_key,
            &mut u,
            &mut t,
            iterations - 1,
        );
        for (chunk, t) in out.chunks_mut(DIGEST_LEN).zip(&t) {
            chunk.copy_from_slice(&state_to_bytes(t)[..chunk.len()]);
        }
        u.as_flattened_mut().zeroize();
        t.as_flattened_mut().zeroize();
    }

    /// `U_1` of output block `index`: the MAC of `salt || INT(index)`.
    pub(crate) fn first_u(&self, salt: &[u8], index: u32) -> [u32; 5] {
        let mut mac = self.clone();
        mac.reset();
        mac.update(salt);
        mac.update(index.to_be_bytes());
        mac.finalize_words()
    }

    /// The chaining values after `key ^ ipad` and `key ^ opad`, for the
    /// batch PBKDF2 (`sha1::many`), whose lanes each start from another
    /// password's.
    pub(crate) fn keyed_states(&self) -> (&[u32; 5], &[u32; 5]) {
        (&self.inner_key, &self.outer_key)
    }
}

/// The arguments PBKDF2 refuses: no iterations (RFC 8018 requires a
/// positive count), or an output of more than `2^32 - 1` blocks (the
/// block index is 32 bits).
pub(crate) fn check_pbkdf2_args(iterations: u32, out_len: usize) -> Result<(), Pbkdf2Error> {
    if iterations == 0 {
        return Err(Pbkdf2Error::ZeroIterations);
    }
    if out_len as u64 > u64::from(u32::MAX) * DIGEST_LEN as u64 {
        return Err(Pbkdf2Error::OutputTooLong);
    }
    Ok(())
}

/// A block with SHA-1's padding for a 20-byte message after one key
/// block; the caller writes the 20 bytes.
pub(crate) fn digest_block() -> [u8; BLOCK_LEN] {
    let mut block = [0u8; BLOCK_LEN];
    block[DIGEST_LEN] = 0x80;
    block[BLOCK_LEN - 8..].copy_from_slice(&DIGEST_BLOCK_LEN_BITS.to_be_bytes());
    block
}

impl Kernel {
    /// The end of an HMAC: compresses the inner hash's padded `tail` (one
    /// or two blocks) into `inner` (which is left in an unspecified
    /// state), then the outer block holding that digest, from
    /// `outer_key`. Returns the MAC as state words.
    pub(crate) fn hmac_finish(
        self,
        inner: &mut [u32; 5],
        tail: &[u8],
        outer_key: &[u32; 5],
    ) -> [u32; 5] {
        #[cfg(fastcrypt_x86)]
        if let Kernel::Shani(token) = self {
            return super::x86_shani::hmac_finish(token, inner, tail, outer_key);
        }
        self.compress(inner, tail);
        let mut block = digest_block();
        block[..DIGEST_LEN].copy_from_slice(&state_to_bytes(inner));
        let mut out = *outer_key;
        self.compress(&mut out, &block);
        block.as_mut_slice().zeroize();
        out
    }

    /// Runs `n` more PBKDF2 iterations on each chain: `u = HMAC(u)`,
    /// `t ^= u`, where HMAC is the keyed states `inner_key`/`outer_key`
    /// applied to a 20-byte message (two compressions). The chains are
    /// independent; kernels that can interleave them do.
    pub(crate) fn pbkdf2_chains<const N: usize>(
        self,
        inner_key: &[u32; 5],
        outer_key: &[u32; 5],
        u: &mut [[u32; 5]; N],
        t: &mut [[u32; 5]; N],
        n: u32,
    ) {
        #[cfg(fastcrypt_x86)]
        if let Kernel::Shani(token) = self {
            super::x86_shani::pbkdf2_chains(token, inner_key, outer_key, u, t, n);
            return;
        }
        let mut block = digest_block();
        for (u, t) in u.iter_mut().zip(t.iter_mut()) {
            for _ in 0..n {
                block[..DIGEST_LEN].copy_from_slice(&state_to_bytes(u));
                let mut s = *inner_key;
                self.compress(&mut s, &block);
                block[..DIGEST_LEN].copy_from_slice(&state_to_bytes(&s));
                *u = *outer_key;
                self.compress(u, &block);
                for (t, u) in t.iter_mut().zip(u.iter()) {
                    *t ^= u;
                }
                s.as_mut_slice().zeroize();
            }
        }
        block.as_mut_slice().zeroize();
    }
}

/// HMAC-SHA1 of `data` under `key`, on the fastest backend.
pub fn hmac_sha1(key: &[u8], data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut mac = HmacSha1::new(key);
    mac.update(data);
    mac.finalize()
}

/// PBKDF2-HMAC-SHA1 (RFC 8018): fills `out` (any length up to
/// `(2^32 - 1) * 20` bytes; 20 bytes per block, the last one cut; an
/// empty `out` is accepted and left empty, where RFC 8018 asks for a
/// positive length) from `password`, `salt` and `iterations` (at least
/// 1), on the fastest backend. Each iteration is two SHA-1 compressions straight
/// from the keyed states, and the output blocks run as independent chains
/// (two at a time; SHA-NI interleaves the two, the other backends run
/// them in turn), so a 32-byte WPA2 key costs about what a 20-byte one
/// does on SHA-NI. Use [`HmacSha1::with_backend`] and
/// [`HmacSha1::pbkdf2`] to force a backend. For many passwords with one
/// salt and count, [`Sha1Many::pbkdf2_hmac_sha1`](super::Sha1Many::pbkdf2_hmac_sha1)
/// runs their chains side by side in SIMD lanes.
///
/// ```
/// // IEEE 802.11i-2004, H.4.1: WPA2-PSK from passphrase and SSID.
/// let mut pmk = [0u8; 32];
/// fastcrypt::sha1::pbkdf2_hmac_sha1(b"password", b"IEEE", 4096, &mut pmk).unwrap();
/// assert_eq!(pmk[..4], [0xf4, 0x2c, 0x6f, 0xc5]);
/// ```
pub fn pbkdf2_hmac_sha1(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<(), Pbkdf2Error> {
    HmacSha1::new(password).pbkdf2(salt, iterations, out)
}
