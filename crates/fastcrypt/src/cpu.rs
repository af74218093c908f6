//! CPU feature detection: done once, cached, and turned into proof tokens.
//!
//! Every SIMD kernel in this crate takes a zero-sized token as its first
//! argument. A token can only be obtained from this module, and only when
//! the features the kernel emits are present (and, for 256-bit registers,
//! saved by the operating system). So holding a token is the proof that
//! calling the kernel's `#[target_feature]` entry point is sound; the
//! `// SAFETY:` comment at each call names the token.
//!
//! Detection needs the `std` feature (it uses `is_x86_feature_detected!`).
//! Without `std`, only features enabled at compile time (`-C
//! target-feature=...`) count. With `--cfg fastcrypt_backend="portable"` no
//! SIMD feature is ever reported and no SIMD kernel is compiled.

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use core::sync::atomic::{AtomicU32, Ordering};

/// The CPU features that fastcrypt's kernels care about, as detected at run
/// time (see the module docs for builds without `std`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Features {
    /// SSE2 (baseline on x86-64).
    pub sse2: bool,
    /// SSSE3 (`pshufb`, `palignr`).
    pub ssse3: bool,
    /// SSE4.1.
    pub sse41: bool,
    /// AVX with YMM state saved by the OS.
    pub avx: bool,
    /// AVX2 with YMM state saved by the OS.
    pub avx2: bool,
    /// BMI1 (`andn`).
    pub bmi1: bool,
    /// BMI2 (`rorx`, `shlx`).
    pub bmi2: bool,
    /// SHA extensions (`sha1rnds4`, ...).
    pub sha: bool,
    /// AES-NI.
    pub aes: bool,
    /// PCLMULQDQ (128-bit carry-less multiply).
    pub pclmulqdq: bool,
    /// VAES usable on 256-bit registers (needs AVX2 and OS-saved YMM state;
    /// AVX-512 is *not* required).
    pub vaes: bool,
    /// VPCLMULQDQ usable on 256-bit registers (needs AVX2 and OS-saved YMM
    /// state; AVX-512 is *not* required).
    pub vpclmulqdq: bool,
    /// The OS saves XMM and YMM state (XCR0 bits 1 and 2).
    pub os_ymm: bool,
}

impl Features {
    /// The features of this CPU, detected on first call and cached.
    pub fn get() -> Features {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            Features::from_bits(cached_bits())
        }
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        {
            Features::default()
        }
    }

    /// `(name, present)` for every feature, in a fixed order, using the
    /// names of Linux's `/proc/cpuinfo` where one exists.
    pub fn list(&self) -> [(&'static str, bool); 13] {
        [
            ("sse2", self.sse2),
            ("ssse3", self.ssse3),
            ("sse4_1", self.sse41),
            ("avx", self.avx),
            ("avx2", self.avx2),
            ("bmi1", self.bmi1),
            ("bmi2", self.bmi2),
            ("sha_ni", self.sha),
            ("aes", self.aes),
            ("pclmulqdq", self.pclmulqdq),
            ("vaes", self.vaes),
            ("vpclmulqdq", self.vpclmulqdq),
            ("os_ymm", self.os_ymm),
        ]
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    fn from_bits(b: u32) -> Features {
        let bit = |n: u32| b & (1 << n) != 0;
        Features {
            sse2: bit(0),
            ssse3: bit(1),
            sse41: bit(2),
            avx: bit(3),
            avx2: bit(4),
            bmi1: bit(5),
            bmi2: bit(6),
            sha: bit(7),
            aes: bit(8),
            pclmulqdq: bit(9),
            vaes: bit(10),
            vpclmulqdq: bit(11),
            os_ymm: bit(12),
        }
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    fn to_bits(self) -> u32 {
        [
            self.sse2,
            self.ssse3,
            self.sse41,
            self.avx,
            self.avx2,
            self.bmi1,
            self.bmi2,
            self.sha,
            self.aes,
            self.pclmulqdq,
            self.vaes,
            self.vpclmulqdq,
            self.os_ymm,
        ]
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &on)| acc | ((on as u32) << i))
    }
}

/// Bit positions of each feature in the cached word (`Features::to_bits`).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[allow(non_upper_case_globals, dead_code)]
mod bit {
    pub const sse2: u32 = 1 << 0;
    pub const ssse3: u32 = 1 << 1;
    pub const sse41: u32 = 1 << 2;
    pub const avx: u32 = 1 << 3;
    pub const avx2: u32 = 1 << 4;
    pub const bmi1: u32 = 1 << 5;
    pub const bmi2: u32 = 1 << 6;
    pub const sha: u32 = 1 << 7;
    pub const aes: u32 = 1 << 8;
    pub const pclmulqdq: u32 = 1 << 9;
    pub const vaes: u32 = 1 << 10;
    pub const vpclmulqdq: u32 = 1 << 11;
    pub const os_ymm: u32 = 1 << 12;
}

/// Bit 31 marks the cache as filled; the low bits are `Features::to_bits`.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
static CACHE: AtomicU32 = AtomicU32::new(0);
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const FILLED: u32 = 1 << 31;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[inline]
fn cached_bits() -> u32 {
    let v = CACHE.load(Ordering::Relaxed);
    if v & FILLED != 0 {
        return v & !FILLED;
    }
    // Racing threads compute the same value; whichever store wins is right.
    let bits = detect().to_bits();
    CACHE.store(bits | FILLED, Ordering::Relaxed);
    bits
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    fastcrypt_backend = "portable"
))]
fn detect() -> Features {
    Features::default()
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    feature = "std",
    not(fastcrypt_backend = "portable")
))]
fn detect() -> Features {
    extern crate std;
    use std::is_x86_feature_detected as has;
    // std reports avx/avx2 only when the OS saves YMM state; we check XCR0
    // ourselves as well so that vaes/vpclmulqdq never depend on how std
    // (or any other detector) treats AVX-512 state: on Zen 3, XCR0 = 0x7.
    let os_ymm = xcr0().is_some_and(|x| x & 0b110 == 0b110);
    let avx2 = has!("avx2") && os_ymm;
    Features {
        sse2: has!("sse2"),
        ssse3: has!("ssse3"),
        sse41: has!("sse4.1"),
        avx: has!("avx") && os_ymm,
        avx2,
        bmi1: has!("bmi1"),
        bmi2: has!("bmi2"),
        sha: has!("sha"),
        aes: has!("aes"),
        pclmulqdq: has!("pclmulqdq"),
        vaes: avx2 && cpuid_leaf7_ecx() & (1 << 9) != 0,
        vpclmulqdq: avx2 && cpuid_leaf7_ecx() & (1 << 10) != 0,
        os_ymm,
    }
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    not(feature = "std"),
    not(fastcrypt_backend = "portable")
))]
fn detect() -> Features {
    Features {
        sse2: cfg!(target_feature = "sse2"),
        ssse3: cfg!(target_feature = "ssse3"),
        sse41: cfg!(target_feature = "sse4.1"),
        avx: cfg!(target_feature = "avx"),
        avx2: cfg!(target_feature = "avx2"),
        bmi1: cfg!(target_feature = "bmi1"),
        bmi2: cfg!(target_feature = "bmi2"),
        sha: cfg!(target_feature = "sha"),
        aes: cfg!(target_feature = "aes"),
        pclmulqdq: cfg!(target_feature = "pclmulqdq"),
        vaes: cfg!(target_feature = "vaes") && cfg!(target_feature = "avx2"),
        vpclmulqdq: cfg!(target_feature = "vpclmulqdq") && cfg!(target_feature = "avx2"),
        os_ymm: cfg!(target_feature = "avx"),
    }
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod raw {
    #[cfg(target_arch = "x86")]
    pub use core::arch::x86::{__cpuid, __cpuid_count, _xgetbv, CpuidResult};
    #[cfg(target_arch = "x86_64")]
    pub use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv, CpuidResult};

    #[allow(unused_unsafe)]
    pub fn cpuid(leaf: u32, sub: u32) -> CpuidResult {
        // SAFETY: CPUID exists on every x86-64 CPU and on every 32-bit x86
        // CPU Rust's x86 targets support (i586 and later).
        unsafe { __cpuid_count(leaf, sub) }
    }

    #[allow(unused_unsafe)]
    pub fn max_leaf(base: u32) -> u32 {
        // SAFETY: as in `cpuid`.
        unsafe { __cpuid(base) }.eax
    }

    /// Reads XCR0. Only called after CPUID.1:ECX.OSXSAVE[bit 27] said the
    /// OS enabled XSAVE, which is what makes XGETBV legal.
    #[target_feature(enable = "xsave")]
    pub unsafe fn xgetbv0() -> u64 {
        // SAFETY: the caller checked OSXSAVE (see the function docs).
        unsafe { _xgetbv(0) }
    }
}

/// The value of XCR0 (which register states the OS saves), or `None` when
/// the OS has not enabled XSAVE.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub fn xcr0() -> Option<u64> {
    let osxsave = raw::cpuid(1, 0).ecx & (1 << 27) != 0;
    if !osxsave {
        return None;
    }
    // SAFETY: OSXSAVE is set, so XGETBV with ECX = 0 does not fault.
    Some(unsafe { raw::xgetbv0() })
}

/// The value of XCR0 (which register states the OS saves); never available
/// off x86.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub fn xcr0() -> Option<u64> {
    None
}

#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    feature = "std",
    not(fastcrypt_backend = "portable")
))]
fn cpuid_leaf7_ecx() -> u32 {
    if raw::max_leaf(0) < 7 {
        return 0;
    }
    raw::cpuid(7, 0).ecx
}

/// The CPU's brand string (for example `AMD EPYC 7B13 64-Core Processor`),
/// when the CPU reports one.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub fn model() -> Option<alloc::string::String> {
    if raw::max_leaf(0x8000_0000) < 0x8000_0004 {
        return None;
    }
    let mut bytes = alloc::vec::Vec::with_capacity(48);
    for leaf in 0x8000_0002..=0x8000_0004u32 {
        let r = raw::cpuid(leaf, 0);
        for reg in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&reg.to_le_bytes());
        }
    }
    let s = alloc::string::String::from_utf8_lossy(&bytes);
    let s = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    (!s.is_empty()).then(|| s.into())
}

/// The CPU's brand string; `None` off x86 (the CLI falls back to the OS).
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub fn model() -> Option<alloc::string::String> {
    None
}

/// Declares a zero-sized proof token for a set of features. The only way to
/// get one is `get()`, which returns `None` unless every feature is present.
macro_rules! token {
    ($(#[$m:meta])* $name:ident: $($feat:ident)&+) => {
        $(#[$m])*
        #[cfg(fastcrypt_x86)]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name {
            _private: (),
        }

        #[cfg(fastcrypt_x86)]
        #[allow(dead_code)]
        impl $name {
            /// The token, if this CPU has every feature it stands for.
            #[inline]
            pub(crate) fn get() -> Option<Self> {
                // One load and one compare: constructors call this per object.
                const MASK: u32 = 0 $(| bit::$feat)+;
                (cached_bits() & MASK == MASK).then_some($name { _private: () })
            }
        }
    };
}

token!(
    /// SSE4.1 (with SSE2): the RC4 x86-64 kernel, integer code in `asm!`
    /// that gathers its keystream bytes with `pinsrb`.
    X86_64Token: sse2 & sse41
);
token!(
    /// SSSE3 (with SSE2): the SHA-1 SSSE3 message-schedule kernel.
    Ssse3Token: sse2 & ssse3
);
token!(
    /// AVX2 + BMI1 + BMI2 with OS-saved YMM state: the SHA-1 AVX2 kernel.
    Avx2Token: avx & avx2 & bmi1 & bmi2 & os_ymm
);
token!(
    /// SHA extensions with SSSE3 and SSE4.1: the SHA-NI kernel.
    ShaNiToken: sha & ssse3 & sse41
);
token!(
    /// PCLMULQDQ with SSSE3 and SSE4.1: the 128-bit GHASH kernel.
    PclmulToken: pclmulqdq & ssse3 & sse41
);
token!(
    /// VPCLMULQDQ on 256-bit registers: needs AVX2 and OS-saved YMM state.
    VpclmulToken: vpclmulqdq & pclmulqdq & avx & avx2 & os_ymm
);
token!(
    /// AES-NI with PCLMULQDQ and SSSE3/SSE4.1: the 128-bit AES-GCM kernels.
    AesNiToken: aes & pclmulqdq & ssse3 & sse41
);
token!(
    /// VAES + VPCLMULQDQ on 256-bit registers with AVX2 and OS-saved YMM
    /// state (not AVX-512): the 256-bit AES-GCM kernels, whose tails use
    /// the 128-bit AES-NI code (hence SSSE3/SSE4.1).
    VaesToken: vaes & vpclmulqdq & aes & pclmulqdq & ssse3 & sse41 & avx & avx2 & os_ymm
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_value_is_stable() {
        assert_eq!(Features::get(), Features::get());
    }

    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        feature = "std",
        not(fastcrypt_backend = "portable")
    ))]
    #[test]
    fn wide_features_need_only_ymm_state() {
        extern crate std;
        let f = Features::get();
        let x = xcr0().unwrap_or(0);
        // The 256-bit kernels need YMM state, never AVX-512 state (XCR0 bits 5-7).
        assert_eq!(f.os_ymm, x & 0b110 == 0b110);
        if f.os_ymm && f.avx2 {
            assert_eq!(f.vaes, std::is_x86_feature_detected!("vaes"));
            assert_eq!(f.vpclmulqdq, std::is_x86_feature_detected!("vpclmulqdq"));
        }
        if f.vaes || f.vpclmulqdq {
            assert!(f.avx2 && f.os_ymm);
        }
    }
}
