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
