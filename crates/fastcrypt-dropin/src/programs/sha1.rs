// SHA-1 as users of RustCrypto's `sha1` crate write it.
use lib::digest::const_oid::AssociatedOid;
use lib::{Digest, Sha1};

/// Hashes `data` (and `text`) every common way; returns the results.
pub fn run(data: &[u8], text: &str) -> Vec<String> {
    let mut out = Vec::new();

    // One shot.
    let result = Sha1::digest(data);
    out.push(hex::encode(result));

    // Incremental: string and byte input, then the digest.
    let mut hasher = Sha1::new();
    hasher.update(text);
    hasher.update(b"\n");
    hasher.update(data);
    let hash = hasher.finalize();
    out.push(hex::encode(&hash[..]));

    // Builder style.
    let chained = Sha1::new_with_prefix(text).chain_update(data).finalize();
    out.push(hex::encode(chained));

    // One hasher reused.
    let mut hasher = Sha1::new();
    hasher.update(data);
    let first = hasher.finalize_reset();
    hasher.update(data);
    let second = hasher.finalize();
    assert_eq!(first, second);
    out.push(hex::encode(first.as_slice()));

    // Into a plain array, and a clone part-way.
    let array: [u8; 20] = Sha1::digest(text).into();
    out.push(hex::encode(array));
    let mut a = Sha1::new();
    a.update(&data[..data.len() / 2]);
    let mut b = a.clone();
    b.update(&data[data.len() / 2..]);
    out.push(hex::encode(b.finalize()));

    // Generic code over `Digest`.
    fn digest_with<D: Digest>(data: &[u8]) -> Vec<u8> {
        D::digest(data).to_vec()
    }
    out.push(hex::encode(digest_with::<Sha1>(data)));
    out.push(<Sha1 as Digest>::output_size().to_string());

    // Dynamic dispatch.
    fn dynamic(data: &[u8]) -> Vec<String> {
        use lib::digest::DynDigest;
        let mut boxed: Box<dyn DynDigest> = Box::new(Sha1::default());
        boxed.update(data);
        vec![
            hex::encode(boxed.finalize_reset()),
            boxed.output_size().to_string(),
        ]
    }
    out.extend(dynamic(data));

    // The algorithm's object identifier.
    out.push(Sha1::OID.to_string());
    out
}

/// The type this build exercises, to show which library it is.
pub fn subject() -> &'static str {
    core::any::type_name::<Sha1>()
}
