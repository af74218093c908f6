//! `fastcrypt cpu`, run as a user would.
#![allow(missing_docs)]

use std::process::Command;

fn fastcrypt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fastcrypt"))
        .args(args)
        .output()
        .expect("run fastcrypt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every backend of a primitive has a row whose status agrees with the
/// library, and exactly one is the default.
macro_rules! check_rows {
    ($out:expr, $prim:literal, $backend:ty) => {
        for b in <$backend>::ALL {
            let row = $out
                .lines()
                .find(|l| l.split_whitespace().take(2).eq([$prim, b.name()]))
                .unwrap_or_else(|| panic!("no row for {}/{b}:\n{}", $prim, $out));
            let status = row.split_whitespace().nth(2).unwrap();
            let want = if *b == <$backend>::fastest() {
                "default"
            } else if b.is_available() {
                "available"
            } else {
                "n/a"
            };
            assert_eq!(status, want, "{row}");
        }
        let prefix = concat!($prim, " ");
        let defaults = $out
            .lines()
            .filter(|l| l.starts_with(prefix) && l.contains(" default "))
            .count();
        assert_eq!(defaults, 1, "{}", $out);
    };
}

#[test]
fn cpu_lists_model_features_and_every_backend() {
    let (ok, out, err) = fastcrypt(&["cpu"]);
    assert!(ok, "stderr: {err}");
    assert!(out.starts_with("cpu:"), "{out}");
    assert!(out.contains("\nfeatures:"), "{out}");
    check_rows!(out, "sha1", fastcrypt::sha1::Backend);
    check_rows!(out, "rc4", fastcrypt::rc4::Backend);
    check_rows!(out, "ghash", fastcrypt::ghash::Backend);
    check_rows!(out, "aes-gcm", fastcrypt::aes_gcm::Backend);
}

#[test]
fn unknown_subcommand_fails_with_usage() {
    let (ok, _, err) = fastcrypt(&["frobnicate"]);
    assert!(!ok);
    assert!(err.contains("Usage") || err.contains("usage"), "{err}");
}
