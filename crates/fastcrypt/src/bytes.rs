//! Fixed-size byte strings, as the constructors and block-taking methods
//! accept them.

/// Exactly `N` bytes: a `[u8; N]`, or (with the `rustcrypto` feature)
/// RustCrypto's `Array<u8, _>` of the same length, which is what
/// `Key<…>`, `Block<…>` and `Nonce<…>` are. Methods that take keys or
/// blocks are generic over it, so code written for fastcrypt and code
/// written for RustCrypto's crates both compile:
///
/// ```
/// use fastcrypt::aes_gcm::{Aes128Gcm, Key, KeyInit};
///
/// let a = Aes128Gcm::new(&[0x42; 16]); // fastcrypt style
/// let key: Key<Aes128Gcm> = [0x42; 16].into();
/// let b = Aes128Gcm::new(&key); // RustCrypto style
/// let c = Aes128Gcm::new(&&key);
/// # let _ = (a, b, c);
/// ```
///
/// Because the parameter is generic, a conversion whose target only the
/// parameter could name does not infer: write `Aes128Gcm::new(&key)` for
/// either type rather than `Aes128Gcm::new(&bytes.into())`, and
/// `Aes128Gcm::new_from_slice(slice)` rather than
/// `Aes128Gcm::new(slice.try_into().unwrap())`.
///
/// The trait is sealed: these are its only implementations.
pub trait ByteArray<const N: usize>: sealed::Sealed {
    /// The bytes.
    fn as_byte_array(&self) -> &[u8; N];

    /// `values` as one slice of arrays, without copying, when the type's
    /// layout is exactly `[u8; N]` (`None` for references).
    #[doc(hidden)]
    fn cast_slice(values: &[Self]) -> Option<&[[u8; N]]>
    where
        Self: Sized,
    {
        let _ = values;
        None
    }
}

impl<const N: usize> ByteArray<N> for [u8; N] {
    #[inline]
    fn as_byte_array(&self) -> &[u8; N] {
        self
    }

    #[inline]
    fn cast_slice(values: &[Self]) -> Option<&[[u8; N]]> {
        Some(values)
    }
}

impl<const N: usize, T: ByteArray<N> + ?Sized> ByteArray<N> for &T {
    #[inline]
    fn as_byte_array(&self) -> &[u8; N] {
        (**self).as_byte_array()
    }
}

#[cfg(feature = "rustcrypto")]
impl<const N: usize, U> ByteArray<N> for digest::array::Array<u8, U>
where
    U: digest::array::ArraySize<ArrayType<u8> = [u8; N]>,
{
    #[inline]
    fn as_byte_array(&self) -> &[u8; N] {
        self.as_ref()
    }

    #[inline]
    fn cast_slice(values: &[Self]) -> Option<&[[u8; N]]> {
        Some(digest::array::Array::cast_slice_to_core(values))
    }
}

mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [u8; N] {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
    #[cfg(feature = "rustcrypto")]
    impl<U: digest::array::ArraySize> Sealed for digest::array::Array<u8, U> {}
}
