//! AES (FIPS 197), encryption direction only: the block cipher under
//! AES-GCM. Crate-internal: users reach AES through [`crate::aes_gcm`].
//!
//! - [`RoundKeys`]: the expanded key, in the byte layout AES-NI and VAES
//!   load directly; zeroized on drop.
//! - `x86_aesni::expand`: a constant-time key schedule with AESKEYGENASSIST
//!   (the S-box is applied by the instruction, never through a table).
//! - The portable backend does not use this module: it uses the RustCrypto
//!   `aes` crate (AES-NI when present, otherwise its constant-time
//!   fixsliced software), as the project's dependency policy asks.

#[cfg(fastcrypt_x86)]
pub(crate) mod x86_aesni;

/// An expanded AES key: `rounds + 1` round keys of 16 bytes, in FIPS 197
/// byte order (the order AESENC's operand uses). Unused slots stay zero.
#[cfg(fastcrypt_x86)]
#[derive(Clone)]
pub(crate) struct RoundKeys {
    pub(crate) rk: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

#[cfg(fastcrypt_x86)]
impl Drop for RoundKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.rk);
    }
}
