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

#[test]
fn cpu_lists_model_features_and_every_sha1_backend() {
    let (ok, out, err) = fastcrypt(&["cpu"]);
    assert!(ok, "stderr: {err}");
    assert!(out.starts_with("cpu:"), "{out}");
    assert!(out.contains("\nfeatures:"), "{out}");
    for b in fastcrypt::sha1::Backend::ALL {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().take(2).eq(["sha1", b.name()]))
            .unwrap_or_else(|| panic!("no row for sha1/{b}:\n{out}"));
        let status = row.split_whitespace().nth(2).unwrap();
        let want = if *b == fastcrypt::sha1::Backend::fastest() {
            "default"
        } else if b.is_available() {
            "available"
        } else {
            "n/a"
        };
        assert_eq!(status, want, "{row}");
    }
    // Exactly one default per primitive.
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("sha1 ") && l.contains(" default "))
            .count(),
        1
    );
}

#[test]
fn unknown_subcommand_fails_with_usage() {
    let (ok, _, err) = fastcrypt(&["frobnicate"]);
    assert!(!ok);
    assert!(err.contains("Usage") || err.contains("usage"), "{err}");
}
