//! `digest` 0.11 traits for [`Sha1Dc`], so the collision-detecting hasher
//! drops in where a `D: Digest` (or `Box<dyn DynDigest>`) is expected, as
//! RustCrypto's `sha1-checked` does with its `Sha1`. The traits give the
//! digest only: plain SHA-1 for data without an attack, the safe hash for
//! attack data (with the default [`DcConfig`](crate::sha1::DcConfig)), as
//! the reference library and `sha1-checked` do. Whether an attack was
//! found is [`Sha1Dc::finalize`]'s to tell.
//!
//! The set matches `sha1-checked` 0.10: `HashMarker`, `OutputSizeUser`,
//! `Update`, `FixedOutput`, `FixedOutputReset`, `Reset`, `AssociatedOid`
//! (id-sha1, as there), plus `AlgorithmName`. Like `sha1-checked`, no
//! `BlockSizeUser`, so no `hmac::SimpleHmac<Sha1Dc>`: HMAC-SHA1 does not
//! rest on collision resistance, and [`Sha1`](crate::sha1::Sha1) serves it.

use crate::sha1::{Sha1Dc, DIGEST_LEN};
use digest::{
    common::AlgorithmName,
    const_oid::{AssociatedOid, ObjectIdentifier},
    consts::U20,
    FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update,
};

impl HashMarker for Sha1Dc {}

impl OutputSizeUser for Sha1Dc {
    type OutputSize = U20;
}

impl Update for Sha1Dc {
    #[inline]
    fn update(&mut self, data: &[u8]) {
        Sha1Dc::update(self, data);
    }
}

/// The digest of the data: plain SHA-1 when no attack was detected,
/// otherwise the safe hash (or plain SHA-1 with
/// [`DcConfig::safe_hash`](crate::sha1::DcConfig::safe_hash) off). On a
/// concrete `Sha1Dc`, the inherent `finalize` (with the detector's
/// report) wins over [`Digest::finalize`](digest::Digest::finalize); name
/// the trait to get the bytes alone.
///
/// ```
/// use fastcrypt::sha1::{self, Digest, Sha1Dc};
///
/// let mut h = Sha1Dc::new();
/// Digest::update(&mut h, b"hello ");
/// let bytes = Digest::finalize(h.clone().chain_update(b"world"));
/// assert_eq!(bytes[..], sha1::digest(b"hello world"));
///
/// // The same hasher through the inherent API: the report as well.
/// h.update(b"world");
/// let report = h.finalize();
/// assert!(!report.is_collision());
/// assert_eq!(report.digest[..], bytes[..]);
///
/// // One call, and generic code:
/// fn id<D: Digest>(data: &[u8]) -> Vec<u8> {
///     D::digest(data).to_vec()
/// }
/// assert_eq!(id::<Sha1Dc>(b"abc"), sha1::digest(b"abc"));
/// ```
impl FixedOutput for Sha1Dc {
    fn finalize_into(self, out: &mut Output<Self>) {
        let d: [u8; DIGEST_LEN] = Sha1Dc::finalize(self).digest;
        out.copy_from_slice(&d);
    }
}

/// [`FixedOutput`], then back to the initial state, keeping the backend
/// and the detector's switches; with [`Reset`], this makes `Sha1Dc` a
/// [`DynDigest`](digest::DynDigest).
///
/// ```
/// use fastcrypt::sha1::{self, DcConfig, Sha1Dc};
/// use fastcrypt::digest::{DynDigest, FixedOutputReset};
///
/// let cfg = DcConfig { reduced_round: true, ..DcConfig::default() };
/// let mut h = Sha1Dc::new().with_config(cfg);
/// h.update(b"abc");
/// let first = h.finalize_fixed_reset();
/// assert_eq!(first[..], sha1::digest(b"abc"));
/// assert_eq!(h.config(), cfg);
///
/// let mut boxed: Box<dyn DynDigest> = Box::new(h);
/// boxed.update(b"abc");
/// assert_eq!(&*boxed.finalize_reset(), &first[..]);
/// ```
impl FixedOutputReset for Sha1Dc {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        let d: [u8; DIGEST_LEN] = Sha1Dc::finalize_reset(self).digest;
        out.copy_from_slice(&d);
    }
}

/// [`Sha1Dc::reset`]: the backend and the switches are kept.
impl Reset for Sha1Dc {
    fn reset(&mut self) {
        Sha1Dc::reset(self);
    }
}

/// `"Sha1Dc"`, in the style of `Sha1`'s `"Sha1"`.
impl AlgorithmName for Sha1Dc {
    fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Sha1Dc")
    }
}

/// id-sha1, 1.3.14.3.2.26, as `sha1-checked` and `sha1collisiondetection`
/// give: the output is SHA-1's wherever no attack was detected.
impl AssociatedOid for Sha1Dc {
    const OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.14.3.2.26");
}
