//! `fastcrypt sha1 --check`: GNU's `digest_check`. Lists are read as
//! bytes, line by line; a malformed line is counted and skipped, never
//! fatal; results go to stdout, reasons and warnings to stderr.
//!
//! With collision detection (the default), a listed file found to be part
//! of a collision attack fails whatever its listed digest: `NAME: FAILED
//! collision attack` (worded as GNU's `FAILED open or read`), the reason
//! on stderr, and `WARNING: N collisions were detected` after GNU's
//! warnings, the line Debian's `sha1cdsum` ends with. Its digest is still
//! compared with the list (the safe hash), so a wrong one is also counted
//! as not matching. Like a mismatch, it is silent under `--status`.

use super::gnu::{self, Layout};
use super::out::Out;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

/// The options that shape a check run, and the line layout it has
/// committed to (kept across lists, as GNU does).
pub struct Checker {
    pub how: super::Hashing,
    pub status: bool,
    pub warn: bool,
    pub quiet: bool,
    pub strict: bool,
    pub ignore_missing: bool,
    pub layout: Layout,
}

/// GNU's singular/plural pair, chosen by count.
fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

impl Checker {
    /// Checks every line of one list; true when it passes as GNU's
    /// `digest_check` decides: some line well formed, some file matched,
    /// none mismatched or unreadable (and, with --strict, no bad line).
    pub fn check_list(&mut self, list: &[u8], out: &mut Out) -> bool {
        let is_stdin = list == b"-";
        let shown = if is_stdin {
            gnu::quotef(b"standard input")
        } else {
            gnu::quotef(list)
        };
        // A list on a standard input closed at start-up (`<&-`, which
        // Rust's runtime reopened on /dev/null): a read error, as GNU's
        // read of the closed descriptor gives (`run` adds the failed
        // close of standard input after it).
        if is_stdin && crate::stdio::was_closed(0) {
            eprintln!("fastcrypt: {shown}: read error");
            return false;
        }
        let mut reader: Box<dyn BufRead> = if is_stdin {
            Box::new(io::stdin().lock())
        } else {
            match File::open(std::ffi::OsStr::from_bytes(list)) {
                Ok(f) => Box::new(BufReader::new(f)),
                Err(e) => {
                    super::report(list, &e);
                    return false;
                }
            }
        };
        let (mut misformatted, mut mismatched, mut unreadable) = (0u64, 0u64, 0u64);
        let mut collisions = 0u64;
        let mut formatted = false;
        let mut matched = false;
        let mut line = Vec::new();
        let mut number = 0u64;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    // GNU reports a failed list read without the reason.
                    eprintln!("fastcrypt: {shown}: read error");
                    return false;
                }
            }
            number += 1;
            if line[0] == b'#' {
                continue;
            }
            let mut text: &[u8] = line.strip_suffix(b"\n").unwrap_or(&line);
            text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.is_empty() {
                continue;
            }
            let parsed =
                gnu::parse_line(text, &mut self.layout).filter(|p| !(is_stdin && p.name == b"-"));
            let Some(entry) = parsed else {
                misformatted += 1;
                if self.warn {
                    eprintln!(
                        "fastcrypt: {shown}: {number}: improperly formatted SHA1 checksum line"
                    );
                }
                continue;
            };
            formatted = true;
            let name = &entry.name;
            let escape = !self.status && gnu::needs_escape_check(name);
            let result = |what: &str| {
                let mut v = Vec::with_capacity(name.len() + 16);
                if escape {
                    v.push(b'\\');
                    v.extend_from_slice(&gnu::escape(name));
                } else {
                    v.extend_from_slice(name);
                }
                v.extend_from_slice(b": ");
                v.extend_from_slice(what.as_bytes());
                v.push(b'\n');
                v
            };
            match super::hash_path(name, self.how) {
                Err(e) if self.ignore_missing && e.raw_os_error() == Some(libc::ENOENT) => {}
                Err(e) => {
                    super::report(name, &e);
                    unreadable += 1;
                    if !self.status {
                        out.record(&result("FAILED open or read"));
                    }
                }
                Ok(h) => {
                    let same = crate::hex::encode(&h.digest)
                        .as_bytes()
                        .eq_ignore_ascii_case(&entry.digest);
                    if !same {
                        mismatched += 1;
                    }
                    if let Some(c) = h.collision {
                        // Never a pass, even with the listed digest.
                        collisions += 1;
                        if !self.status {
                            super::report_reason(name, &c.to_string());
                            out.record(&result("FAILED collision attack"));
                        }
                    } else if same {
                        matched = true;
                        if !self.status && !self.quiet {
                            out.record(&result("OK"));
                        }
                    } else if !self.status {
                        out.record(&result("FAILED"));
                    }
                }
            }
        }
        if !formatted {
            eprintln!("fastcrypt: {shown}: no properly formatted checksum lines found");
        } else if !self.status {
            if misformatted > 0 {
                let what = plural(misformatted, "line is", "lines are");
                eprintln!("fastcrypt: WARNING: {misformatted} {what} improperly formatted");
            }
            if unreadable > 0 {
                let what = plural(unreadable, "listed file", "listed files");
                eprintln!("fastcrypt: WARNING: {unreadable} {what} could not be read");
            }
            if mismatched > 0 {
                let what = plural(mismatched, "computed checksum", "computed checksums");
                eprintln!("fastcrypt: WARNING: {mismatched} {what} did NOT match");
            }
            if collisions > 0 {
                let what = plural(collisions, "collision was", "collisions were");
                eprintln!("fastcrypt: WARNING: {collisions} {what} detected");
            }
            if self.ignore_missing && !matched {
                eprintln!("fastcrypt: {shown}: no file was verified");
            }
        }
        formatted
            && matched
            && mismatched == 0
            && unreadable == 0
            && collisions == 0
            && !(self.strict && misformatted > 0)
    }
}
