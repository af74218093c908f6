//! Removing the temporary output file when a signal ends the process:
//! SIGINT, SIGTERM, SIGHUP, and the other signals whose default action
//! ends it and that are sent by timers, limits or other programs
//! (SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2). SIGXFSZ
//! (`ulimit -f`) is ignored instead while the temporary is written, so
//! the write fails with EFBIG and the ordinary error path removes it.
//!
//! The handler unlinks the one temporary path published here and then
//! re-raises the signal with its default action, so the process still
//! dies of that signal (status 130, 143 or 129 in a shell) as if nothing
//! had been caught. `unlink` and `raise` are async-signal-safe; the path
//! is a C string made before publication, so the handler neither
//! allocates nor locks. Publishing, renaming and removing happen with
//! these signals blocked, so no signal lands between creating the file
//! and publishing its name (a file left behind) or between renaming it
//! and withdrawing the name. `rc4` runs on one thread, so blocking them
//! on this thread is blocking them for the process.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;

const SIGNALS: [libc::c_int; 9] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGALRM,
    libc::SIGXCPU,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// The temporary file to remove, or null.
static TEMP_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(ptr::null_mut());

extern "C" fn remove_temp_and_die(sig: libc::c_int) {
    let path = TEMP_PATH.load(Ordering::SeqCst);
    if !path.is_null() {
        // SAFETY: a non-null TEMP_PATH is a NUL-terminated string from
        // `CString::into_raw`, freed only with the signals blocked, so
        // not while this handler runs.
        unsafe { libc::unlink(path) };
    }
    // SA_RESETHAND restored the default action on entry, and the signal
    // is blocked while the handler runs: it is delivered, and ends the
    // process, as soon as the handler returns.
    // SAFETY: raise is async-signal-safe.
    unsafe { libc::raise(sig) };
}

/// Installs the handler for each of the signals that is not ignored
/// (`nohup` ignores SIGHUP, a shell ignores SIGINT in background jobs:
/// those stay ignored), and ignores SIGXFSZ. Once per process, when the
/// temporary file is created: from then on the process only writes it.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Past `ulimit -f`, SIGXFSZ would kill the process with the
        // temporary still there; ignored, the write fails with EFBIG
        // ("File too large"), reported, and the temporary is removed.
        // SAFETY: SIG_IGN is a valid disposition for SIGXFSZ.
        unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
        for sig in SIGNALS {
            // SAFETY: sigaction is given valid pointers to initialised
            // structs (all-zero is a valid `sigaction`); the handler
            // only calls async-signal-safe functions.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = remove_temp_and_die as extern "C" fn(libc::c_int) as usize;
                new.sa_flags = libc::SA_RESETHAND;
                libc::sigemptyset(&mut new.sa_mask);
                for other in SIGNALS {
                    libc::sigaddset(&mut new.sa_mask, other);
                }
                libc::sigaction(sig, &new, ptr::null_mut());
            }
        }
    });
}

/// Runs `f` with the signals of SIGNALS blocked; any that arrive
/// meanwhile are delivered when they are unblocked.
fn blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before
    // use; pthread_sigmask is given valid pointers.
    let old = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in SIGNALS {
            libc::sigaddset(&mut set, sig);
        }
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    };
    let result = f();
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, ptr::null_mut()) };
    result
}

/// Runs `create`, which makes the file at `path`, and publishes `path`
/// for removal on a signal if it succeeded, with no gap in between.
pub fn create_removable<T, E>(path: &Path, create: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    install();
    // Allocated before blocking; a path with a NUL byte cannot have been
    // created, so there is nothing to publish.
    let c_path = CString::new(path.as_os_str().as_bytes()).ok();
    blocked(|| {
        let made = create()?;
        if let Some(c) = c_path {
            let old = TEMP_PATH.swap(c.into_raw(), Ordering::SeqCst);
            free(old);
        }
        Ok(made)
    })
}

/// Runs `finish` (the rename into place, or the removal of the file) and
/// withdraws the published path, with no signal in between.
pub fn finish_removable<T>(finish: impl FnOnce() -> T) -> T {
    blocked(|| {
        let result = finish();
        free(TEMP_PATH.swap(ptr::null_mut(), Ordering::SeqCst));
        result
    })
}

fn free(p: *mut libc::c_char) {
    if !p.is_null() {
        // SAFETY: every non-null value stored in TEMP_PATH came from
        // `CString::into_raw` and is freed once, after being swapped out.
        drop(unsafe { CString::from_raw(p) });
    }
}
