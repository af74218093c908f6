//! `aead` 0.6 traits (`KeyInit`, `AeadCore`, `AeadInOut`, and through it
//! `AeadInPlace`-style and allocating `Aead` use) for the AES-GCM types,
//! with 96-bit nonces and 16-byte tags, as RustCrypto's `aes-gcm` has.
//! A cipher reconfigured with [`with_params`](crate::aes_gcm::Aes128Gcm::with_params)
//! to shorter tags returns `aead::Error` through these traits, with the
//! buffer untouched when sealing (and wiped when opening, as any failed
//! open).

use crate::aes_gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm, TAG_LEN};
use aead::{
    consts::{U12, U16, U24, U32},
    inout::InOutBuf,
    AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition,
};

macro_rules! impl_aead {
    ($name:ident, $key_size:ty) => {
        impl KeySizeUser for $name {
            type KeySize = $key_size;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                $name::new(key)
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<Tag<Self>> {
                // Refused before the buffer is touched: these traits' tags
                // are 16 bytes.
                if self.tag_len() != TAG_LEN {
                    return Err(aead::Error);
                }
                let buf = buffer.into_out_with_copied_in();
                let tag = self
                    .seal_in_place_detached(nonce.as_slice(), associated_data, buf)
                    .map_err(|_| aead::Error)?;
                let bytes: [u8; TAG_LEN] = tag.as_ref().try_into().map_err(|_| aead::Error)?;
                Ok(bytes.into())
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                let buf = buffer.into_out_with_copied_in();
                self.open_in_place_detached(nonce.as_slice(), associated_data, buf, tag.as_slice())
                    .map_err(|_| aead::Error)
            }
        }
    };
}

impl From<crate::aes_gcm::InvalidKeyLength> for aead::common::InvalidLength {
    /// Lets `?` carry the inherent `new_from_slice`'s error where code
    /// written for `KeyInit::new_from_slice` expects RustCrypto's.
    fn from(_: crate::aes_gcm::InvalidKeyLength) -> Self {
        aead::common::InvalidLength
    }
}

impl From<crate::aes_gcm::Error> for aead::Error {
    /// `aead::Error` carries no detail: every failure maps to it.
    fn from(_: crate::aes_gcm::Error) -> Self {
        aead::Error
    }
}

impl_aead!(Aes128Gcm, U16);
impl_aead!(Aes192Gcm, U24);
impl_aead!(Aes256Gcm, U32);
