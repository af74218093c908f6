//! Drop-in check: ordinary RustCrypto programs, built twice.
//!
//! Each file under `src/programs/` is code written the way users of
//! RustCrypto's `sha1`, `hmac`, `aes-gcm`, `ghash` and `rc4` crates write
//! it. It names its crate through one alias, `lib`. [`program!`] compiles
//! the file twice: once with `use sha1 as lib;` (RustCrypto) and once with
//! `use fastcrypt::sha1 as lib;` (fastcrypt), so that the only difference
//! between the two builds is that one `use` line. `tests/agree.rs` runs
//! both on random inputs and requires identical output.
//!
//! What does not carry over, and why, is listed in the README's RustCrypto
//! section; nothing here papers over it.

/// `program!(name: "file", rustcrypto_crate, fastcrypt_module)` builds
/// `name::rustcrypto` and `name::fastcrypt` from the same file.
macro_rules! program {
    ($name:ident: $file:literal, $($rc:ident)::+, $($fc:ident)::+) => {
        #[doc = concat!("`", $file, "`, built against both libraries.")]
        pub mod $name {
            /// Built against RustCrypto's crate.
            pub mod rustcrypto {
                #[allow(unused_imports)]
                use ::$($rc)::+ as lib;
                include!($file);
            }
            /// Built against fastcrypt: only the `use` line differs.
            pub mod fastcrypt {
                #[allow(unused_imports)]
                use ::$($fc)::+ as lib;
                include!($file);
            }
        }
    };
}

program!(sha1: "programs/sha1.rs", sha1, fastcrypt::sha1);
program!(hmac_sha1: "programs/hmac_sha1.rs", sha1, fastcrypt::sha1);
program!(aes_gcm: "programs/aes_gcm.rs", aes_gcm, fastcrypt::aes_gcm);
program!(ghash: "programs/ghash.rs", ghash, fastcrypt::ghash);
program!(rc4: "programs/rc4.rs", rc4, fastcrypt::rc4);
