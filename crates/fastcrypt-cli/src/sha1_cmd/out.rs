//! Standard output for `fastcrypt sha1`, with GNU's write-error rules: a
//! failed write (closed stdout, full disk) is remembered, later output is
//! dropped, and the command ends with `write error: <reason>`, exit 1.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// Standard output through our own descriptor, one `write` per record so
/// that lines interleave with the error messages on a terminal as GNU's
/// line-buffered output does.
pub struct Out {
    file: Option<File>,
    error: Option<io::Error>,
    /// Whether anything was meant for stdout at all.
    attempted: bool,
}

impl Out {
    pub fn stdout() -> Out {
        if crate::stdio::stdout_was_closed() {
            return Out {
                file: None,
                error: Some(io::Error::from_raw_os_error(libc::EBADF)),
                attempted: false,
            };
        }
        // A duplicate of fd 1 taken now, before any input file is opened:
        // Rust's `Stdout` would hide EBADF, and an input could otherwise
        // land on a free descriptor 1.
        match io::stdout().as_fd().try_clone_to_owned() {
            Ok(fd) => Out {
                file: Some(File::from(fd)),
                error: None,
                attempted: false,
            },
            Err(e) => Out {
                file: None,
                error: Some(e),
                attempted: false,
            },
        }
    }

    /// Writes one record; after the first failure, output is dropped.
    pub fn record(&mut self, bytes: &[u8]) {
        self.attempted = true;
        if self.error.is_some() {
            return;
        }
        if let Some(f) = &mut self.file {
            if let Err(e) = f.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// The first write error, if any record was lost. A closed stdout on
    /// which nothing was written is no error (GNU's `close_stdout`).
    pub fn finish(self) -> Result<(), io::Error> {
        match self.error {
            Some(e) if self.attempted => Err(e),
            _ => Ok(()),
        }
    }
}

/// Where `fastcrypt sha1` writes: results to standard output through
/// [`Out`], messages to standard error, both kept clear of the progress
/// bar (which is drawn on standard error) so that no line is torn by it.
pub struct Sink<'p> {
    pub out: Out,
    pub progress: &'p super::progress::Progress,
}

impl Sink<'_> {
    /// One record on standard output.
    pub fn record(&mut self, bytes: &[u8]) {
        let out = &mut self.out;
        self.progress.around_stdout(|| out.record(bytes));
    }

    /// `fastcrypt: MESSAGE` on standard error.
    pub fn say(&self, message: std::fmt::Arguments<'_>) {
        self.progress
            .around_stderr(|| eprintln!("fastcrypt: {message}"));
    }
}
