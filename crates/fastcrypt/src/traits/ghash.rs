//! `universal-hash` 0.6 traits for [`GHash`], so it stands in for
//! RustCrypto's `ghash::GHash` (`KeyInit`, `UniversalHash`, `Reset`).
//!
//! `UniversalHash::update` and `update_padded` are overridden to hand the
//! whole slice to [`GHash`]'s kernel at once; `update_with_backend` (the
//! rank-2 closure entry point) exposes a backend that forwards blocks in
//! batches of 8.

use crate::ghash::{GHash, BLOCK_LEN};
use universal_hash::{
    common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    consts::{U16, U8},
    Block, Key, KeyInit, ParBlocks, Reset, UhfBackend, UhfClosure, UniversalHash,
};

impl KeySizeUser for GHash {
    type KeySize = U16;
}

impl KeyInit for GHash {
    /// Keys GHASH with `H` (GCM byte order), fastest backend.
    fn new(h: &Key<Self>) -> Self {
        GHash::new(h)
    }
}

impl BlockSizeUser for GHash {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for GHash {
    type ParBlocksSize = U8;
}

impl UhfBackend for GHash {
    #[inline]
    fn proc_block(&mut self, block: &Block<Self>) {
        GHash::update(self, core::slice::from_ref(block));
    }

    #[inline]
    fn proc_par_blocks(&mut self, blocks: &ParBlocks<Self>) {
        GHash::update(self, blocks.as_slice());
    }
}

impl UniversalHash for GHash {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(self);
    }

    #[inline]
    fn update(&mut self, blocks: &[Block<Self>]) {
        GHash::update(self, blocks);
    }

    #[inline]
    fn update_padded(&mut self, data: &[u8]) {
        GHash::update_padded(self, data);
    }

    fn finalize(self) -> Block<Self> {
        let out: [u8; BLOCK_LEN] = GHash::finalize(self);
        out.into()
    }
}

impl Reset for GHash {
    fn reset(&mut self) {
        GHash::reset(self);
    }
}
