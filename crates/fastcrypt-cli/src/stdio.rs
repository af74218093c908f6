//! How the everyday commands (`sha1`, `rc4`) treat standard output, the
//! way GNU coreutils do: a write error (closed stdout, full disk) is
//! reported as `write error: <reason>` with exit status 1; a closed pipe
//! (`fastcrypt sha1 * | head -1`) ends the process quietly through the
//! default SIGPIPE action, which `main` restores.

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

// Whether file descriptor 1 was closed when the process started.
//
// Rust's runtime reopens a closed stdin/stdout/stderr on `/dev/null`
// before `main` runs, so `fastcrypt sha1 f >&-` would otherwise write
// into `/dev/null` and succeed, where GNU tools fail with EBADF. The
// probe runs as an ELF constructor, before that runtime setup.
#[cfg(target_os = "linux")]
mod probe {
    use std::sync::atomic::{AtomicBool, Ordering};

    static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn probe_stdout() {
        // SAFETY: F_GETFD on a plain descriptor number only queries the
        // descriptor table; it touches no memory of ours.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }

    // glibc runs `.init_array` entries before `main`, hence before the
    // Rust runtime's descriptor sanitising.
    #[used]
    #[link_section = ".init_array"]
    static PROBE: extern "C" fn() = probe_stdout;

    pub fn stdout_closed() -> bool {
        STDOUT_CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_os = "linux"))]
mod probe {
    pub fn stdout_closed() -> bool {
        false
    }
}

/// Whether standard output was closed when the process started (`>&-`):
/// then writing to it must fail with EBADF, as it does in C tools, even
/// though Rust's runtime has put `/dev/null` on descriptor 1.
pub fn stdout_was_closed() -> bool {
    probe::stdout_closed()
}

/// Restores the default action for SIGPIPE, which the Rust runtime sets
/// to "ignore": a reader that goes away then ends the process silently,
/// as it ends `cat` or `sha1sum`, instead of every write failing with
/// EPIPE and an error message.
pub fn default_sigpipe() {
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
