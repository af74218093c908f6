//! RC4 (ARCFOUR), with RC4-drop\[n\] and multi-stream keystream application.
//!
//! **RC4 is broken.** Its keystream is biased (Fluhrer, Mantin and Shamir,
//! 2001; AlFardan et al., "On the Security of RC4 in TLS", 2013) and RFC
//! 7465 bans it from TLS. Never choose it for a new design. It is here to
//! interoperate with formats and protocols that still speak it: Kerberos
//! RC4-HMAC (RFC 4757), MS-CHAPv2 / MPPE (RFC 3078, RFC 3079), PDF
//! encryption (standard security handler, revisions 2 to 4) and
//! BitTorrent's message stream encryption (RC4-drop1024).
//!
//! **Not constant time.** Every RC4 step reads and writes the state table at
//! indices that depend on the key and on earlier output, so the memory
//! access pattern leaks secret data through the cache to an attacker who
//! shares the machine. Every backend here has this property; it is RC4's
//! nature, not an implementation choice.
//!
//! ```
//! use fastcrypt::rc4::{self, Backend, Rc4};
//!
//! // RFC 6229, 40-bit key 0x0102030405, keystream bytes 0..8.
//! let mut buf = [0u8; 8];
//! let mut c = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
//! c.apply_keystream(&mut buf);
//! assert_eq!(buf, [0xb2, 0x39, 0x63, 0x05, 0xf0, 0x3d, 0xc0, 0x27]);
//!
//! // RC4-drop[n] (BitTorrent MSE uses n = 1024) is RC4 with the first n
//! // keystream bytes discarded.
//! let mut a = Rc4::new_drop(b"key", 1024).unwrap();
//! let mut b = Rc4::new(b"key").unwrap();
//! b.skip(1024);
//! let (mut x, mut y) = ([7u8; 40], [7u8; 40]);
//! a.apply_keystream(&mut x);
//! b.apply_keystream(&mut y);
//! assert_eq!(x, y);
//!
//! // Every backend this CPU runs gives the same keystream.
//! for &be in Backend::ALL {
//!     if let Ok(mut c) = Rc4::with_backend(be, &[1, 2, 3, 4, 5]) {
//!         let mut buf = [0u8; 4];
//!         c.apply_keystream(&mut buf);
//!         assert_eq!(buf, [0xb2, 0x39, 0x63, 0x05]);
//!     }
//! }
//!
//! // Keys are 1 to 256 bytes.
//! assert!(Rc4::new(&[]).is_err());
//! assert!(Rc4::new(&[0; 257]).is_err());
//! ```
//!
//! # Key length in the type, for RustCrypto code
//!
//! `Rc4` alone takes keys of any length at run time. `Rc4<KeySize>` fixes
//! the length in the type, as the `rc4` crate's `Rc4<U5>` did, for code
//! that builds ciphers through `cipher::KeyInit` (on the fastest
//! backend); both have the same keystream methods. A forced backend
//! ([`Rc4::with_backend`]) and RC4-drop\[n\] ([`Rc4::new_drop`]) build
//! the run-time form. With the `rustcrypto` feature:
//!
//! ```
//! use fastcrypt::rc4::{consts::U5, KeyInit, Rc4, StreamCipher};
//!
//! let mut fixed = Rc4::<U5>::new_from_slice(&[1, 2, 3, 4, 5]).unwrap();
//! let mut any = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
//! let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
//! fixed.apply_keystream(&mut x);
//! any.apply_keystream(&mut y);
//! assert_eq!(x, y);
//! ```
//!
//! Backends: `portable` (safe Rust), `x86_64` (the same schedule in
//! `asm!`, x86-64 with SSE4.1) and `x86` (the same schedule in `asm!` for
//! 32-bit x86 with SSE2, unrolled over the whole table so that seven
//! registers suffice). All issue each `S[i]` load three or four rounds
//! early, before the stores that might alias it, and check the rare
//! collision with a branch (see `portable.rs`), so no load waits on a
//! store address.
//!
//! For bulk work over many keys, [`apply_keystreams`] runs many streams in
//! one call (see there why it does not interleave them).

use core::{fmt, marker::PhantomData};

mod portable;

// What RustCrypto's `rc4` crate re-exports, so its users' `use` lines
// carry over.
#[cfg(feature = "rustcrypto")]
pub use cipher::{self, consts, KeyInit, StreamCipher};

#[cfg(fastcrypt_x86_32)]
mod x86;
#[cfg(fastcrypt_x86_64)]
mod x86_64;

/// The shortest key RC4 accepts, in bytes.
pub const MIN_KEY_LEN: usize = 1;
/// The longest key RC4 accepts, in bytes (the state table's size).
pub const MAX_KEY_LEN: usize = 256;

define_backends! {
    primitive: "rc4";
    /// Safe, portable Rust: the oracle the other backends are checked
    /// against, with loads issued three rounds early.
    Portable => "portable";
    /// The portable schedule in `asm!` for x86-64 (64-bit mode only), with
    /// registers and addressing chosen by hand and loads four rounds ahead.
    X86_64 => "x86_64", #[cfg(fastcrypt_x86_64)] Sse41Token;
    /// The portable schedule in `asm!` for 32-bit x86, unrolled over the
    /// whole table so that seven registers suffice, with loads three
    /// rounds ahead and the keystream gathered with SSE2.
    X86 => "x86", #[cfg(fastcrypt_x86_32)] Sse2Token;
}

impl Kernel {
    /// XORs the next `buf.len()` keystream bytes into `buf`. Called once
    /// per bulk operation; the kernels loop internally.
    #[inline]
    fn apply(self, st: &mut State, buf: &mut [u8]) {
        match self {
            Kernel::Portable => portable::apply(st, buf),
            #[cfg(fastcrypt_x86_64)]
            Kernel::X86_64(t) => x86_64::apply(t, st, buf),
            #[cfg(fastcrypt_x86_32)]
            Kernel::X86(t) => x86::apply(t, st, buf),
        }
    }
}

/// The RC4 state: the permutation `s` and the indices `i`, `j`.
///
/// Aligned to a cache line so the 256-byte table spans four lines, not
/// five. Zeroed on drop.
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct State {
    pub(crate) s: [u8; 256],
    pub(crate) i: u8,
    pub(crate) j: u8,
}

impl State {
    /// The key-scheduling algorithm. `key` must be 1..=256 bytes (checked
    /// by the callers).
    fn new(key: &[u8]) -> State {
        debug_assert!((MIN_KEY_LEN..=MAX_KEY_LEN).contains(&key.len()));
        let mut st = State {
            s: [0; 256],
            i: 0,
            j: 0,
        };
        for (n, v) in st.s.iter_mut().enumerate() {
            *v = n as u8;
        }
        let mut j = 0u8;
        for (n, &k) in (0..256).zip(key.iter().cycle()) {
            j = j.wrapping_add(st.s[n]).wrapping_add(k);
            st.s.swap(n, usize::from(j));
        }
        st
    }
}

impl Drop for State {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.s.zeroize();
        self.i.zeroize();
        self.j.zeroize();
    }
}

/// A key length outside RC4's 1..=256 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidKeyLength {
    /// The length that was given, in bytes.
    pub len: usize,
}

impl fmt::Display for InvalidKeyLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid RC4 key length {} bytes (must be {MIN_KEY_LEN} to {MAX_KEY_LEN})",
            self.len
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InvalidKeyLength {}

/// Input and output buffers of different lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    /// The input's length.
    pub input: usize,
    /// The output's length.
    pub output: usize,
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "input is {} bytes but output is {} bytes",
            self.input, self.output
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LengthMismatch {}

/// [`apply_keystreams`] was given a different number of streams and
/// buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamCountMismatch {
    /// How many streams were given.
    pub streams: usize,
    /// How many buffers were given.
    pub bufs: usize,
}

impl fmt::Display for StreamCountMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} RC4 streams but {} buffers", self.streams, self.bufs)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for StreamCountMismatch {}

/// Why [`Rc4::with_backend`] failed: the backend, or the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// This CPU (or build) cannot run the requested backend.
    Unsupported(crate::Unsupported),
    /// The key is not 1..=256 bytes.
    InvalidKeyLength(InvalidKeyLength),
}

impl From<crate::Unsupported> for Error {
    fn from(e: crate::Unsupported) -> Error {
        Error::Unsupported(e)
    }
}

impl From<InvalidKeyLength> for Error {
    fn from(e: InvalidKeyLength) -> Error {
        Error::InvalidKeyLength(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(e) => e.fmt(f),
            Error::InvalidKeyLength(e) => e.fmt(f),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Unsupported(e) => Some(e),
            Error::InvalidKeyLength(e) => Some(e),
        }
    }
}

/// The key-length parameter of a plain [`Rc4`]: any length from
/// [`MIN_KEY_LEN`] to [`MAX_KEY_LEN`], checked at run time. (A type with no
/// values; it only names the choice.)
#[derive(Debug)]
pub enum AnyKeyLen {}

/// An RC4 keystream: encrypts and decrypts (the same operation) any number
/// of bytes, in any number of calls.
///
/// `KeySize` is [`AnyKeyLen`] unless written: `Rc4` takes a key of any
/// length at run time; `Rc4<U16>` (a `typenum` size, with the
/// `rustcrypto` feature) has the length in its type and is built through
/// `cipher::KeyInit` (see the [module docs](self)).
///
/// Cloning copies the whole state: the clone continues the same keystream
/// independently. The state is zeroed when the value is dropped; as with
/// RustCrypto's crates, that covers the value where it is dropped:
/// building and moving it (returning it from `new`) may leave earlier
/// copies of the state on the stack. Keep it in one place (a `Box`) if
/// that matters.
pub struct Rc4<KeySize = AnyKeyLen> {
    st: State,
    backend: Backend,
    kernel: Kernel,
    key_size: PhantomData<fn() -> KeySize>,
}

impl<K> Clone for Rc4<K> {
    fn clone(&self) -> Self {
        Rc4 {
            st: self.st.clone(),
            backend: self.backend,
            kernel: self.kernel,
            key_size: PhantomData,
        }
    }
}

/// The state is zeroed on drop (by its `State`).
impl<K> zeroize::ZeroizeOnDrop for Rc4<K> {}

impl<K> fmt::Debug for Rc4<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rc4")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Rc4 {
    /// A keystream for `key` (1 to 256 bytes), on the fastest backend this
    /// CPU runs.
    pub fn new(key: &[u8]) -> Result<Rc4, InvalidKeyLength> {
        let (backend, kernel) = Backend::auto();
        Self::from_kernel(backend, kernel, key)
    }

    /// A keystream for `key` on `backend`. Fails with
    /// [`Error::Unsupported`] if this CPU (or build) cannot run the
    /// backend, checked first, then with [`Error::InvalidKeyLength`].
    ///
    /// ```
    /// use fastcrypt::rc4::{Backend, Error, Rc4};
    ///
    /// let c = Rc4::with_backend(Backend::Portable, b"key").unwrap();
    /// assert_eq!(c.backend(), Backend::Portable);
    /// assert!(matches!(
    ///     Rc4::with_backend(Backend::Portable, &[]),
    ///     Err(Error::InvalidKeyLength(_))
    /// ));
    /// ```
    pub fn with_backend(backend: Backend, key: &[u8]) -> Result<Rc4, Error> {
        let kernel = backend.kernel()?;
        Ok(Self::from_kernel(backend, kernel, key)?)
    }

    /// RC4-drop\[n\]: the keystream for `key` with its first `n` bytes
    /// discarded (BitTorrent MSE uses n = 1024; n = 768 or 3072 are other
    /// common choices).
    pub fn new_drop(key: &[u8], n: u64) -> Result<Rc4, InvalidKeyLength> {
        let mut c = Self::new(key)?;
        c.skip(n);
        Ok(c)
    }

    /// The same as [`new`](Rc4::new), under the name of RustCrypto's
    /// `KeyInit::new_from_slice`, so that code written for the `rc4` crate
    /// (`Rc4::new_from_slice(key)`) compiles unchanged; its error converts
    /// into `cipher::InvalidLength` for `?`.
    pub fn new_from_slice(key: &[u8]) -> Result<Rc4, InvalidKeyLength> {
        Self::new(key)
    }

    fn from_kernel(backend: Backend, kernel: Kernel, key: &[u8]) -> Result<Rc4, InvalidKeyLength> {
        if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&key.len()) {
            return Err(InvalidKeyLength { len: key.len() });
        }
        Ok(Rc4 {
            st: State::new(key),
            backend,
            kernel,
            key_size: PhantomData,
        })
    }
}

impl<K> Rc4<K> {
    /// The same keystream, as a plain `Rc4` (for [`apply_keystreams`] and
    /// code that takes any key length).
    pub fn into_any_key_len(self) -> Rc4 {
        self.with_key_size()
    }

    /// The same keystream under another key-size parameter (the state
    /// moves, and is zeroed on drop wherever it ends up; like any move,
    /// this may leave a copy on the stack).
    pub(crate) fn with_key_size<K2>(self) -> Rc4<K2> {
        let Rc4 {
            st,
            backend,
            kernel,
            key_size: _,
        } = self;
        Rc4 {
            st,
            backend,
            kernel,
            key_size: PhantomData,
        }
    }

    /// The backend this keystream uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// XORs the next `buf.len()` keystream bytes into `buf` (encrypts or
    /// decrypts it in place).
    #[inline]
    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.kernel.apply(&mut self.st, buf);
    }

    /// Writes `input` XOR the next keystream bytes to `output`.
    ///
    /// # Panics
    ///
    /// If the two differ in length, as `cipher::StreamCipher`'s method of
    /// the same name does; [`try_apply_keystream_b2b`](Rc4::try_apply_keystream_b2b)
    /// returns the error instead.
    pub fn apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) {
        if let Err(e) = self.try_apply_keystream_b2b(input, output) {
            panic!("{e}");
        }
    }

    /// Writes `input` XOR the next keystream bytes to `output`, or fails,
    /// changing nothing, if the two differ in length.
    pub fn try_apply_keystream_b2b(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), LengthMismatch> {
        if input.len() != output.len() {
            return Err(LengthMismatch {
                input: input.len(),
                output: output.len(),
            });
        }
        // The kernels work in place; a copy costs a small fraction of a
        // cycle per byte next to RC4's two and a half.
        output.copy_from_slice(input);
        self.apply_keystream(output);
        Ok(())
    }

    /// Writes the next `buf.len()` keystream bytes themselves to `buf`.
    pub fn write_keystream(&mut self, buf: &mut [u8]) {
        buf.fill(0);
        self.apply_keystream(buf);
    }

    /// Discards the next `n` keystream bytes.
    pub fn skip(&mut self, mut n: u64) {
        use zeroize::Zeroize;
        let mut scratch = [0u8; 512];
        while n > 0 {
            let take = n.min(scratch.len() as u64) as usize;
            self.apply_keystream(&mut scratch[..take]);
            n -= take as u64;
        }
        scratch.zeroize();
    }
}

/// Applies each stream's keystream to its buffer, `streams[k]` to
/// `bufs[k]`, for bulk work over many keys. The result is exactly that of
/// calling [`Rc4::apply_keystream`] on each pair; buffers may have any,
/// unequal, lengths.
///
/// Each stream runs on its own kernel, one after another. Interleaving
/// streams in one loop was how RC4 used to hide the latency of its loads;
/// the kernels here hide it within one stream, by issuing each load three
/// or four rounds early, so both are bound by the two table stores per
/// byte and interleaving only adds register pressure (the variants tried
/// and their figures are in the repository's `docs/rc4-variants.md`).
///
/// Fails, changing nothing, if `streams` and `bufs` differ in length.
///
/// ```
/// use fastcrypt::rc4::{apply_keystreams, Rc4};
///
/// let keys: [&[u8]; 3] = [b"one", b"two", b"three"];
/// let mut streams: Vec<Rc4> = keys.iter().map(|k| Rc4::new(k).unwrap()).collect();
/// let mut a = vec![0u8; 100];
/// let mut b = vec![0u8; 3000];
/// let mut c = vec![0u8; 17];
/// apply_keystreams(&mut streams, &mut [&mut a, &mut b, &mut c]).unwrap();
///
/// let mut want = vec![0u8; 3000];
/// Rc4::new(b"two").unwrap().apply_keystream(&mut want);
/// assert_eq!(b, want);
/// ```
pub fn apply_keystreams(
    streams: &mut [Rc4],
    bufs: &mut [&mut [u8]],
) -> Result<(), StreamCountMismatch> {
    if streams.len() != bufs.len() {
        return Err(StreamCountMismatch {
            streams: streams.len(),
            bufs: bufs.len(),
        });
    }
    for (s, b) in streams.iter_mut().zip(bufs.iter_mut()) {
        s.apply_keystream(b);
    }
    Ok(())
}
