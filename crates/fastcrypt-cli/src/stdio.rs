//! How the everyday commands (`sha1`, `rc4`) treat standard output, the
//! way GNU coreutils do: a write error (closed stdout, full disk) is
//! reported as `write error: <reason>` with exit status 1; a closed pipe
//! (`fastcrypt sha1 * | head -1`) ends the process quietly through the
//! default SIGPIPE action, which `main` restores, unless the parent had
//! set SIGPIPE to be ignored: then, as with coreutils, the write fails
//! and is reported as `write error: Broken pipe`.

use std::io;

/// The OS's description of an I/O error without Rust's ` (os error N)`
/// suffix, as C tools print it: `Bad file descriptor`.
pub fn os_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s[..i].to_string(),
        _ => s,
    }
}

/// GNU's message for a failed write to standard output.
pub fn write_error(e: &io::Error) -> String {
    format!("write error: {}", os_message(e))
}

/// Writes `text` to standard output and flushes it, failing as C tools
/// do: `write error: No space left on device` on a full disk, `write
/// error: Bad file descriptor` when standard output was closed at
/// start-up (which Rust's runtime would otherwise turn into a silent
/// success on `/dev/null`). `print!` panics instead.
pub fn print_out(text: &str) -> Result<(), String> {
    use std::io::Write as _;
    if stdout_was_closed() {
        return Err(write_error(&io::Error::from_raw_os_error(libc::EBADF)));
    }
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| write_error(&e))
}

// What the process inherited at start-up: which standard descriptors
// were closed, and whether SIGPIPE was ignored.
//
// Before `main`, Rust's runtime reopens a closed fd 0, 1 or 2 on
// `/dev/null`, so `fastcrypt sha1 f >&-` would otherwise write into
// `/dev/null` and succeed, where GNU tools fail with "write error: Bad
// file descriptor". A function in `.init_array` runs before the runtime
// does and records what it finds; nothing else can see the difference
// afterwards (a `/dev/null` opened read-write is also what Python's
// `subprocess.DEVNULL` gives, which must keep working).

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// Bit `fd` set: descriptor `fd` (0, 1 or 2) was closed at start-up.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Whether SIGPIPE was ignored at start-up (inherited from the parent:
/// the runtime ignores it too, so this must be seen before it runs).
static SIGPIPE_IGNORED_AT_START: AtomicBool = AtomicBool::new(false);

#[cfg(target_os = "linux")]
extern "C" fn record_start_up_state() {
    for fd in 0..3 {
        // SAFETY: F_GETFD on any integer is harmless: it only reports
        // whether the descriptor is open. No Rust code has run yet and
        // nothing here allocates or touches the runtime.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            CLOSED_AT_START.fetch_or(1 << fd, Ordering::Relaxed);
        }
    }
    SIGPIPE_IGNORED_AT_START.store(is_ignored(libc::SIGPIPE), Ordering::Relaxed);
}

/// Whether signal `sig` is ignored now (`SIG_IGN`).
#[cfg(unix)]
fn is_ignored(sig: libc::c_int) -> bool {
    // SAFETY: `sigaction` with a null new action only reads the current
    // one into `old`, a plain C struct for which all zeros is a valid
    // value; it allocates nothing, so it may run before `main`.
    unsafe {
        let mut old: libc::sigaction = core::mem::zeroed();
        libc::sigaction(sig, core::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Whether SIGINT is ignored, as a shell without job control leaves it
/// for a command run in the background (`cmd &`), so that a Ctrl-C meant
/// for the foreground does not stop it. A program that catches Ctrl-C
/// must then leave it ignored, as `sh` and coreutils' `sort` do. The
/// Rust runtime does not touch SIGINT: asked before a handler is set,
/// this is what the process inherited.
pub fn sigint_ignored() -> bool {
    #[cfg(unix)]
    return is_ignored(libc::SIGINT);
    #[cfg(not(unix))]
    false
}

// glibc and the dynamic loader call every function in `.init_array`
// before `main`, and so before the Rust runtime's own start-up code;
// `#[used]` keeps the linker from dropping the otherwise unreferenced
// static.
#[cfg(target_os = "linux")]
#[used]
// SAFETY: the section holds pointers to `extern "C" fn()`, which is what
// this static is; the function it points to is sound to run before
// `main` (see above).
#[unsafe(link_section = ".init_array")]
static RECORD_START_UP_STATE: extern "C" fn() = record_start_up_state;

/// Whether descriptor `fd` (0, 1 or 2) was closed when the process
/// started (always false where this cannot be known).
pub fn was_closed(fd: u8) -> bool {
    fd < 3 && CLOSED_AT_START.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// Closes again each standard descriptor that was closed when the
/// process started (the runtime reopened it on `/dev/null`), so that a
/// program this one is about to `exec` starts with what the shell gave:
/// `fastcrypt speed >&-` then fails to write, as `fastcrypt-speed >&-`
/// does, instead of succeeding into `/dev/null`.
#[cfg(unix)]
pub fn reclose_closed_std_fds() {
    for fd in 0..3u8 {
        if was_closed(fd) {
            // SAFETY: the descriptor holds only the runtime's `/dev/null`;
            // the caller execs next, and nothing writes to it before.
            unsafe {
                libc::close(fd.into());
            }
        }
    }
}

/// Whether standard output was closed when the process started (`>&-`):
/// then writing to it must fail with EBADF, as it does in C tools, even
/// though Rust's runtime has put `/dev/null` on descriptor 1.
pub fn stdout_was_closed() -> bool {
    was_closed(1)
}

/// Restores the default action for SIGPIPE, which the Rust runtime sets
/// to "ignore": a reader that goes away then ends the process silently,
/// as it ends `cat` or `sha1sum`, instead of every write failing with
/// EPIPE and an error message. Unless the parent had it ignored (`trap ''
/// PIPE`, or a server that ignores it): coreutils keep that, and their
/// writes then fail with "write error: Broken pipe"; so do ours.
pub fn default_sigpipe() {
    if SIGPIPE_IGNORED_AT_START.load(Ordering::Relaxed) {
        return;
    }
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread
    // exists; SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_drop_the_os_error_suffix() {
        let e = io::Error::from_raw_os_error(libc::EBADF);
        assert_eq!(write_error(&e), "write error: Bad file descriptor");
        let e = io::Error::other("plain");
        assert_eq!(os_message(&e), "plain");
    }
}
