//! `cipher` 0.5 traits for RC4: [`StreamCipher`] for every [`Rc4`], and
//! [`KeyInit`] both for `Rc4<KeySize>` (the key length fixed in the type,
//! as the `rc4` crate's `Rc4<U5>` had it) and for the plain [`Rc4`] (as
//! the `rc4` crate's current `Rc4` has it: a nominal 32-byte `Key`, and
//! `new_from_slice` taking any length from 1 to 256 bytes).

use crate::rc4::{AnyKeyLen, InvalidKeyLength, Rc4, MAX_KEY_LEN, MIN_KEY_LEN};
use cipher::{
    array::ArraySize, consts::U32, AlgorithmName, InOutBuf, InvalidLength, Key, KeyInit,
    KeySizeUser, StreamCipher, StreamCipherError,
};
use core::fmt;

impl<K> StreamCipher for Rc4<K> {
    /// RC4's keystream never runs out.
    #[inline]
    fn check_remaining(&self, _data_len: usize) -> Result<(), StreamCipherError> {
        Ok(())
    }

    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        Rc4::apply_keystream(self, buf.into_out_with_copied_in());
    }

    #[inline]
    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        Rc4::write_keystream(self, buf);
    }
}

impl<K> AlgorithmName for Rc4<K> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RC4")
    }
}

impl<K: ArraySize> KeySizeUser for Rc4<K> {
    type KeySize = K;
}

/// `Rc4<U16>::new(&key)`: a key size outside 1..=256 fails to compile
/// where `new` is instantiated.
impl<K: ArraySize> KeyInit for Rc4<K> {
    fn new(key: &Key<Self>) -> Self {
        const {
            assert!(
                K::USIZE >= MIN_KEY_LEN && K::USIZE <= MAX_KEY_LEN,
                "RC4 keys are 1 to 256 bytes"
            )
        };
        Rc4::new(key)
            .expect("key length checked at compile time")
            .with_key_size()
    }
}

impl KeySizeUser for Rc4<AnyKeyLen> {
    /// Nominal, as in the `rc4` crate: `new_from_slice` takes 1 to 256
    /// bytes.
    type KeySize = U32;
}

impl KeyInit for Rc4<AnyKeyLen> {
    fn new(key: &Key<Self>) -> Self {
        Rc4::new(key).expect("a 32-byte key is valid")
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
        Ok(Rc4::new(key)?)
    }
}

impl From<InvalidKeyLength> for InvalidLength {
    /// Lets `?` carry fastcrypt's error where code written for
    /// `KeyInit::new_from_slice` expects RustCrypto's.
    fn from(_: InvalidKeyLength) -> Self {
        InvalidLength
    }
}

impl From<crate::rc4::LengthMismatch> for StreamCipherError {
    /// Lets `?` carry the inherent `try_apply_keystream_b2b`'s error where code
    /// written for `StreamCipher` expects RustCrypto's.
    fn from(_: crate::rc4::LengthMismatch) -> Self {
        StreamCipherError
    }
}
