//! RustCrypto trait adapters. No algorithm code lives here: each adapter
//! forwards to the primitive's own API.

mod aes_gcm;
mod ghash;
mod hmac;
pub(crate) mod rc4;
pub(crate) mod sha1;
mod sha1dc;
