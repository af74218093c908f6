//! The C API as a reference user sees it: C programs that include
//! `<sha1dc/sha1.h>` from `include/`, compiled with `cc` and linked with
//! `-lsha1detectcoll` against the static and against the shared library
//! that this very `cargo test` built, and against the static library as
//! `scripts/sha1dc-lib.sh` prelinks it for installing, then run.
//!
//! Finding the libraries: cargo compiles the library unit once for all of
//! its crate types (`cdylib`, `staticlib`, `rlib`), so building this test
//! (which links the `rlib`) also writes `libsha1detectcoll.so` and
//! `libsha1detectcoll.a` into `target/<profile>/deps`, the directory of
//! this test's own executable. No nested `cargo build` is needed (it would
//! block on the build directory lock that the running `cargo test` holds).
//! `target/<profile>` (where `cargo build` copies them) is the fallback.
//! Either way a library older than the crate's sources fails the test
//! rather than testing stale code.
//!
//! Without a C compiler the tests say so and pass, except under CI
//! (`CI` set), where a missing compiler fails them. (`cc` is also
//! rustc's linker on Linux, so a machine that builds this crate has one.)

#![cfg(unix)]

use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use fastcrypt::sha1::{DcConfig, Sha1Dc};
use sha1detectcoll::SHA1_CTX;

/// The crate directory (the header is in `include/`, the C sources in
/// `tests/c/`).
const CRATE: &str = env!("CARGO_MANIFEST_DIR");
/// The shared library's soname, from build.rs (empty where none is set).
const SONAME: &str = env!("SHA1DC_SONAME");

fn testdata() -> PathBuf {
    Path::new(CRATE).join("../fastcrypt/testdata/sha1dc")
}

/// The C compiler: `$CC`, else `cc`. `None` (after saying why) when there
/// is none and this is not CI.
fn compiler() -> Option<OsString> {
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    match Command::new(&cc).arg("--version").output() {
        Ok(o) if o.status.success() => Some(cc),
        other => {
            let why = match other {
                Ok(o) => format!("`{} --version` failed: {}", cc.to_string_lossy(), o.status),
                Err(e) => format!("cannot run `{}`: {e}", cc.to_string_lossy()),
            };
            if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
                panic!("{why}; CI requires a C compiler for the C API tests (scripts/setup.sh)");
            }
            // Straight to stderr, past the test harness's capture of
            // `eprintln!`: a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the C API tests need a C compiler: {why}"
            );
            None
        }
    }
}

/// When the library's sources last changed: `src/`, `build.rs`,
/// `Cargo.toml`.
fn newest_source() -> SystemTime {
    fn walk(dir: &Path, newest: &mut SystemTime) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, newest);
            } else {
                *newest = (*newest).max(fs::metadata(&path).unwrap().modified().unwrap());
            }
        }
    }
    let mut newest = SystemTime::UNIX_EPOCH;
    walk(&Path::new(CRATE).join("src"), &mut newest);
    for file in ["build.rs", "Cargo.toml"] {
        let modified = fs::metadata(Path::new(CRATE).join(file))
            .unwrap()
            .modified()
            .unwrap();
        newest = newest.max(modified);
    }
    newest
}

/// `libsha1detectcoll.<ext>` as built by this cargo invocation: in
/// `target/<profile>/deps` beside this test's executable (where cargo
/// writes every crate type of the library unit), else in
/// `target/<profile>`; either way no older than the library's sources.
fn library(file: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test executable's directory");
    let candidates = [deps, deps.parent().expect("target/<profile>")];
    let sources = newest_source();
    let mut stale = Vec::new();
    for dir in candidates {
        let p = dir.join(file);
        match fs::metadata(&p).and_then(|m| m.modified()) {
            Ok(built) if built >= sources => return p,
            Ok(_) => stale.push(p),
            Err(_) => {}
        }
    }
    panic!(
        "no up-to-date {file} in {candidates:?} (older than the sources: {stale:?}); cargo \
         builds it with this test (crate-type cdylib and staticlib in \
         crates/fastcrypt-sha1dc/Cargo.toml)"
    );
}

/// A fresh scratch directory under cargo's per-test temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd`, failing the test with `what`, the status and both outputs
/// unless it succeeds.
fn run_checked(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {:?}: {e}", cmd.get_program()));
    check(what, &out);
    out
}

fn check(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Rust struct's layout as `-D` macros for the C program's
/// `_Static_assert`s.
fn layout_defines() -> Vec<String> {
    use core::mem::{align_of, offset_of, size_of};
    let mut d = vec![
        format!("-DRUST_SIZEOF_SHA1_CTX={}", size_of::<SHA1_CTX>()),
        format!("-DRUST_ALIGNOF_SHA1_CTX={}", align_of::<SHA1_CTX>()),
    ];
    macro_rules! offsets {
        ($($f:ident),*) => {
            $(d.push(format!(concat!("-DRUST_OFFSETOF_", stringify!($f), "={}"), offset_of!(SHA1_CTX, $f)));)*
        };
    }
    offsets!(
        total,
        ihv,
        buffer,
        found_collision,
        safe_hash,
        detect_coll,
        ubc_check,
        reduced_round_coll,
        callback,
        ihv1,
        ihv2,
        m1,
        m2,
        states
    );
    d
}

/// Compiles `tests/c/<sources>` into `out` the way a reference user
/// would: `cc -I<include> sources -L<lib_dir> -lsha1detectcoll`, with
/// warnings as errors.
fn build(cc: &OsString, sources: &[&str], out: &Path, lib_dir: &Path) {
    build_linking(cc, sources, out, lib_dir, &["sha1detectcoll"]);
}

/// As [`build`], linking `-l<lib>` for each of `libs`, in that order.
fn build_linking(cc: &OsString, sources: &[&str], out: &Path, lib_dir: &Path, libs: &[&str]) {
    run_checked(
        Command::new(cc)
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
            .arg(format!("-I{CRATE}/include"))
            .args(layout_defines())
            .args(
                sources
                    .iter()
                    .map(|s| Path::new(CRATE).join("tests/c").join(s)),
            )
            .arg("-o")
            .arg(out)
            .arg(format!("-L{}", lib_dir.display()))
            .args(libs.iter().map(|l| format!("-l{l}"))),
        &format!("compiling {sources:?}, linking {libs:?}"),
    );
}

/// Pseudo-random bytes (xorshift64), not a multiple of the block size.
fn random_data() -> Vec<u8> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..300_001)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// The program's arguments: test data, a random file and its plain
/// SHA-1, and per collision file what fastcrypt's `Sha1Dc` reports (the
/// first block's offset, how many blocks with the safe hash on and off).
fn program_args(dir: &Path) -> Vec<OsString> {
    let data = random_data();
    let random = dir.join("random.bin");
    fs::write(&random, &data).unwrap();
    let mut args: Vec<OsString> = vec![
        testdata().into(),
        random.into(),
        hex::encode(fastcrypt::sha1::digest(&data)).into(),
    ];
    for name in [
        "shattered-1.pdf",
        "shattered-2.pdf",
        "sha-mbles-1.bin",
        "sha-mbles-2.bin",
    ] {
        let file = fs::read(testdata().join(name)).unwrap();
        let run = |safe_hash| {
            let mut h = Sha1Dc::new().with_config(DcConfig {
                safe_hash,
                ..DcConfig::default()
            });
            h.update(&file);
            h.finalize()
        };
        let (safe, plain) = (run(true), run(false));
        let first = safe.collision.expect("a collision file").offset;
        assert_eq!(plain.collision.map(|c| c.offset), Some(first));
        args.push(format!("{name}:{first}:{}:{}", safe.collisions, plain.collisions).into());
    }
    args
}

/// Runs the program; `lib_path` is the whole `LD_LIBRARY_PATH` (none for
/// the static build). Returns its report.
fn run(exe: &Path, args: &[OsString], lib_path: Option<&Path>) -> String {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    // cargo puts target/<profile>/deps on the library path of tests; the
    // program must find exactly the library under test, or none.
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd.env_remove("DYLD_LIBRARY_PATH");
    if let Some(p) = lib_path {
        cmd.env("LD_LIBRARY_PATH", p);
        cmd.env("DYLD_LIBRARY_PATH", p);
    }
    let out = run_checked(&mut cmd, &format!("{}", exe.display()));
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    for group in [
        "known answers",
        "collision files",
        "setters",
        "copied contexts",
        "random data",
        "callback: shattered-1.pdf",
        "callback: shattered-2.pdf",
        "callback: sha-mbles-1.bin",
        "callback: sha-mbles-2.bin",
        "checks passed",
    ] {
        assert!(
            report.contains(group),
            "no '{group}' in the report:\n{report}"
        );
    }
    report
}

/// What the dynamic loader would load for `exe` (glibc's
/// `LD_TRACE_LOADED_OBJECTS`, what `ldd` uses; `None` elsewhere).
fn loaded_objects(exe: &Path, lib_path: Option<&Path>) -> Option<String> {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return None;
    }
    let mut cmd = Command::new(exe);
    cmd.env("LD_TRACE_LOADED_OBJECTS", "1")
        .env_remove("LD_LIBRARY_PATH");
    if let Some(p) = lib_path {
        cmd.env("LD_LIBRARY_PATH", p);
    }
    let out = run_checked(&mut cmd, "LD_TRACE_LOADED_OBJECTS");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Links `tests/c/<sources>` against the archive `archive` alone (so
/// that `-lsha1detectcoll` cannot pick a shared library) and runs the
/// program on the test data.
fn link_static_and_run(cc: &OsString, dir: &Path, archive: &Path, sources: &[&str]) -> String {
    link_static_and_run_with(cc, dir, archive, sources, &["sha1detectcoll"])
}

/// As [`link_static_and_run`], linking `-l<lib>` for each of `libs`.
fn link_static_and_run_with(
    cc: &OsString,
    dir: &Path,
    archive: &Path,
    sources: &[&str],
    libs: &[&str],
) -> String {
    if archive != dir.join("libsha1detectcoll.a") {
        fs::copy(archive, dir.join("libsha1detectcoll.a")).unwrap();
    }
    let exe = dir.join("reference_user");
    build_linking(cc, sources, &exe, dir, libs);
    if let Some(libs) = loaded_objects(&exe, None) {
        assert!(
            !libs.contains("sha1detectcoll"),
            "the static build loads a shared library:\n{libs}"
        );
    }
    run(&exe, &program_args(dir), None)
}

/// The global functions an ELF object or archive defines (`readelf`: nm
/// hands objects with LLVM bitcode to a linker plugin, which may be too
/// old to read them and then lists nothing).
fn defined_globals(file: &Path, dynamic: bool) -> Vec<String> {
    let out = run_checked(
        Command::new("readelf")
            .arg(if dynamic { "--dyn-syms" } else { "--syms" })
            .arg("-W")
            .arg(file),
        "readelf",
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Num: Value Size Type Bind Vis Ndx Name
            (f.len() >= 8 && matches!(f[4], "GLOBAL" | "WEAK") && f[6] != "UND")
                .then(|| f[7].split('@').next().unwrap().to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn static_library() {
    let Some(cc) = compiler() else { return };
    let dir = scratch("c_api_static");
    let report = link_static_and_run(
        &cc,
        &dir,
        &library("libsha1detectcoll.a"),
        &["reference_user.c"],
    );
    println!(
        "static library {}:\n{report}",
        library("libsha1detectcoll.a").display()
    );
}

/// The archive `scripts/sha1dc-lib.sh` installs: the same code as one
/// prelinked object whose only global symbols are the API's, so that it
/// links beside another Rust static library (cargo's archive does not
/// when that library comes from another rustc: both define
/// `rust_eh_personality`), and both libraries work.
#[test]
fn prelinked_static_library() {
    let Some(cc) = compiler() else { return };
    let dir = scratch("c_api_prelinked");
    let archive = dir.join("libsha1detectcoll.a");
    run_checked(
        Command::new("bash")
            .arg(Path::new(CRATE).join("../../scripts/sha1dc-lib.sh"))
            .arg("prelink")
            .arg(library("libsha1detectcoll.a"))
            .arg(&archive),
        "scripts/sha1dc-lib.sh prelink",
    );
    // Nothing global but what the shared library exports (which rustc
    // limits to the `#[no_mangle]` API).
    let so = format!(
        "{}sha1detectcoll{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let api = defined_globals(&library(&so), true);
    assert!(api.iter().any(|f| f == "SHA1DCFinal"), "{api:?}");
    assert_eq!(defined_globals(&archive, false), api);
    // A second Rust static library, from the rustc that builds these
    // tests, linked before and after the archive (git's Makefile puts its
    // own libraries first).
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    run_checked(
        Command::new(&rustc)
            .args(["--edition", "2021", "-O", "--crate-type", "staticlib"])
            .arg(Path::new(CRATE).join("tests/c/foreign_rust_lib.rs"))
            .arg("-o")
            .arg(dir.join("libforeign_rust.a")),
        "rustc foreign_rust_lib.rs",
    );
    let sources = ["reference_user.c", "foreign_rust_call.c"];
    for libs in [
        ["sha1detectcoll", "foreign_rust"],
        ["foreign_rust", "sha1detectcoll"],
    ] {
        let report = link_static_and_run_with(&cc, &dir, &archive, &sources, &libs);
        println!("prelinked static library, linked as {libs:?}:\n{report}");
    }
}

#[test]
fn shared_library() {
    let Some(cc) = compiler() else { return };
    let dir = scratch("c_api_shared");
    let so = format!(
        "{}sha1detectcoll{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    // Installed as a system would: the file under its soname, and the
    // link-time name as a symlink to it (what the README's install does).
    if SONAME.is_empty() {
        fs::copy(library(&so), dir.join(&so)).unwrap();
    } else {
        fs::copy(library(&so), dir.join(SONAME)).unwrap();
        std::os::unix::fs::symlink(SONAME, dir.join(&so)).unwrap();
    }
    let exe = dir.join("reference_user");
    build(&cc, &["reference_user.c"], &exe, &dir);
    if let Some(libs) = loaded_objects(&exe, Some(&dir)) {
        let want = dir.join(if SONAME.is_empty() { &so } else { SONAME });
        assert!(
            libs.contains(&format!("=> {}", want.display())),
            "the shared build does not load {}:\n{libs}",
            want.display()
        );
    }
    let report = run(&exe, &program_args(&dir), Some(&dir));
    println!("shared library {}:\n{report}", library(&so).display());
}

/// `SHA1DC_NO_STANDARD_INCLUDES` and `SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H`
/// behave as in the reference header (compiled, not linked).
#[test]
fn header_macros() {
    let Some(cc) = compiler() else { return };
    let dir = scratch("c_api_macros");
    run_checked(
        Command::new(&cc)
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-c"])
            .arg(format!("-I{CRATE}/include"))
            .arg(format!("-I{CRATE}/tests/c"))
            .arg("-DSHA1DC_NO_STANDARD_INCLUDES")
            .arg("-DSHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H=\"trailer.h\"")
            .arg(Path::new(CRATE).join("tests/c/macros.c"))
            .arg("-o")
            .arg(dir.join("macros.o")),
        "compiling macros.c",
    );
}
