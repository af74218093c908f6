//! The AES-GCM engine of the `portable` and `aes_sse2` backends: the
//! RustCrypto `aes` crate for the block cipher and one of fastcrypt's
//! constant-time GHASH kernels that need no carry-less multiplication
//! (the portable one, or the SSE2/AVX2 one), interleaved over 4 KiB
//! chunks so the ciphertext is hashed while it is still in L1.

use super::GcmEngine;
use crate::ghash::{self, Kernel};
use aes::cipher::{array::Array, BlockCipherEncrypt, KeyInit};

#[derive(Clone)]
enum Cipher {
    A128(aes::Aes128),
    A192(aes::Aes192),
    A256(aes::Aes256),
}

#[derive(Clone)]
pub(super) struct Engine {
    aes: Cipher,
    hkey: ghash::Engine,
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The `aes` ciphers zeroize themselves (its `zeroize` feature).
        self.hkey.zeroize();
    }
}

/// Blocks per chunk: 4 KiB of keystream, well inside L1.
const CHUNK_BLOCKS: usize = 256;

impl Engine {
    /// AES with `key`, and GHASH on `kernel`.
    pub(super) fn new(key: &[u8], kernel: Kernel) -> Engine {
        let aes = match key.len() {
            16 => Cipher::A128(aes::Aes128::new(&Array::try_from(key).expect("16 bytes"))),
            24 => Cipher::A192(aes::Aes192::new(&Array::try_from(key).expect("24 bytes"))),
            _ => Cipher::A256(aes::Aes256::new(&Array::try_from(key).expect("32 bytes"))),
        };
        let mut e = Engine {
            aes,
            hkey: ghash::Engine::new(Kernel::Portable, &[0; 16]),
        };
        let mut h = [0u8; 16];
        e.encrypt_block(&mut h);
        e.hkey = ghash::Engine::new(kernel, &h);
        zeroize::Zeroize::zeroize(&mut h);
        e
    }

    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        let blocks = Array::cast_slice_from_core_mut(blocks);
        match &self.aes {
            Cipher::A128(c) => c.encrypt_blocks(blocks),
            Cipher::A192(c) => c.encrypt_blocks(blocks),
            Cipher::A256(c) => c.encrypt_blocks(blocks),
        }
    }

    fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.encrypt_blocks(core::slice::from_mut(block));
    }

    /// XORs the keystream into one chunk of at most `CHUNK_BLOCKS` blocks.
    /// With `j0`, slot 0 of the batch is J0, whose encryption (the tag
    /// mask) is returned: a short message costs one call into the cipher,
    /// which the fixsliced software AES runs 2 or 4 blocks at a time anyway.
    fn ctr_chunk(
        &self,
        ctr: &mut [u8; 16],
        ks: &mut [[u8; 16]; CHUNK_BLOCKS + 1],
        chunk: &mut [u8],
        j0: Option<&[u8; 16]>,
    ) -> Option<[u8; 16]> {
        let n = chunk.len().div_ceil(16);
        let first = usize::from(j0.is_some());
        if let Some(j) = j0 {
            ks[0] = *j;
        }
        for k in ks[first..first + n].iter_mut() {
            *k = *ctr;
            super::inc32(ctr, 1);
        }
        self.encrypt_blocks(&mut ks[..first + n]);
        for (c, k) in chunk.iter_mut().zip(ks[first..].as_flattened()) {
            *c ^= k;
        }
        j0.map(|_| ks[0])
    }

    /// The tag from the GHASH accumulator and E(K, J0).
    fn finish(&self, mut acc: u128, ek_j0: &[u8; 16], aad_len: usize, msg_len: usize) -> [u8; 16] {
        self.ghash_padded(&mut acc, &super::lengths_block(aad_len, msg_len));
        let s = acc.to_be_bytes();
        core::array::from_fn(|i| s[i] ^ ek_j0[i])
    }
}

impl GcmEngine for Engine {
    fn ghash_padded(&self, acc: &mut u128, data: &[u8]) {
        let whole = data.len() / 16 * 16;
        if whole > 0 {
            self.hkey.update(acc, &data[..whole]);
        }
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.hkey.update(acc, &last);
        }
    }

    fn seal(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.crypt::<false>(&j0.to_le_bytes(), aad, buf)
    }

    fn open(&self, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.crypt::<true>(&j0.to_le_bytes(), aad, buf)
    }
}

impl Engine {
    /// Seal (`OPEN` false: CTR a chunk, then hash its ciphertext) or open
    /// (hash a chunk's ciphertext, then CTR it), chunk by chunk while the
    /// chunk is in L1.
    fn crypt<const OPEN: bool>(&self, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let mut acc = 0u128;
        self.ghash_padded(&mut acc, aad);
        let mut ctr = *j0;
        super::inc32(&mut ctr, 1);
        let mut ks = [[0u8; 16]; CHUNK_BLOCKS + 1];
        let mut ek = *j0;
        let mut chunks = buf.chunks_mut(CHUNK_BLOCKS * 16);
        match chunks.next() {
            Some(first) => {
                if OPEN {
                    self.ghash_padded(&mut acc, first);
                }
                ek = self
                    .ctr_chunk(&mut ctr, &mut ks, first, Some(j0))
                    .unwrap_or(ek);
                if !OPEN {
                    self.ghash_padded(&mut acc, first);
                }
            }
            None => self.encrypt_block(&mut ek),
        }
        for chunk in chunks {
            if OPEN {
                self.ghash_padded(&mut acc, chunk);
            }
            self.ctr_chunk(&mut ctr, &mut ks, chunk, None);
            if !OPEN {
                self.ghash_padded(&mut acc, chunk);
            }
        }
        // Wipe only the keystream that was written (a short message must not
        // pay for 4 KiB of volatile stores).
        let used = buf.len().min(CHUNK_BLOCKS * 16).div_ceil(16) + 1;
        zeroize::Zeroize::zeroize(ks[..used].as_flattened_mut());
        let tag = self.finish(acc, &ek, aad.len(), buf.len());
        zeroize::Zeroize::zeroize(&mut ek);
        tag
    }
}
