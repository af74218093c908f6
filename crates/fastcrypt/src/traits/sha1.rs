//! `digest` 0.11 traits for [`Sha1`], so it drops in wherever RustCrypto's
//! `sha1::Sha1` is used (`Digest`, `DynDigest`, HMAC through `hmac`, ...).

use crate::sha1::{Sha1, DIGEST_LEN};
use digest::{
    common::{AlgorithmName, BlockSizeUser, OutputSizeUser},
    const_oid::{AssociatedOid, ObjectIdentifier},
    consts::{U20, U64},
    FixedOutput, FixedOutputReset, HashMarker, Output, Reset, Update,
};

impl HashMarker for Sha1 {}

impl BlockSizeUser for Sha1 {
    type BlockSize = U64;
}

impl OutputSizeUser for Sha1 {
    type OutputSize = U20;
}

impl Update for Sha1 {
    #[inline]
    fn update(&mut self, data: &[u8]) {
        Sha1::update(self, data);
    }
}

impl FixedOutput for Sha1 {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&Sha1::finalize(self));
    }
}

impl FixedOutputReset for Sha1 {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        let d: [u8; DIGEST_LEN] = Sha1::finalize_reset(self);
        out.copy_from_slice(&d);
    }
}

impl Reset for Sha1 {
    fn reset(&mut self) {
        Sha1::reset(self);
    }
}

impl AlgorithmName for Sha1 {
    fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Sha1")
    }
}

impl AssociatedOid for Sha1 {
    /// id-sha1, 1.3.14.3.2.26 (RFC 3279).
    const OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.14.3.2.26");
}
