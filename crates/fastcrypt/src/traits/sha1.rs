//! `digest` 0.11 traits for [`Sha1`], so it drops in wherever RustCrypto's
//! `sha1::Sha1` is used (`Digest`, `DynDigest`, `hmac::Hmac` and
//! `hmac::SimpleHmac`, ...), and its block-level core [`Sha1Core`]
//! (`CoreProxy`), which `hmac::Hmac<Sha1>` keys once and reuses.

use crate::sha1::{state_to_bytes, Backend, Kernel, Sha1, BLOCK_LEN, DIGEST_LEN, IV};
use digest::{
    array::Array,
    block_api::{Block, Buffer, BufferKindUser, CoreProxy, Eager, FixedOutputCore, UpdateCore},
    block_buffer::SerializedBufferSize,
    common::hazmat::{DeserializeStateError, SerializableState, SerializedState},
    common::{AlgorithmName, BlockSizeUser, OutputSizeUser},
    const_oid::{AssociatedOid, ObjectIdentifier},
    consts::U28,
    consts::{U20, U64},
    typenum::Sum,
    FixedOutput, FixedOutputReset, HashMarker, Output, Reset, Update,
};
use zeroize::Zeroize;

/// SHA-1's block-level state for `digest`'s block API: the chaining value
/// and the number of blocks compressed, with no input buffer. This is
/// `<Sha1 as CoreProxy>::Core`; `hmac::Hmac<Sha1>` holds two of them (the
/// states after the inner and outer padded key) so each MAC starts from
/// them instead of hashing the key again. It compresses with the backend
/// the [`Sha1`] it came from uses (`Default` picks the fastest). Zeroed on
/// drop.
#[derive(Clone)]
pub struct Sha1Core {
    state: [u32; 5],
    blocks: u64,
    backend: Backend,
    kernel: Kernel,
}

impl Sha1Core {
    /// The backend this core compresses with.
    pub fn backend(&self) -> Backend {
        self.backend
    }
}

impl Default for Sha1Core {
    fn default() -> Self {
        let (backend, kernel) = Backend::auto();
        Sha1Core {
            state: IV,
            blocks: 0,
            backend,
            kernel,
        }
    }
}

impl core::fmt::Debug for Sha1Core {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sha1Core")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Drop for Sha1Core {
    fn drop(&mut self) {
        // As a slice: one fill, not a volatile write per word.
        self.state.as_mut_slice().zeroize();
        self.blocks.zeroize();
    }
}

impl HashMarker for Sha1Core {}

impl BlockSizeUser for Sha1Core {
    type BlockSize = U64;
}

impl BufferKindUser for Sha1Core {
    type BufferKind = Eager;
}

impl OutputSizeUser for Sha1Core {
    type OutputSize = U20;
}

impl UpdateCore for Sha1Core {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        if blocks.is_empty() {
            return;
        }
        let bytes = Array::cast_slice_to_core(blocks).as_flattened();
        self.kernel.compress(&mut self.state, bytes);
        self.blocks += blocks.len() as u64;
    }
}

impl FixedOutputCore for Sha1Core {
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // Wrapping, as every SHA-1 path here counts: the length field is
        // the message length in bits mod 2^64, and a deserialized block
        // count may be anything.
        let bit_len = self
            .blocks
            .wrapping_mul(BLOCK_LEN as u64)
            .wrapping_add(buffer.get_pos() as u64)
            .wrapping_mul(8);
        let mut state = self.state;
        let kernel = self.kernel;
        buffer.len64_padding_be(bit_len, |block| {
            kernel.compress(&mut state, block.as_slice())
        });
        out.copy_from_slice(&state_to_bytes(&state));
        state.as_mut_slice().zeroize();
    }
}

impl Reset for Sha1Core {
    fn reset(&mut self) {
        self.state = IV;
        self.blocks = 0;
    }
}

impl AlgorithmName for Sha1Core {
    fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Sha1")
    }
}

/// The same bytes as RustCrypto's `Sha1Core`: the five state words, then
/// the block count, little-endian; a state saved by either library resumes
/// in the other. A restored core uses the fastest backend.
impl SerializableState for Sha1Core {
    type SerializedStateSize = U28;

    fn serialize(&self) -> SerializedState<Self> {
        let mut out = SerializedState::<Self>::default();
        for (o, w) in out.chunks_exact_mut(4).zip(&self.state) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out[20..].copy_from_slice(&self.blocks.to_le_bytes());
        out
    }

    fn deserialize(bytes: &SerializedState<Self>) -> Result<Self, DeserializeStateError> {
        let mut core = Sha1Core::default();
        for (w, b) in core.state.iter_mut().zip(bytes[..20].chunks_exact(4)) {
            *w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
        }
        core.blocks = u64::from_le_bytes(bytes[20..].try_into().expect("8 bytes"));
        Ok(core)
    }
}

/// The core's bytes, then `digest`'s serialized block buffer: the layout of
/// RustCrypto's `Sha1`, so saved states move between the two.
impl SerializableState for Sha1 {
    type SerializedStateSize = Sum<U28, SerializedBufferSize<U64, Eager>>;

    fn serialize(&self) -> SerializedState<Self> {
        let (core, buffer) = self.clone().decompose();
        core.serialize().concat(buffer.serialize())
    }

    fn deserialize(bytes: &SerializedState<Self>) -> Result<Self, DeserializeStateError> {
        let (core, buffer) = bytes.split_ref::<U28>();
        let core = Sha1Core::deserialize(core)?;
        let buffer = Buffer::<Sha1Core>::deserialize(buffer).map_err(|_| DeserializeStateError)?;
        Ok(Sha1::compose(core, buffer))
    }
}

impl zeroize::ZeroizeOnDrop for Sha1Core {}

impl CoreProxy for Sha1 {
    type Core = Sha1Core;

    fn compose(core: Sha1Core, buffer: Buffer<Sha1Core>) -> Sha1 {
        let data = buffer.get_data();
        let mut buf = [0u8; BLOCK_LEN];
        buf[..data.len()].copy_from_slice(data);
        Sha1 {
            state: core.state,
            compressed: core.blocks.wrapping_mul(BLOCK_LEN as u64),
            buf,
            buf_len: data.len(),
            backend: core.backend,
            kernel: core.kernel,
        }
    }

    fn decompose(self) -> (Sha1Core, Buffer<Sha1Core>) {
        let buffer = Buffer::<Sha1Core>::new(&self.buf[..self.buf_len]);
        let core = Sha1Core {
            state: self.state,
            blocks: self.compressed / BLOCK_LEN as u64,
            backend: self.backend,
            kernel: self.kernel,
        };
        (core, buffer)
    }
}

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
