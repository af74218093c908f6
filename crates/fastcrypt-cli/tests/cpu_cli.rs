//! `fastcrypt cpu`, run as a user would.
#![allow(missing_docs)]

use fastcrypt::cpu::FEATURES;
use fastcrypt::PrimitiveBackend;

mod common;

fn fastcrypt(args: &[&str]) -> (bool, String, String) {
    common::text(&common::fastcrypt(args))
}

/// Every backend of a primitive has a row whose status agrees with the
/// library, and exactly one is the default.
fn check_rows<B: PrimitiveBackend>(out: &str) {
    let prim = B::PRIMITIVE;
    for &b in B::ALL {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([prim, b.name()]))
            .unwrap_or_else(|| panic!("no row for {prim}/{b}:\n{out}"));
        let status = row.split_whitespace().nth(2).unwrap();
        let want = if b == B::fastest() {
            "default"
        } else if b.is_available() {
            "available"
        } else if !b.is_compiled() {
            // A portable-only build: the CPU is not to blame.
            "not-built"
        } else {
            "n/a"
        };
        assert_eq!(status, want, "{row}");
    }
    let defaults = out
        .lines()
        .filter(|l| l.starts_with(&format!("{prim} ")) && l.contains(" default "))
        .count();
    assert_eq!(defaults, 1, "{out}");
}

#[test]
fn cpu_lists_model_features_and_every_backend() {
    let (ok, out, err) = fastcrypt(&["cpu"]);
    assert!(ok, "stderr: {err}");
    assert!(out.starts_with("cpu:"), "{out}");
    assert!(out.contains("\nfeatures:"), "{out}");
    check_rows::<fastcrypt::sha1::Backend>(&out);
    check_rows::<fastcrypt::rc4::Backend>(&out);
    check_rows::<fastcrypt::ghash::Backend>(&out);
    check_rows::<fastcrypt::aes_gcm::Backend>(&out);
}

/// The names on one `key: a b c` line of `fastcrypt cpu` (`none`: no name).
fn names_on<'a>(out: &'a str, key: &str) -> Vec<&'a str> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no `{key}` line:\n{out}"));
    line.split_whitespace().filter(|n| *n != "none").collect()
}

/// Every row of the library's feature table is printed: CPU flags as
/// present or absent, OS state on its own line.
#[test]
fn cpu_prints_every_feature_of_the_table() {
    let (ok, out, err) = fastcrypt(&["cpu"]);
    assert!(ok, "stderr: {err}");
    let present = names_on(&out, "features:");
    let absent = names_on(&out, "absent:");
    let os_state = out
        .lines()
        .find_map(|l| l.strip_prefix("os state:"))
        .unwrap_or_default();
    for f in FEATURES {
        if f.os_state {
            assert!(
                os_state.contains(&format!("{} ", f.name)),
                "{}:\n{out}",
                f.name
            );
        } else {
            let listed = [present.contains(&f.name), absent.contains(&f.name)];
            assert_eq!(
                listed.iter().filter(|x| **x).count(),
                1,
                "{}:\n{out}",
                f.name
            );
        }
    }
}

/// What `fastcrypt cpu` reports for each CPU flag is what Linux reports:
/// a wrong CPUID bit in the library's table fails here. The OS-state rows
/// have no `/proc/cpuinfo` name.
// Portable-only builds too: they detect and report the CPU's features,
// they only leave the kernels out.
#[cfg(all(target_os = "linux", any(target_arch = "x86", target_arch = "x86_64")))]
#[test]
fn cpu_flags_agree_with_proc_cpuinfo() {
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        eprintln!("skipped: /proc/cpuinfo is not readable");
        return;
    };
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect())
        .expect("a flags line in /proc/cpuinfo");
    let (ok, out, err) = fastcrypt(&["cpu"]);
    assert!(ok, "stderr: {err}");
    let present = names_on(&out, "features:");
    let absent = names_on(&out, "absent:");
    assert!(!present.is_empty(), "{out}");
    for name in &present {
        assert!(
            flags.contains(name),
            "fastcrypt sees {name}, Linux does not"
        );
    }
    for name in &absent {
        assert!(
            !flags.contains(name),
            "Linux sees {name}, fastcrypt does not"
        );
    }
}

#[test]
fn unknown_subcommand_fails_with_usage() {
    let (ok, _, err) = fastcrypt(&["frobnicate"]);
    assert!(!ok);
    assert!(err.contains("Usage") || err.contains("usage"), "{err}");
}
