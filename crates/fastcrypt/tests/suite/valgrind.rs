//! Valgrind client requests for constant-time probes: the ctgrind technique
//! (A. Langley, 2010). Memcheck tracks which bits are "undefined" and
//! reports a conditional branch or a memory address that depends on them,
//! so a probe marks its secret undefined with [`secret`], runs the code
//! under test, marks the output defined again with [`public`] and only then
//! looks at it. Outside valgrind the requests are no-ops, so a probe is an
//! ordinary (passing) test; [`run_script`] runs a check script that puts
//! this very binary's probes under valgrind. Not tied to one primitive:
//! the probes themselves are in `super::ct`.
//!
//! A probe that shows nothing proves nothing unless the secret reached
//! the code under test: [`still_secret`] asks memcheck whether an output
//! still carries undefined bits before the probe declassifies it (a
//! kernel whose instructions valgrind modelled as producing defined
//! values would otherwise pass vacuously).

use super::common::TestResult;
use libtest_mimic::{Completion, Failed};
use std::process::Command;

/// Valgrind client request (valgrind.h's `VALGRIND_DO_CLIENT_REQUEST`):
/// a rotate sequence that is a no-op on the CPU and that valgrind's JIT
/// recognises, then `xchg rbx, rbx`; `rax` points at the request and
/// its arguments, `rdx` carries the default in and the result out.
#[cfg(all(target_arch = "x86_64", any(target_os = "linux", target_os = "macos")))]
fn client_request(default: usize, args: [usize; 6]) -> usize {
    let mut result = default;
    // SAFETY: the rotations by 3+13+61+51 = 128 bits leave rdi as it
    // was, `xchg rbx, rbx` changes nothing, and outside valgrind that
    // is all that runs; under valgrind the request only reads `args`
    // and changes valgrind's own bookkeeping.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0usize => _,
        );
    }
    result
}

/// The same request for 32-bit x86 (rotations by 3+13+29+19 = 64 bits).
#[cfg(all(target_arch = "x86", target_os = "linux"))]
fn client_request(default: usize, args: [usize; 6]) -> usize {
    let mut result = default;
    // SAFETY: as for x86-64: the sequence has no effect on the CPU.
    unsafe {
        core::arch::asm!(
            "rol edi, 3",
            "rol edi, 13",
            "rol edi, 29",
            "rol edi, 19",
            "xchg ebx, ebx",
            inout("edx") result,
            in("eax") args.as_ptr(),
            inout("edi") 0usize => _,
        );
    }
    result
}

#[cfg(not(any(
    all(target_arch = "x86_64", any(target_os = "linux", target_os = "macos")),
    all(target_arch = "x86", target_os = "linux")
)))]
fn client_request(default: usize, _args: [usize; 6]) -> usize {
    default
}

/// memcheck.h: `VG_USERREQ_TOOL_BASE('M', 'C') + 1`, `+ 2` and `+ 8`.
const MAKE_MEM_UNDEFINED: usize = 0x4d43_0001;
const MAKE_MEM_DEFINED: usize = 0x4d43_0002;
const GET_VBITS: usize = 0x4d43_0008;
/// valgrind.h: `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: usize = 0x1001;

fn addr<T: ?Sized>(x: &T) -> usize {
    (x as *const T).cast::<u8>() as usize
}

/// Marks `x` undefined: memcheck then reports every branch and address
/// computed from it.
pub fn secret<T: ?Sized>(x: &T) {
    let n = std::mem::size_of_val(x);
    client_request(0, [MAKE_MEM_UNDEFINED, addr(x), n, 0, 0, 0]);
}

/// Declassifies `x` (an output), so the test may branch on it.
pub fn public<T: ?Sized>(x: &T) {
    let n = std::mem::size_of_val(x);
    client_request(0, [MAKE_MEM_DEFINED, addr(x), n, 0, 0, 0]);
}

/// `x`, marked secret, read back from the marked memory. [`secret`] only
/// marks memory: through a shared reference the compiler may assume the
/// bytes are unchanged and keep using a register copy or the constant they
/// came from, so a probe on a copy of a constant could test nothing (at
/// some optimisation levels it did).
pub fn secret_copy<T: Copy>(x: T) -> T {
    let slot = x;
    secret(&slot);
    // SAFETY: `slot` is a live, initialised and aligned local of type T.
    unsafe { std::ptr::read_volatile(&slot) }
}

/// `x`, declassified, read back from the declassified memory (see
/// [`secret_copy`]: a register copy would still carry the secret mark).
pub fn public_copy<T: Copy>(x: T) -> T {
    let slot = x;
    public(&slot);
    // SAFETY: `slot` is a live, initialised and aligned local of type T.
    unsafe { std::ptr::read_volatile(&slot) }
}

/// Memcheck's validity bits of `x`, a byte per byte of `x` (a set bit is
/// an undefined one), or `None` outside valgrind.
fn validity<T: ?Sized>(x: &T) -> Option<Vec<u8>> {
    let n = std::mem::size_of_val(x);
    let mut v = vec![0u8; n];
    // memcheck.h: returns 1 on success, 0 outside valgrind, 3 if a byte
    // is not addressable (impossible for a live reference).
    match client_request(0, [GET_VBITS, addr(x), v.as_mut_ptr() as usize, n, 0, 0]) {
        1 => Some(v),
        _ => None,
    }
}

/// Under valgrind, fails unless every byte of `x` still has undefined
/// bits: the proof that the secret flowed through the code under test
/// into this output, so that a leak on the way could have been seen. Call
/// it just before declassifying the output. Outside valgrind: `Ok`.
pub fn still_secret<T: ?Sized>(what: &str, x: &T) -> TestResult {
    match validity(x) {
        Some(v) if v.contains(&0) => Err(format!(
            "{what} is public before being declassified (validity bits {}): \
             the secret did not reach it, so the probe could not see a leak",
            hex::encode(&v)
        )
        .into()),
        _ => Ok(()),
    }
}

/// Under valgrind, fails unless `x` is wholly defined without having
/// been declassified (a wiped buffer, a length). Outside valgrind: `Ok`.
pub fn already_public<T: ?Sized>(what: &str, x: &T) -> TestResult {
    match validity(x) {
        Some(v) if v.iter().any(|&b| b != 0) => Err(format!(
            "{what} should be public but has undefined bits {}",
            hex::encode(&v)
        )
        .into()),
        _ => Ok(()),
    }
}

fn running_on_valgrind() -> bool {
    client_request(0, [RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0]) != 0
}

/// The check script sets `FASTCRYPT_CT_EXPECT_VALGRIND` so that a probe
/// run outside valgrind (a broken script, a valgrind that did not start
/// the binary) fails loudly instead of passing unchecked. Every probe
/// calls this first.
pub fn check_environment() -> TestResult {
    if std::env::var_os("FASTCRYPT_CT_EXPECT_VALGRIND").is_some() && !running_on_valgrind() {
        return Err(
            "FASTCRYPT_CT_EXPECT_VALGRIND is set but this is not running under valgrind".into(),
        );
    }
    Ok(())
}

/// Runs `script` (a path from the repository root) with `--bin` this test
/// binary; `what` says, in the ignore reason, which check did not run when
/// valgrind is missing, so a machine without it reports the check as
/// ignored rather than passed.
pub fn run_script(script: &str, what: &str) -> Result<Completion, Failed> {
    if !cfg!(target_os = "linux") {
        return Ok(Completion::ignored_with(format!(
            "{what} runs on Linux only"
        )));
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Ok(Completion::ignored_with(format!(
            "valgrind is not installed: {what} did not run \
             (apt-get install valgrind, or run {script})"
        )));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(script);
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new("bash")
        .arg(&path)
        .arg("--bin")
        .arg(&exe)
        .output()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if out.status.success() {
        Ok(Completion::Completed)
    } else {
        Err(format!(
            "{} failed ({}):\n{}{}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into())
    }
}
