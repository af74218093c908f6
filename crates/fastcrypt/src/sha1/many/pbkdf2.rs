//! PBKDF2-HMAC-SHA1 (RFC 8018, section 5.2) for many passwords with one
//! salt and one iteration count ([`Sha1Many::pbkdf2_hmac_sha1`]), on the
//! multi-buffer kernels: a WPA2 audit (candidate passphrases for one
//! SSID, which is the salt), or any protocol that derives keys for many
//! secrets under one salt.
//!
//! Every output block of every password is an independent chain: `U_1 =
//! HMAC(salt || INT(i))`, then `U_j = HMAC(U_(j-1))` and `T_i = U_1 ^ ...
//! ^ U_c`. The chains of a batch differ only in their keyed states and
//! their `U_1`, so a lane kernel runs one per lane from the same code,
//! and as all run the same number of iterations, a group of lanes starts
//! and ends together and needs no refill.

use super::{Kernel, Sha1Many};
use crate::sha1::hmac::{check_pbkdf2_args, HmacSha1, Pbkdf2Error};
use crate::sha1::{state_to_bytes, DIGEST_LEN};
use alloc::vec::Vec;
use zeroize::Zeroize;

/// `L` PBKDF2 chains, words in lanes (word `w` of lane `i` in `[w][i]`,
/// as the SIMD kernels hold them): each chain's keyed states (after
/// `key ^ ipad` and `key ^ opad`), its last `U` and its running XOR `T`.
/// All of it is key material: zeroed on drop.
pub(crate) struct Pbkdf2Chains<const L: usize> {
    pub(crate) inner: [[u32; L]; 5],
    pub(crate) outer: [[u32; L]; 5],
    pub(crate) u: [[u32; L]; 5],
    pub(crate) t: [[u32; L]; 5],
}

impl<const L: usize> Pbkdf2Chains<L> {
    fn new() -> Self {
        Pbkdf2Chains {
            inner: [[0; L]; 5],
            outer: [[0; L]; 5],
            u: [[0; L]; 5],
            t: [[0; L]; 5],
        }
    }

    /// Chain `i`'s words of one of the arrays.
    fn get(a: &[[u32; L]; 5], i: usize) -> [u32; 5] {
        core::array::from_fn(|w| a[w][i])
    }

    fn set(a: &mut [[u32; L]; 5], i: usize, s: &[u32; 5]) {
        for (w, v) in s.iter().enumerate() {
            a[w][i] = *v;
        }
    }

    /// Starts lane `i` on `chain`: its keyed states, and `U_1` as both
    /// `U` and `T`.
    fn start(&mut self, i: usize, chain: &Chain) {
        Self::set(&mut self.inner, i, &chain.inner);
        Self::set(&mut self.outer, i, &chain.outer);
        Self::set(&mut self.u, i, &chain.u1);
        Self::set(&mut self.t, i, &chain.u1);
    }

    /// Makes lane `to` a copy of lane `from` (a spare lane of a partial
    /// group: it computes what `from` does, and nobody reads it).
    fn copy_lane(&mut self, from: usize, to: usize) {
        for a in [&mut self.inner, &mut self.outer, &mut self.u, &mut self.t] {
            for w in a.iter_mut() {
                w[to] = w[from];
            }
        }
    }
}

impl<const L: usize> Drop for Pbkdf2Chains<L> {
    fn drop(&mut self) {
        for a in [&mut self.inner, &mut self.outer, &mut self.u, &mut self.t] {
            a.as_flattened_mut().zeroize();
        }
    }
}

/// What a PBKDF2 lane kernel does: `n` more iterations on each of `L`
/// chains (`u = HMAC(u)`, `t ^= u`, the HMAC from the chain's own keyed
/// states). Called once per group of chains, for all its iterations.
pub(crate) trait Pbkdf2Lanes<const L: usize>: Copy {
    fn iterate(self, chains: &mut Pbkdf2Chains<L>, n: u32);
}

/// A one-stream kernel as one lane: how the portable backend (the oracle)
/// derives its chains, one after another.
impl Pbkdf2Lanes<1> for crate::sha1::Kernel {
    fn iterate(self, chains: &mut Pbkdf2Chains<1>, n: u32) {
        let mut inner = Pbkdf2Chains::get(&chains.inner, 0);
        let mut outer = Pbkdf2Chains::get(&chains.outer, 0);
        let mut u = [Pbkdf2Chains::get(&chains.u, 0)];
        let mut t = [Pbkdf2Chains::get(&chains.t, 0)];
        self.pbkdf2_chains(&inner, &outer, &mut u, &mut t, n);
        Pbkdf2Chains::set(&mut chains.u, 0, &u[0]);
        Pbkdf2Chains::set(&mut chains.t, 0, &t[0]);
        for s in [&mut inner, &mut outer, &mut u[0], &mut t[0]] {
            s.zeroize();
        }
    }
}

/// One chain before its iterations: output block `index` (from 1) of a
/// password, with that password's keyed states and `U_1`.
struct Chain {
    /// Where its bytes go in the caller's output, and how many (20, or
    /// fewer for a key's last block).
    at: usize,
    len: usize,
    inner: [u32; 5],
    outer: [u32; 5],
    u1: [u32; 5],
}

impl Drop for Chain {
    fn drop(&mut self) {
        for s in [&mut self.inner, &mut self.outer, &mut self.u1] {
            s.zeroize();
        }
    }
}

/// The chains of a batch in order: every output block of the first
/// password, then of the next. Each password is keyed once, when its
/// first chain is taken, on `backend`'s one-stream kernel.
struct Chains<'a, P> {
    passwords: &'a [P],
    salt: &'a [u8],
    key_len: usize,
    /// Output blocks per password.
    blocks: usize,
    /// The next chain: password `next / blocks`, block `next % blocks`.
    next: usize,
    backend: crate::sha1::Backend,
    /// The password keyed last, and its index.
    keyed: Option<(usize, HmacSha1)>,
}

impl<P: AsRef<[u8]>> Chains<'_, P> {
    fn left(&self) -> usize {
        self.passwords.len() * self.blocks - self.next
    }

    /// The next chain (the caller takes no more than [`left`](Self::left)).
    fn take(&mut self) -> Chain {
        let (p, b) = (self.next / self.blocks, self.next % self.blocks);
        self.next += 1;
        if !matches!(&self.keyed, Some((i, _)) if *i == p) {
            // The previous password's keyed states are zeroed as it drops.
            let key = HmacSha1::with_backend(self.backend, self.passwords[p].as_ref())
                .expect("the multi-buffer backend's one-stream kernel runs here");
            self.keyed = Some((p, key));
        }
        let key = &self.keyed.as_ref().expect("keyed above").1;
        let (inner, outer) = key.keyed_states();
        let start = b * DIGEST_LEN;
        Chain {
            at: p * self.key_len + start,
            len: DIGEST_LEN.min(self.key_len - start),
            inner: *inner,
            outer: *outer,
            // Block numbers fit in 32 bits: `check_pbkdf2_args` bounds
            // the key length.
            u1: key.first_u(self.salt, b as u32 + 1),
        }
    }
}

/// Derives `count` chains of `chains` on an `L`-lane kernel, `L` at a
/// time, into `out`; in a last group of fewer, the spare lanes repeat the
/// group's first chain.
fn run<const L: usize, P: AsRef<[u8]>>(
    kernel: impl Pbkdf2Lanes<L>,
    chains: &mut Chains<'_, P>,
    mut count: usize,
    iterations: u32,
    out: &mut [u8],
) {
    while count > 0 {
        let k = count.min(L);
        count -= k;
        let mut lanes = Pbkdf2Chains::<L>::new();
        let mut slots = [(0, 0); L];
        for (i, slot) in slots.iter_mut().enumerate().take(k) {
            let chain = chains.take();
            lanes.start(i, &chain);
            *slot = (chain.at, chain.len);
        }
        for i in k..L {
            lanes.copy_lane(0, i);
        }
        kernel.iterate(&mut lanes, iterations - 1);
        for (i, &(at, len)) in slots.iter().enumerate().take(k) {
            let mut words = Pbkdf2Chains::get(&lanes.t, i);
            let mut bytes = state_to_bytes(&words);
            out[at..at + len].copy_from_slice(&bytes[..len]);
            words.zeroize();
            bytes.zeroize();
        }
    }
}

/// Derives the chains left on SHA-NI: [`SHANI_CHAINS`](super::SHANI_CHAINS)
/// at a time, and the last one or two as a narrower kernel, which is as
/// fast per group and computes no spare chain.
#[cfg(fastcrypt_x86)]
fn shani<P: AsRef<[u8]>>(
    token: crate::cpu::ShaNiToken,
    chains: &mut Chains<'_, P>,
    iterations: u32,
    out: &mut [u8],
) {
    let left = chains.left();
    let whole = left / super::SHANI_CHAINS * super::SHANI_CHAINS;
    run::<{ super::SHANI_CHAINS }, _>(token, chains, whole, iterations, out);
    match left - whole {
        2 => run::<2, _>(token, chains, 2, iterations, out),
        1 => run::<1, _>(token, chains, 1, iterations, out),
        _ => {}
    }
}

/// Derives the chains of a lane kernel with `L` lanes: full groups on the
/// lanes, and the rest on SHA-NI where this CPU has it and it finishes
/// them sooner than one more group of mostly spare lanes would (at most
/// `hand_off` chains), else as one more group.
#[cfg(fastcrypt_x86)]
fn lanes<const L: usize, P: AsRef<[u8]>>(
    kernel: impl Pbkdf2Lanes<L>,
    hand_off: usize,
    chains: &mut Chains<'_, P>,
    iterations: u32,
    out: &mut [u8],
) {
    let left = chains.left();
    let rest = left % L;
    match crate::cpu::ShaNiToken::get() {
        Some(token) if rest <= hand_off => {
            run::<L, _>(kernel, chains, left - rest, iterations, out);
            shani(token, chains, iterations, out);
        }
        _ => run::<L, _>(kernel, chains, left, iterations, out),
    }
}

impl Sha1Many {
    /// PBKDF2-HMAC-SHA1 (RFC 8018) of each password with the same `salt`
    /// and `iterations`: one `key_len`-byte key per password, in order,
    /// each equal to what [`pbkdf2_hmac_sha1`](crate::sha1::pbkdf2_hmac_sha1)
    /// derives for the password alone. Errors as that function's: no
    /// iterations, or a key longer than `(2^32 - 1) * 20` bytes.
    ///
    /// Every output block of every password is an independent chain of
    /// `2 * iterations` dependent compressions, and one chain is bound by
    /// the latency of the compression function; so the chains of a batch
    /// run side by side: one per lane of the `avx512` (16) and `avx2` (8)
    /// kernels, or [`SHANI_CHAINS`](super::SHANI_CHAINS) interleaved
    /// `sha1rnds4` chains on `shani`. All chains run the same number of
    /// iterations, so a group of lanes starts and ends together. The last
    /// one or two chains of a batch that fill no group run on SHA-NI where
    /// the CPU has it, and `portable` derives one chain after another. A
    /// batch of one password with a key of several blocks runs its blocks
    /// side by side too. Each password is keyed once (two compressions).
    ///
    /// ```
    /// use fastcrypt::sha1::{many::{Backend, Sha1Many}, pbkdf2_hmac_sha1};
    ///
    /// // WPA2-PSK: candidate passphrases for one SSID, 32-byte PMKs.
    /// let candidates = ["password", "letmein", "correct horse"];
    /// for b in Backend::available() {
    ///     let pmks = Sha1Many::with_backend(b)
    ///         .unwrap()
    ///         .pbkdf2_hmac_sha1(&candidates, b"IEEE", 4096, 32)
    ///         .unwrap();
    ///     // IEEE 802.11i-2004, H.4.1.
    ///     assert_eq!(pmks[0][..4], [0xf4, 0x2c, 0x6f, 0xc5]);
    ///     let mut one = [0u8; 32];
    ///     pbkdf2_hmac_sha1(b"letmein", b"IEEE", 4096, &mut one).unwrap();
    ///     assert_eq!(pmks[1], one);
    /// }
    /// ```
    ///
    /// The derived keys are secrets: the returned vectors are not wiped
    /// on drop (wrap them, or use
    /// [`pbkdf2_hmac_sha1_into`](Self::pbkdf2_hmac_sha1_into) with a
    /// buffer you wipe). The keyed states and chains the call holds in
    /// memory are zeroed before it returns.
    ///
    /// # Panics
    ///
    /// If the keys' total length, `passwords.len() * key_len`, overflows
    /// `usize` (possible on 32-bit targets: PBKDF2 allows keys of up to
    /// 80 GiB), as `vec!` would for a length that large.
    pub fn pbkdf2_hmac_sha1<P: AsRef<[u8]>>(
        &self,
        passwords: &[P],
        salt: &[u8],
        iterations: u32,
        key_len: usize,
    ) -> Result<Vec<Vec<u8>>, Pbkdf2Error> {
        check_pbkdf2_args(iterations, key_len)?;
        let total = passwords.len().checked_mul(key_len);
        let mut flat = alloc::vec![0u8; total.expect("the keys' total length overflows usize")];
        self.pbkdf2_hmac_sha1_into(passwords, salt, iterations, key_len, &mut flat)?;
        let keys = (0..passwords.len())
            .map(|i| flat[i * key_len..(i + 1) * key_len].to_vec())
            .collect();
        flat.zeroize();
        Ok(keys)
    }

    /// [`pbkdf2_hmac_sha1`](Self::pbkdf2_hmac_sha1) into `out`, without
    /// allocating: password `i`'s key is `out[i * key_len..(i + 1) *
    /// key_len]`. On an error `out` is left as it was.
    ///
    /// ```
    /// use fastcrypt::sha1::{many::Sha1Many, pbkdf2_hmac_sha1};
    ///
    /// // PMKs of candidate passphrases for one SSID into one buffer.
    /// let candidates: [&[u8]; 2] = [b"hunter22", b"swordfish"];
    /// let mut pmks = [0u8; 2 * 32];
    /// Sha1Many::new().pbkdf2_hmac_sha1_into(&candidates, b"HomeNet", 4096, 32, &mut pmks)?;
    /// for (passphrase, pmk) in candidates.iter().zip(pmks.chunks_exact(32)) {
    ///     let mut one = [0u8; 32];
    ///     pbkdf2_hmac_sha1(passphrase, b"HomeNet", 4096, &mut one)?;
    ///     assert_eq!(pmk, one);
    /// }
    /// # Ok::<(), fastcrypt::sha1::Pbkdf2Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// If `out` is not `passwords.len() * key_len` bytes long.
    pub fn pbkdf2_hmac_sha1_into<P: AsRef<[u8]>>(
        &self,
        passwords: &[P],
        salt: &[u8],
        iterations: u32,
        key_len: usize,
        out: &mut [u8],
    ) -> Result<(), Pbkdf2Error> {
        check_pbkdf2_args(iterations, key_len)?;
        assert!(
            passwords.len().checked_mul(key_len) == Some(out.len()),
            "pbkdf2_hmac_sha1_into: {} passwords of {key_len}-byte keys but {} output bytes",
            passwords.len(),
            out.len()
        );
        // Keying and `U_1` run on a one-stream kernel: the portable one
        // for the portable backend (the oracle stays portable throughout),
        // else the fastest.
        let backend = match self.kernel {
            Kernel::Portable => crate::sha1::Backend::Portable,
            #[cfg(fastcrypt_x86)]
            _ => crate::sha1::Backend::auto().0,
        };
        let mut chains = Chains {
            passwords,
            salt,
            key_len,
            blocks: key_len.div_ceil(DIGEST_LEN),
            next: 0,
            backend,
            keyed: None,
        };
        let all = chains.left();
        match self.kernel {
            Kernel::Portable => {
                let one = backend.kernel().expect("the portable backend always runs");
                run::<1, _>(one, &mut chains, all, iterations, out);
            }
            #[cfg(fastcrypt_x86)]
            Kernel::Shani(t) => shani(t, &mut chains, iterations, out),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx2(t) => lanes::<8, _>(t, HAND_OFF_8, &mut chains, iterations, out),
            #[cfg(fastcrypt_x86)]
            Kernel::Avx512(t) => lanes::<16, _>(t, HAND_OFF_16, &mut chains, iterations, out),
        }
        Ok(())
    }
}

/// How many chains left over by full lane groups go to SHA-NI instead of
/// one more group of mostly spare lanes (see [`lanes`]). SHA-NI's speed
/// relative to the lanes differs between CPUs, so only one or two
/// chains move. Measured on an AMD EPYC Zen 4 (4096 iterations): a group
/// of 16 AVX-512 lanes takes 1.05 ms, of 8 AVX2 lanes 0.95-1.15 ms, one
/// SHA-NI chain 0.28 ms, two 0.31 ms and more about 0.15 ms each (what
/// the SHA unit issues). On the Intel Xeon of BENCHMARKS.md two chains
/// take 1.85 times as long as one (one nearly fills its SHA unit), and
/// its full-width AVX-512 units make a group relatively cheaper, so three
/// chains there would cost more than a group.
#[cfg(fastcrypt_x86)]
const HAND_OFF_8: usize = 2;
#[cfg(fastcrypt_x86)]
const HAND_OFF_16: usize = 2;

/// PBKDF2-HMAC-SHA1 of each password with one salt and iteration count,
/// on the fastest backend (see [`Sha1Many::pbkdf2_hmac_sha1`]).
///
/// ```
/// let keys = fastcrypt::sha1::many::pbkdf2_hmac_sha1_many(&["a", "b"], b"salt", 2, 20).unwrap();
/// let mut a = [0u8; 20];
/// fastcrypt::sha1::pbkdf2_hmac_sha1(b"a", b"salt", 2, &mut a).unwrap();
/// assert_eq!(keys[0], a);
/// ```
pub fn pbkdf2_hmac_sha1_many<P: AsRef<[u8]>>(
    passwords: &[P],
    salt: &[u8],
    iterations: u32,
    key_len: usize,
) -> Result<Vec<Vec<u8>>, Pbkdf2Error> {
    Sha1Many::new().pbkdf2_hmac_sha1(passwords, salt, iterations, key_len)
}

#[cfg(test)]
mod tests {
    use super::Sha1Many;

    // The documented panic (the test suite's harness would print its
    // backtrace; libtest's `should_panic` keeps it quiet).

    #[test]
    #[should_panic(expected = "2 passwords of 20-byte keys but 30 output bytes")]
    fn into_wrong_length() {
        let _ = Sha1Many::new().pbkdf2_hmac_sha1_into(&["a", "b"], b"salt", 1, 20, &mut [0; 30]);
    }
}
