//! `cipher` 0.5 traits for RC4: [`StreamCipher`] for [`Rc4`], and
//! [`Rc4Fixed<KeySize>`] for code that builds ciphers through [`KeyInit`]
//! with a key size fixed in the type (as RustCrypto's `Rc4<KeySize>` did).

use crate::rc4::{Backend, Rc4};
use cipher::{
    array::ArraySize, AlgorithmName, InOutBuf, Key, KeyInit, KeySizeUser, StreamCipher,
    StreamCipherError,
};
use core::{fmt, marker::PhantomData};

impl StreamCipher for Rc4 {
    /// RC4's keystream never runs out.
    #[inline]
    fn check_remaining(&self, _data_len: usize) -> Result<(), StreamCipherError> {
        Ok(())
    }

    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.apply_keystream(buf.into_out_with_copied_in());
    }

    #[inline]
    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.write_keystream(buf);
    }
}

impl AlgorithmName for Rc4 {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RC4")
    }
}

/// RC4 with the key length fixed in the type (`KeySize` bytes, 1 to 256),
/// for generic code that creates ciphers through [`KeyInit`]:
///
/// ```
/// use cipher::{consts::U16, KeyInit, StreamCipher};
/// use fastcrypt::rc4::Rc4Fixed;
///
/// let key = [0x42u8; 16];
/// let mut a = Rc4Fixed::<U16>::new(&key.into());
/// let mut b = fastcrypt::rc4::Rc4::new(&key).unwrap();
/// let (mut x, mut y) = ([1u8; 64], [1u8; 64]);
/// a.apply_keystream(&mut x);
/// b.apply_keystream(&mut y);
/// assert_eq!(x, y);
/// ```
///
/// A size outside 1..=256 fails to compile when `new` is instantiated.
/// The value wraps an [`Rc4`] on the fastest backend; [`AsMut`] reaches it
/// (for `skip`, `backend`, ...).
pub struct Rc4Fixed<KeySize: ArraySize> {
    inner: Rc4,
    size: PhantomData<KeySize>,
}

impl<KeySize: ArraySize> Rc4Fixed<KeySize> {
    /// The wrapped keystream.
    pub fn into_inner(self) -> Rc4 {
        self.inner
    }

    /// The backend the wrapped keystream uses.
    pub fn backend(&self) -> Backend {
        self.inner.backend()
    }
}

impl<KeySize: ArraySize> Clone for Rc4Fixed<KeySize> {
    fn clone(&self) -> Self {
        Rc4Fixed {
            inner: self.inner.clone(),
            size: PhantomData,
        }
    }
}

impl<KeySize: ArraySize> fmt::Debug for Rc4Fixed<KeySize> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rc4Fixed<{}>({:?})", KeySize::USIZE, self.inner)
    }
}

impl<KeySize: ArraySize> AsRef<Rc4> for Rc4Fixed<KeySize> {
    fn as_ref(&self) -> &Rc4 {
        &self.inner
    }
}

impl<KeySize: ArraySize> AsMut<Rc4> for Rc4Fixed<KeySize> {
    fn as_mut(&mut self) -> &mut Rc4 {
        &mut self.inner
    }
}

impl<KeySize: ArraySize> KeySizeUser for Rc4Fixed<KeySize> {
    type KeySize = KeySize;
}

impl<KeySize: ArraySize> KeyInit for Rc4Fixed<KeySize> {
    fn new(key: &Key<Self>) -> Self {
        const {
            assert!(
                KeySize::USIZE >= crate::rc4::MIN_KEY_LEN
                    && KeySize::USIZE <= crate::rc4::MAX_KEY_LEN,
                "RC4 keys are 1 to 256 bytes"
            )
        };
        Rc4Fixed {
            inner: Rc4::new(key).expect("key length checked at compile time"),
            size: PhantomData,
        }
    }
}

impl<KeySize: ArraySize> StreamCipher for Rc4Fixed<KeySize> {
    #[inline]
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        self.inner.check_remaining(data_len)
    }

    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.inner.unchecked_apply_keystream_inout(buf);
    }

    #[inline]
    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.inner.unchecked_write_keystream(buf);
    }
}

impl<KeySize: ArraySize> AlgorithmName for Rc4Fixed<KeySize> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RC4")
    }
}
