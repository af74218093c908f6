//! The backend-choice pattern every primitive shares.
//!
//! Each primitive module declares its `Backend` enum with
//! [`define_backends!`]: the variants, their names (used by `Display`,
//! `FromStr` and the CLI) and the CPU features each one needs (used in
//! error messages and in `fastcrypt speed`'s `n/a (needs ...)` rows). The
//! module supplies a `probe(Backend) -> Option<Kernel>` function that turns
//! a backend into a kernel handle only when detection allows it; everything
//! else (`available`, `fastest`, `check`) is derived from it here, once.

use core::fmt;

/// A backend was requested that this CPU (or this build) cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The primitive, e.g. `"sha1"`.
    pub primitive: &'static str,
    /// The backend's name, e.g. `"shani"`.
    pub backend: &'static str,
    /// The CPU features it needs, e.g. `"sha_ni, sse4_1"`.
    pub needs: &'static str,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if cfg!(fastcrypt_backend = "portable") {
            write!(
                f,
                "{} backend `{}` is not compiled into this build (built with --cfg fastcrypt_backend=\"portable\")",
                self.primitive, self.backend
            )
        } else if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            write!(
                f,
                "{} backend `{}` is not available on this CPU (needs {})",
                self.primitive, self.backend, self.needs
            )
        } else {
            write!(
                f,
                "{} backend `{}` is not available on this architecture (needs x86 with {})",
                self.primitive, self.backend, self.needs
            )
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Unsupported {}

/// A backend name that the primitive does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBackend {
    /// The primitive, e.g. `"sha1"`.
    pub primitive: &'static str,
    /// The name that was given.
    pub name: alloc::string::String,
    /// Every valid name, in the primitive's order.
    pub valid: &'static [&'static str],
}

impl fmt::Display for UnknownBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} backend `{}` (valid: {})",
            self.primitive,
            self.name,
            self.valid.join(", ")
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownBackend {}

/// Declares a primitive's `Backend` enum. Variants are listed from slowest
/// to fastest on typical hardware: `fastest()` is the last available one.
/// The calling module must define `fn probe(Backend) -> Option<Kernel>`.
macro_rules! define_backends {
    (
        primitive: $prim:literal;
        $(
            $(#[$m:meta])*
            $var:ident => $name:literal, needs $needs:literal;
        )+
    ) => {
        #[doc = concat!("The ", $prim, " implementations fastcrypt has. Whether one can run is known only at run time: see [`Backend::available`].")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Backend {
            $( $(#[$m])* $var, )+
        }

        impl Backend {
            /// Every backend, runnable here or not, slowest first.
            pub const ALL: &'static [Backend] = &[$(Backend::$var),+];
            const NAMES: &'static [&'static str] = &[$($name),+];

            /// The backend's name: what `Display` prints and `FromStr` reads.
            pub const fn name(self) -> &'static str {
                match self { $(Backend::$var => $name,)+ }
            }

            /// The CPU features the backend needs (empty for portable code).
            pub const fn needs(self) -> &'static str {
                match self { $(Backend::$var => $needs,)+ }
            }

            /// The backends this CPU (and this build) can run, slowest first.
            pub fn available() -> alloc::vec::Vec<Backend> {
                Self::ALL.iter().copied().filter(|b| b.is_available()).collect()
            }

            /// Whether this CPU (and this build) can run the backend.
            pub fn is_available(self) -> bool {
                probe(self).is_some()
            }

            /// The backend that `new()` picks: the fastest available one.
            pub fn fastest() -> Backend {
                Self::ALL
                    .iter()
                    .rev()
                    .copied()
                    .find(|b| b.is_available())
                    .unwrap_or(Self::ALL[0])
            }

            #[allow(dead_code)]
            pub(crate) fn kernel(self) -> Result<Kernel, $crate::Unsupported> {
                probe(self).ok_or($crate::Unsupported {
                    primitive: $prim,
                    backend: self.name(),
                    needs: self.needs(),
                })
            }
        }

        impl core::fmt::Display for Backend {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.pad(self.name())
            }
        }

        impl core::str::FromStr for Backend {
            type Err = $crate::UnknownBackend;
            fn from_str(s: &str) -> Result<Backend, $crate::UnknownBackend> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|b| b.name().eq_ignore_ascii_case(s))
                    .ok_or_else(|| $crate::UnknownBackend {
                        primitive: $prim,
                        name: s.into(),
                        valid: Self::NAMES,
                    })
            }
        }
    };
}

/// Compiles the items only where x86 SIMD kernels exist: on x86 / x86-64,
/// unless the build asked for `--cfg fastcrypt_backend="portable"`.
macro_rules! cfg_x86 {
    ($($item:item)*) => {
        $(
            #[cfg(fastcrypt_x86)]
            $item
        )*
    };
}
