//! `digest` 0.11 MAC traits for [`HmacSha1`] (`KeyInit`, `Update`,
//! `FixedOutput`, `MacMarker`, hence `Mac`), so code generic over
//! RustCrypto MACs takes it where it takes `hmac::Hmac<sha1::Sha1>`, e.g.
//! `pbkdf2::pbkdf2::<HmacSha1>`. `Mac::verify*` compare in constant time
//! (digest's own comparison).

use crate::sha1::{HmacSha1, BLOCK_LEN};
use digest::{
    common::KeySizeUser,
    consts::{U20, U64},
    FixedOutput, FixedOutputReset, InvalidLength, Key, KeyInit, MacMarker, Output, OutputSizeUser,
    Reset, Update,
};

/// HMAC takes keys of any length; this is the block size, the length
/// `KeyInit::new` takes (as `hmac::Hmac<Sha1>` does).
impl KeySizeUser for HmacSha1 {
    type KeySize = U64;
}

impl KeyInit for HmacSha1 {
    fn new(key: &Key<Self>) -> Self {
        HmacSha1::new(&key[..BLOCK_LEN])
    }

    /// Any length: keys longer than a block are hashed first.
    fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
        Ok(HmacSha1::new(key))
    }
}

impl OutputSizeUser for HmacSha1 {
    type OutputSize = U20;
}

impl Update for HmacSha1 {
    fn update(&mut self, data: &[u8]) {
        HmacSha1::update(self, data);
    }
}

impl FixedOutput for HmacSha1 {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&HmacSha1::finalize(self));
    }
}

impl Reset for HmacSha1 {
    fn reset(&mut self) {
        HmacSha1::reset(self);
    }
}

impl FixedOutputReset for HmacSha1 {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&HmacSha1::finalize_reset(self));
    }
}

impl MacMarker for HmacSha1 {}

/// Code that verifies with both [`HmacSha1::verify`] and RustCrypto's
/// `Mac::verify_slice` can return either failure through `?` as the
/// other's.
///
/// ```
/// use digest::Mac;
/// use fastcrypt::sha1::{HmacSha1, MacError};
///
/// fn both(key: &[u8], msg: &[u8], tag: &[u8]) -> Result<(), digest::MacError> {
///     let mut a = HmacSha1::new(key);
///     a.update(msg);
///     a.verify(tag)?; // fastcrypt's MacError into digest's
///     let mut b = <HmacSha1 as digest::KeyInit>::new_from_slice(key).unwrap();
///     Mac::update(&mut b, msg);
///     b.verify_slice(tag)
/// }
/// let tag = fastcrypt::sha1::hmac_sha1(b"key", b"msg");
/// assert!(both(b"key", b"msg", &tag).is_ok());
/// assert!(both(b"key", b"msg", &[0; 20]).is_err());
/// assert_eq!(MacError::from(digest::MacError), MacError);
/// ```
impl From<crate::sha1::MacError> for digest::MacError {
    fn from(_: crate::sha1::MacError) -> digest::MacError {
        digest::MacError
    }
}

impl From<digest::MacError> for crate::sha1::MacError {
    fn from(_: digest::MacError) -> crate::sha1::MacError {
        crate::sha1::MacError
    }
}
