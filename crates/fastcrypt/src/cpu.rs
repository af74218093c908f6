//! CPU feature detection: done once, cached, and turned into proof tokens.
//!
//! Every SIMD kernel in this crate takes a zero-sized token as its first
//! argument. A token can only be obtained from this module, and only when
//! the features the kernel emits are present (and, for 256- and 512-bit
//! registers, saved by the operating system). So holding a token is the
//! proof that calling the kernel's `#[target_feature]` entry point is
//! sound; the `// SAFETY:` comment at each call names the token.
//!
//! Everything that proof rests on is in this file, each fact once:
//!
//! - `features!` is the one table of features: a row gives the field
//!   (named as `/proc/cpuinfo` names the flag, `flag!` spelling the two
//!   exceptions), the CPUID bit (or XCR0 mask) it is read from and the
//!   register state the OS must save for it. The struct, the bit layout of
//!   the cache, [`Features::list`], [`FEATURES`] and detection are
//!   generated from it.
//! - `capability!` declares the unsafe traits that kernels take as
//!   bounds (`Clmul`: "PCLMULQDQ with SSSE3 and SSE4.1 may run"), each
//!   with the features it stands for.
//! - `token!` declares each token once with its features and the
//!   capabilities it grants; a compile-time assertion checks that the
//!   token's features include every feature of each capability, so a
//!   capability can never be granted on a wrong reading of the table. The
//!   token's feature list is also what its backends report as `needs`.
//!
//! Detection reads CPUID and XCR0 directly (with or without `std`): a
//! feature that needs AVX or AVX-512 register state counts only when the
//! OS saves that state. With `--cfg fastcrypt_backend="portable"` the
//! features are still detected and reported (so that tools can tell a CPU
//! that lacks a feature from a build that left its kernel out), but no
//! SIMD kernel and no token is compiled.

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use core::sync::atomic::{AtomicU32, Ordering};

/// XCR0 bits 1 and 2: the OS saves XMM and YMM state.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const XCR0_YMM: u64 = 0b110;
/// XCR0 bits 1, 2 and 5-7: XMM, YMM, opmask, and both halves of ZMM state.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const XCR0_ZMM: u64 = 0b1110_0110;

/// A feature's name: the field's own name except where Linux's
/// `/proc/cpuinfo` spells it otherwise (as a macro, so that `token!` can
/// `concat!` a token's list).
macro_rules! flag {
    (sse41) => {
        "sse4_1"
    };
    (sha) => {
        "sha_ni"
    };
    ($f:ident) => {
        stringify!($f)
    };
}

/// Declares every feature from one table. A row is
/// `field: source, os STATE;` (the name is `flag!(field)`) where the source is
/// `cpuid(LEAF, REG, BIT)` or `xcr0(STATE)`, and STATE is `none`, `ymm`
/// or `zmm` (the XCR0 bits the OS must have set for the feature to count).
/// A row whose source is `xcr0` is an OS-state row: it is not a CPU flag
/// and has no `/proc/cpuinfo` line.
macro_rules! features {
    ($(
        $(#[$doc:meta])*
        $field:ident : $src:ident($($arg:tt)*), os $os:ident;
    )+) => {
        /// The CPU features that fastcrypt's kernels care about, as detected
        /// at run time, named as Linux's `/proc/cpuinfo` names them where
        /// it does (see [`FEATURES`]).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Features {
            $( $(#[$doc])* pub $field: bool, )+
        }

        /// One row of the feature table: what [`Features::list`] reports
        /// and how it was detected.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct FeatureInfo {
            /// The name, as in `/proc/cpuinfo` for CPU flags.
            pub name: &'static str,
            /// `true` for rows that report which register state the OS
            /// saves (XCR0), not a CPU flag: they have no `/proc/cpuinfo`
            /// line.
            pub os_state: bool,
            /// Where it is read from, e.g. `CPUID.(7,0):EBX[29]`.
            pub source: &'static str,
            /// The register state the OS must save for it to count:
            /// `""`, `"ymm"` or `"zmm"`.
            pub needs_os: &'static str,
        }

        /// Every feature [`Features`] has, in [`Features::list`]'s order.
        pub const FEATURES: [FeatureInfo; Features::COUNT] = [$(
            FeatureInfo {
                name: flag!($field),
                os_state: features!(@is_os $src),
                source: features!(@source $src($($arg)*)),
                needs_os: features!(@os_name $os),
            },
        )+];

        /// Bit positions in the cached word: the table's order.
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        enum Bit { $($field,)+ }

        impl Features {
            /// How many features the table has.
            pub const COUNT: usize = [$(stringify!($field)),+].len();

            /// `(name, present)` for every feature, in the table's order
            /// (the names of [`FEATURES`]).
            pub fn list(&self) -> [(&'static str, bool); Features::COUNT] {
                [$((flag!($field), self.$field)),+]
            }

            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            fn from_bits(b: u32) -> Features {
                Features { $($field: b & (1 << Bit::$field as u32) != 0,)+ }
            }

            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            fn to_bits(self) -> u32 {
                0 $(| (u32::from(self.$field) << Bit::$field as u32))+
            }

            /// Reads every row from CPUID and XCR0.
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            fn detect() -> Features {
                let id = raw::Ids::read();
                Features {$(
                    $field: features!(@read id, $src($($arg)*))
                        && id.os_saves(features!(@os_mask $os)),
                )+}
            }
        }

        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        const _: () = assert!(Features::COUNT < 31, "bit 31 of the cache marks it filled");
    };
    (@is_os cpuid) => { false };
    (@is_os xcr0) => { true };
    (@source cpuid($leaf:literal, $reg:ident, $bit:literal)) => {
        concat!("CPUID.(", $leaf, ",0):", stringify!($reg), "[", $bit, "]")
    };
    (@source xcr0(ymm)) => { "XCR0[1,2]" };
    (@source xcr0(zmm)) => { "XCR0[1,2,5,6,7]" };
    (@os_name none) => { "" };
    (@os_name ymm) => { "ymm" };
    (@os_name zmm) => { "zmm" };
    (@os_mask none) => { 0 };
    (@os_mask ymm) => { XCR0_YMM };
    (@os_mask zmm) => { XCR0_ZMM };
    (@read $id:ident, cpuid(1, $reg:ident, $bit:literal)) => { $id.leaf1.$reg & (1 << $bit) != 0 };
    (@read $id:ident, cpuid(7, $reg:ident, $bit:literal)) => { $id.leaf7.$reg & (1 << $bit) != 0 };
    (@read $id:ident, xcr0($os:ident)) => { $id.os_saves(features!(@os_mask $os)) };
}

features! {
    /// SSE2 (baseline on x86-64).
    sse2: cpuid(1, EDX, 26), os none;
    /// SSSE3 (`pshufb`, `palignr`).
    ssse3: cpuid(1, ECX, 9), os none;
    /// SSE4.1 (`pinsrb`, `pblendw`).
    sse41: cpuid(1, ECX, 19), os none;
    /// AVX, with YMM state saved by the OS.
    avx: cpuid(1, ECX, 28), os ymm;
    /// AVX2, with YMM state saved by the OS.
    avx2: cpuid(7, EBX, 5), os ymm;
    /// BMI1 (`andn`).
    bmi1: cpuid(7, EBX, 3), os none;
    /// BMI2 (`rorx`, `shlx`).
    bmi2: cpuid(7, EBX, 8), os none;
    /// SHA extensions (`sha1rnds4`, ...).
    sha: cpuid(7, EBX, 29), os none;
    /// AES-NI.
    aes: cpuid(1, ECX, 25), os none;
    /// PCLMULQDQ (128-bit carry-less multiply).
    pclmulqdq: cpuid(1, ECX, 1), os none;
    /// VAES, with YMM state saved by the OS (on 256-bit registers it needs
    /// AVX2, not AVX-512; on 512-bit registers, also `avx512f` and ZMM
    /// state).
    vaes: cpuid(7, ECX, 9), os ymm;
    /// VPCLMULQDQ, with YMM state saved by the OS (as for `vaes`).
    vpclmulqdq: cpuid(7, ECX, 10), os ymm;
    /// The OS saves XMM and YMM state (XCR0 bits 1 and 2).
    os_ymm: xcr0(ymm), os none;
    /// AVX-512 Foundation, with opmask and ZMM state saved by the OS.
    avx512f: cpuid(7, EBX, 16), os zmm;
    /// AVX-512 byte and word instructions (ZMM state saved by the OS).
    avx512bw: cpuid(7, EBX, 30), os zmm;
    /// AVX-512 vector-length extensions: EVEX encodings on xmm and ymm
    /// (ZMM state saved by the OS).
    avx512vl: cpuid(7, EBX, 31), os zmm;
    /// Galois-field instructions (`gf2p8affineqb`, ...).
    gfni: cpuid(7, ECX, 8), os none;
    /// The OS saves opmask and both halves of ZMM state as well (XCR0 bits
    /// 1, 2, 5, 6 and 7).
    os_zmm: xcr0(zmm), os none;
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
    let bits = Features::detect().to_bits();
    CACHE.store(bits | FILLED, Ordering::Relaxed);
    bits
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod raw {
    #[cfg(target_arch = "x86")]
    pub use core::arch::x86::{__cpuid, __cpuid_count, _xgetbv, CpuidResult};
    #[cfg(target_arch = "x86_64")]
    pub use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv, CpuidResult};

    // CPUID exists on every CPU Rust's x86 targets support (i586 and
    // later), which is why core::arch makes these safe functions.
    pub fn cpuid(leaf: u32, sub: u32) -> CpuidResult {
        __cpuid_count(leaf, sub)
    }

    pub fn max_leaf(base: u32) -> u32 {
        __cpuid(base).eax
    }

    /// The CPUID leaves the feature table reads, and XCR0.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[allow(non_snake_case)]
    pub struct Regs {
        pub EBX: u32,
        pub ECX: u32,
        pub EDX: u32,
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    pub struct Ids {
        pub leaf1: Regs,
        pub leaf7: Regs,
        pub xcr0: u64,
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    impl Ids {
        pub fn read() -> Ids {
            let regs = |r: CpuidResult| Regs {
                EBX: r.ebx,
                ECX: r.ecx,
                EDX: r.edx,
            };
            let max = max_leaf(0);
            let zero = Regs {
                EBX: 0,
                ECX: 0,
                EDX: 0,
            };
            Ids {
                leaf1: if max >= 1 { regs(cpuid(1, 0)) } else { zero },
                leaf7: if max >= 7 {
                    regs(cpuid(7, 0))
                } else {
                    Regs {
                        EBX: 0,
                        ECX: 0,
                        EDX: 0,
                    }
                },
                xcr0: super::xcr0().unwrap_or(0),
            }
        }

        /// Whether the OS saves every register state in `mask`.
        pub fn os_saves(&self, mask: u64) -> bool {
            self.xcr0 & mask == mask
        }
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

/// Declares capabilities: unsafe traits that kernel helpers take as
/// bounds, each standing for a set of features (its supertraits' included).
/// Only `token!` implements them, after checking the features at compile
/// time.
macro_rules! capability {
    ($(
        $(#[$m:meta])*
        $name:ident $(: $($sup:ident)&+)? => $($feat:ident)&+;
    )+) => {
        $(
            $(#[$m])*
            ///
            /// # Safety
            ///
            /// Implemented only by `token!` in `cpu.rs`, for tokens whose
            /// detection checks every feature in
            #[doc = concat!("`need::", stringify!($name), "` (asserted at compile time).")]
            #[cfg(fastcrypt_x86)]
            pub(crate) unsafe trait $name: Copy $($(+ $sup)+)? {}
        )+

        /// The features each capability stands for.
        #[cfg(fastcrypt_x86)]
        #[allow(non_upper_case_globals)]
        mod need {
            use super::Bit;
            $(
                pub(super) const $name: u32 = 0 $($(| $sup)+)? $(| 1 << Bit::$feat as u32)+;
            )+
        }
    };
}

capability! {
    /// AES-NI with SSE2: the key schedule and the 128-bit AES rounds.
    AesToken => aes & sse2;
    /// PCLMULQDQ with SSE2, SSSE3 and SSE4.1: every 128-bit GHASH helper.
    Clmul => pclmulqdq & sse2 & ssse3 & sse41;
    /// VPCLMULQDQ and AVX2 on 256-bit registers, OS-saved YMM state.
    Vclmul: Clmul => vpclmulqdq & avx & avx2 & os_ymm;
    /// What the 128-bit AES-GCM bodies emit: AES-NI, PCLMULQDQ, SSSE3 and
    /// SSE4.1.
    GcmToken: AesToken & Clmul => aes;
    /// VPCLMULQDQ on 512-bit registers: AVX-512 F (zmm), BW (byte masks
    /// and `vpshufb`), VL (masked and ternary-logic forms on xmm/ymm),
    /// with OS-saved opmask and ZMM state.
    Vclmul512: Vclmul => avx512f & avx512bw & avx512vl & os_zmm;
}

/// Declares a zero-sized proof token for a set of features, and the
/// capabilities it grants. The only way to get one is `get()`, which
/// returns `None` unless every feature is present.
macro_rules! token {
    ($(#[doc = $d:literal])* $name:ident: $($rest:tt)*) => {
        token!(@cfg fastcrypt_x86, ""; $(#[doc = $d])* $name: $($rest)*);
    };
    (
        @cfg $cfg:meta, $prefix:literal;
        $(#[doc = $d:literal])*
        $name:ident: $first:ident $(& $feat:ident)* $(=> $($cap:ident),+)?
    ) => {
        $(#[doc = $d])*
        // The type exists in every build so that `NEEDS` can name what the
        // backend lacks; it is constructed only where `$cfg` holds.
        #[derive(Clone, Copy, Debug)]
        #[cfg_attr(not($cfg), allow(dead_code))]
        pub(crate) struct $name {
            _private: (),
        }

        #[cfg_attr(not($cfg), allow(dead_code))]
        impl $name {
            /// What the token stands for, as `/proc/cpuinfo` names: what a
            /// backend built on it reports as `needs`.
            pub(crate) const NEEDS: &'static str =
                concat!($prefix, flag!($first) $(, ", ", flag!($feat))*);
        }

        #[cfg($cfg)]
        impl $name {
            /// The features this token proves.
            const MASK: u32 = 1 << Bit::$first as u32 $(| 1 << Bit::$feat as u32)*;

            /// The token, if this CPU has every feature it stands for.
            #[inline]
            pub(crate) fn get() -> Option<Self> {
                // One load and one compare: constructors call this per object.
                (cached_bits() & Self::MASK == Self::MASK).then_some($name { _private: () })
            }
        }

        $($(
            // SAFETY: the token exists only when its MASK is detected, and
            // the assertion below proves MASK covers the capability.
            #[cfg($cfg)]
            unsafe impl $cap for $name {}
            #[cfg($cfg)]
            const _: () = assert!(
                $name::MASK & need::$cap == need::$cap,
                concat!(stringify!($name), " lacks a feature of ", stringify!($cap))
            );
        )+)?
    };
}

token!(
    @cfg fastcrypt_x86_64, "x86-64 (64-bit mode), ";
    /// SSE4.1 (with SSE2) in 64-bit mode: the RC4 x86-64 kernel, integer
    /// code in `asm!` that gathers its keystream bytes with `pinsrb`.
    Sse41Token: sse41 & sse2
);
token!(
    /// SSE2 alone, the x86 baseline every x86-64 CPU has: the RC4 kernel
    /// for 32-bit x86 and the GHASH kernel for CPUs without carry-less
    /// multiplication.
    Sse2Token: sse2
);
token!(
    /// SSSE3 (with SSE2): the SHA-1 SSSE3 message-schedule kernel.
    Ssse3Token: ssse3 & sse2
);
token!(
    /// AVX2 + BMI1 + BMI2 with OS-saved YMM state (and SSSE3 and SSE2,
    /// which the kernel's functions enable too): the SHA-1 AVX2 kernel.
    Avx2Token: avx2 & bmi1 & bmi2 & avx & ssse3 & sse2 & os_ymm
);
token!(
    /// AVX2 with OS-saved YMM state, and nothing else: the GHASH kernel
    /// for CPUs without carry-less multiplication, on 256-bit byte
    /// shuffles (`vpshufb`), and the 8-lane multi-buffer SHA-1 kernel.
    Avx2MulToken: avx2 & avx & sse2 & os_ymm
);
token!(
    /// AVX-512 F, BW and VL with OS-saved opmask and ZMM state: the
    /// 16-lane multi-buffer SHA-1 kernel (`vprold`, `vpternlogd`, and
    /// `vpshufb` on zmm for the byte swap), and the EVEX form of the
    /// SHA-NI collision-detection kernel (VL: `vpternlogd` on xmm).
    Avx512Token: avx512f & avx512bw & avx512vl & avx2 & avx & sse2 & os_ymm & os_zmm
);
token!(
    /// SHA extensions with SSSE3 and SSE4.1: the SHA-NI kernel.
    ShaNiToken: sha & sse41 & ssse3 & sse2
);
token!(
    /// PCLMULQDQ with SSSE3 and SSE4.1: the 128-bit GHASH kernel.
    PclmulToken: pclmulqdq & sse41 & ssse3 & sse2 => Clmul
);
token!(
    /// VPCLMULQDQ on 256-bit registers: needs AVX2 and OS-saved YMM state
    /// (its 128-bit tails use the `Clmul` helpers).
    VpclmulToken: vpclmulqdq & avx2 & pclmulqdq & avx & sse41 & ssse3 & sse2 & os_ymm
        => Clmul, Vclmul
);
token!(
    /// AES-NI with PCLMULQDQ and SSSE3/SSE4.1: the 128-bit AES-GCM kernels.
    AesNiToken: aes & pclmulqdq & sse41 & ssse3 & sse2 => AesToken, Clmul, GcmToken
);
token!(
    /// VAES + VPCLMULQDQ on 256-bit registers with AVX2 and OS-saved YMM
    /// state (not AVX-512): the 256-bit AES-GCM kernels, whose tails use
    /// the 128-bit AES-NI code (hence SSSE3/SSE4.1).
    VaesToken: vaes & vpclmulqdq & avx2 & aes & pclmulqdq & avx & sse41 & ssse3 & sse2 & os_ymm
        => AesToken, Clmul, Vclmul, GcmToken
);
token!(
    /// VPCLMULQDQ on 512-bit registers with AVX-512 F/BW/VL and OS-saved
    /// opmask and ZMM state: the zmm GHASH kernel (four blocks per
    /// instruction, masked tails).
    Vpclmul512Token: vpclmulqdq & avx512f & avx512bw & avx512vl & avx2 & pclmulqdq & avx & sse41
        & ssse3 & sse2 & os_ymm & os_zmm
        => Clmul, Vclmul, Vclmul512
);
token!(
    /// VAES + VPCLMULQDQ on 512-bit registers with AVX-512 F/BW/VL and
    /// OS-saved opmask and ZMM state: the zmm AES-GCM kernel (four blocks
    /// per instruction, masked tails).
    Vaes512Token: vaes & vpclmulqdq & avx512f & avx512bw & avx512vl & avx2 & aes & pclmulqdq & avx
        & sse41 & ssse3 & sse2 & os_ymm & os_zmm
        => AesToken, Clmul, Vclmul, Vclmul512, GcmToken
);

#[cfg(fastcrypt_x86)]
impl Vaes512Token {
    /// The 256-bit AES-GCM kernel's token: this one proves every feature
    /// it stands for (checked at compile time).
    #[inline]
    pub(crate) fn ymm(self) -> VaesToken {
        const _: () = assert!(Vaes512Token::MASK & VaesToken::MASK == VaesToken::MASK);
        VaesToken { _private: () }
    }
}

/// Whether the CPU is an Intel one (CPUID leaf 0 reads `GenuineIntel`),
/// read once and cached. A tuning hint that picks between equivalent code
/// paths, never a proof of what may run.
#[cfg(fastcrypt_x86)]
pub(crate) fn is_intel() -> bool {
    // 0: not read yet, 1: Intel, 2: another vendor.
    static VENDOR: AtomicU32 = AtomicU32::new(0);
    match VENDOR.load(Ordering::Relaxed) {
        0 => {
            let r = raw::cpuid(0, 0);
            // "Genu" "ineI" "ntel" in EBX, EDX, ECX.
            let intel = (r.ebx, r.edx, r.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e);
            VENDOR.store(if intel { 1 } else { 2 }, Ordering::Relaxed);
            intel
        }
        v => v == 1,
    }
}

#[cfg(fastcrypt_x86)]
impl ShaNiToken {
    /// Whether `sha1msg2` is slow enough here that the SHA-NI kernels
    /// compute schedule words 32..79 with SSE2 instead (see
    /// `sha1::x86_shani::group`). Measured on an Intel Xeon (family 6,
    /// model 207, Emerald Rapids), chains of one instruction: `sha1msg2`
    /// has a latency of ~7 cycles and issues once per ~5.7 (microcoded),
    /// `sha1rnds4` ~4 and ~3, and a `sha1msg2` beside a `sha1rnds4` chain
    /// slows the chain to ~7 cycles a step. With the SSE2 words one
    /// stream ran 1.14x faster (8 KiB, median of 301 paired rounds), three
    /// interleaved chains (`sha1::many`, 64 x 8 KiB) 1.32x, PBKDF2's
    /// chains 1.3x, collision detection 1.1x. AMD's cores issue `sha1msg2` every cycle or two;
    /// there the kernels keep it, as measured on Zen 3 to Zen 5. Intel's
    /// other cores with SHA-NI are not measured and take Intel's path.
    #[inline]
    pub(crate) fn slow_msg2(self) -> bool {
        is_intel()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_value_is_stable() {
        assert_eq!(Features::get(), Features::get());
    }

    #[test]
    fn table_names_are_unique() {
        for (i, a) in FEATURES.iter().enumerate() {
            assert!(
                FEATURES[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
        }
    }

    /// Every row agrees with std's detector where std knows the feature
    /// (std, too, counts AVX and AVX-512 only with the OS's register
    /// state).
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "std"))]
    #[test]
    fn agrees_with_std() {
        extern crate std;
        use std::is_x86_feature_detected as has;
        let f = Features::get();
        let x = xcr0().unwrap_or(0);
        assert_eq!(f.os_ymm, x & XCR0_YMM == XCR0_YMM);
        assert_eq!(f.os_zmm, x & XCR0_ZMM == XCR0_ZMM);
        let pairs = [
            (f.sse2, has!("sse2")),
            (f.ssse3, has!("ssse3")),
            (f.sse41, has!("sse4.1")),
            (f.avx, has!("avx")),
            (f.avx2, has!("avx2")),
            (f.bmi1, has!("bmi1")),
            (f.bmi2, has!("bmi2")),
            (f.sha, has!("sha")),
            (f.aes, has!("aes")),
            (f.pclmulqdq, has!("pclmulqdq")),
            (f.avx512f, has!("avx512f")),
            (f.avx512bw, has!("avx512bw")),
            (f.avx512vl, has!("avx512vl")),
        ];
        for ((name, _), (ours, std)) in f.list().iter().zip(pairs) {
            assert_eq!(ours, std, "{name}");
        }
        // std's vaes/vpclmulqdq/gfni may also demand AVX-512 state; ours
        // demand YMM state only (a 256-bit kernel needs no more).
        if f.os_zmm {
            assert_eq!(f.vaes, has!("vaes"));
            assert_eq!(f.vpclmulqdq, has!("vpclmulqdq"));
        }
        if f.vaes || f.vpclmulqdq {
            assert!(f.os_ymm);
        }
    }
}
