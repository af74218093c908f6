// GHASH as users of RustCrypto's `ghash` crate write it.
use lib::universal_hash::{KeyInit, UniversalHash};
use lib::{Block, GHash, Key};

/// Hashes `data` under `h` every common way; returns the results.
pub fn run(h: &[u8; 16], data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();

    let key = Key::from(*h);
    let mut ghash = GHash::new(&key);
    let blocks: Vec<Block> = data
        .chunks_exact(16)
        .map(|c| Block::try_from(c).unwrap())
        .collect();
    ghash.update(&blocks);
    ghash.update_padded(data.chunks_exact(16).remainder());
    let tag = ghash.finalize();
    out.push(hex::encode(tag));

    // Block by block, then a clone.
    let mut one = GHash::new(&key);
    for block in &blocks {
        one.update(&[*block]);
    }
    let copy = one.clone();
    out.push(hex::encode(one.finalize()));
    out.push(hex::encode(copy.finalize()));

    // Generic code over the traits.
    fn mac<U: UniversalHash + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut u = U::new_from_slice(key).unwrap();
        u.update_padded(data);
        u.finalize().to_vec()
    }
    out.push(hex::encode(mac::<GHash>(h, data)));
    out
}

/// The type this build exercises, to show which library it is.
pub fn subject() -> &'static str {
    core::any::type_name::<GHash>()
}
