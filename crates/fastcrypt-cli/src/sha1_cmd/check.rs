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
//!
//! The lists are read and parsed in order on the calling thread, which
//! submits one event per line that matters to the [`Pipeline`]; listed
//! files are hashed on its workers, and the events come back in order to
//! [`Tally`], which prints and counts as GNU does line by line. So the
//! output is a sequential run's whatever the threads do.

use super::gnu::{self, Layout};
use super::out::Sink;
use super::pool::{Outcome, Pipeline, Work};
use std::io::{self, BufRead, BufReader};

/// The options that shape a check run.
pub struct Options {
    pub status: bool,
    pub warn: bool,
    pub quiet: bool,
    pub strict: bool,
    pub ignore_missing: bool,
}

/// GNU's singular/plural pair, chosen by count.
fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// What a list's reading produced, in order.
pub enum Event {
    /// A list starts; its name as messages show it.
    Begin { shown: String },
    /// The list could not be opened.
    OpenFailed { list: Vec<u8>, error: io::Error },
    /// The list (from here on) could not be read: it fails, without a
    /// summary, as GNU's does.
    ReadFailed,
    /// Line `number` is not a checksum line.
    Misformatted { number: u64 },
    /// A listed file and its expected digest (as hex digits).
    Entry { name: Vec<u8>, digest: Vec<u8> },
    /// The list was read to its end.
    End,
}

/// Checks every list in `lists`; true when every one passes.
pub fn check_lists(
    lists: &[&[u8]],
    opts: &Options,
    pipe: &mut Pipeline<'_, Event>,
    sink: &mut Sink<'_>,
) -> bool {
    let mut tally = Tally::new(opts);
    let mut emit = |ev: Event, outcome: Outcome| tally.event(ev, outcome, sink);
    // GNU's process-wide `bsd_reversed`: kept across lists.
    let mut layout = Layout::Unknown;
    for &list in lists {
        read_list(list, &mut layout, pipe, &mut emit);
    }
    pipe.finish(&mut emit);
    tally.ok
}

/// Reads one list and submits its events.
fn read_list(
    list: &[u8],
    layout: &mut Layout,
    pipe: &mut Pipeline<'_, Event>,
    emit: &mut impl FnMut(Event, Outcome),
) {
    let is_stdin = list == b"-";
    let shown = if is_stdin {
        gnu::quotef(b"standard input")
    } else {
        gnu::quotef(list)
    };
    let mut reader: Box<dyn BufRead> = if is_stdin {
        // Every earlier `-` (a listed file) has read standard input first.
        pipe.finish(emit);
        pipe.submit(Event::Begin { shown }, Work::Nothing, emit);
        match super::stdin() {
            Ok(s) => Box::new(s),
            // Closed at start-up (`<&-`, which Rust's runtime reopened on
            // /dev/null): a read error, as GNU's read of the closed
            // descriptor gives (`run` adds the failed close of standard
            // input after it).
            Err(_) => return pipe.submit(Event::ReadFailed, Work::Nothing, emit),
        }
    } else {
        match super::open(list) {
            Ok(f) => {
                pipe.submit(Event::Begin { shown }, Work::Nothing, emit);
                Box::new(BufReader::new(f))
            }
            Err(error) => {
                let list = list.to_vec();
                return pipe.submit(Event::OpenFailed { list, error }, Work::Nothing, emit);
            }
        }
    };
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return pipe.submit(Event::ReadFailed, Work::Nothing, emit),
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
        match gnu::parse_line(text, layout).filter(|p| !(is_stdin && p.name == b"-")) {
            None => pipe.submit(Event::Misformatted { number }, Work::Nothing, emit),
            Some(p) => {
                let work = Work::of(&p.name);
                let entry = Event::Entry {
                    name: p.name,
                    digest: p.digest,
                };
                pipe.submit(entry, work, emit);
            }
        }
    }
    pipe.submit(Event::End, Work::Nothing, emit);
}

/// The printing and counting of one run, event by event in list order:
/// GNU's `digest_check` loop body and summary.
struct Tally<'o> {
    opts: &'o Options,
    /// Every list so far has passed.
    ok: bool,
    /// The current list, as messages name it.
    shown: String,
    misformatted: u64,
    mismatched: u64,
    unreadable: u64,
    collisions: u64,
    formatted: bool,
    matched: bool,
}

impl<'o> Tally<'o> {
    fn new(opts: &'o Options) -> Tally<'o> {
        Tally {
            opts,
            ok: true,
            shown: String::new(),
            misformatted: 0,
            mismatched: 0,
            unreadable: 0,
            collisions: 0,
            formatted: false,
            matched: false,
        }
    }

    fn event(&mut self, ev: Event, outcome: Outcome, sink: &mut Sink<'_>) {
        let o = self.opts;
        match ev {
            Event::Begin { shown } => {
                *self = Tally {
                    shown,
                    ok: self.ok,
                    ..Tally::new(o)
                };
            }
            Event::OpenFailed { list, error } => {
                super::report(sink, &list, &error);
                self.ok = false;
            }
            Event::ReadFailed => {
                // GNU reports a failed list read without the reason.
                sink.say(format_args!("{}: read error", self.shown));
                self.ok = false;
            }
            Event::Misformatted { number } => {
                self.misformatted += 1;
                if o.warn {
                    sink.say(format_args!(
                        "{}: {number}: improperly formatted SHA1 checksum line",
                        self.shown
                    ));
                }
            }
            Event::Entry { name, digest } => {
                let outcome = outcome.expect("every entry is hashed");
                self.entry(&name, &digest, outcome, sink);
            }
            Event::End => self.end(sink),
        }
    }

    fn entry(
        &mut self,
        name: &[u8],
        digest: &[u8],
        outcome: io::Result<super::Hashed>,
        sink: &mut Sink<'_>,
    ) {
        let o = self.opts;
        self.formatted = true;
        let escape = !o.status && gnu::needs_escape_check(name);
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
        match outcome {
            Err(e) if o.ignore_missing && e.raw_os_error() == Some(libc::ENOENT) => {}
            Err(e) => {
                super::report(sink, name, &e);
                self.unreadable += 1;
                if !o.status {
                    sink.record(&result("FAILED open or read"));
                }
            }
            Ok(h) => {
                let same = crate::hex::encode(&h.digest)
                    .as_bytes()
                    .eq_ignore_ascii_case(digest);
                if !same {
                    self.mismatched += 1;
                }
                if let Some(c) = h.collision {
                    // Never a pass, even with the listed digest.
                    self.collisions += 1;
                    if !o.status {
                        super::report_reason(sink, name, &c.to_string());
                        sink.record(&result("FAILED collision attack"));
                    }
                } else if same {
                    self.matched = true;
                    if !o.status && !o.quiet {
                        sink.record(&result("OK"));
                    }
                } else if !o.status {
                    sink.record(&result("FAILED"));
                }
            }
        }
    }

    /// The list's summary; its verdict as GNU's `digest_check` decides:
    /// some line well formed, some file matched, none mismatched or
    /// unreadable (and, with --strict, no bad line).
    fn end(&mut self, sink: &mut Sink<'_>) {
        let o = self.opts;
        let shown = &self.shown;
        if !self.formatted {
            sink.say(format_args!(
                "{shown}: no properly formatted checksum lines found"
            ));
        } else if !o.status {
            if self.misformatted > 0 {
                let n = self.misformatted;
                let what = plural(n, "line is", "lines are");
                sink.say(format_args!("WARNING: {n} {what} improperly formatted"));
            }
            if self.unreadable > 0 {
                let n = self.unreadable;
                let what = plural(n, "listed file", "listed files");
                sink.say(format_args!("WARNING: {n} {what} could not be read"));
            }
            if self.mismatched > 0 {
                let n = self.mismatched;
                let what = plural(n, "computed checksum", "computed checksums");
                sink.say(format_args!("WARNING: {n} {what} did NOT match"));
            }
            if self.collisions > 0 {
                let n = self.collisions;
                let what = plural(n, "collision was", "collisions were");
                sink.say(format_args!("WARNING: {n} {what} detected"));
            }
            if o.ignore_missing && !self.matched {
                sink.say(format_args!("{shown}: no file was verified"));
            }
        }
        self.ok &= self.formatted
            && self.matched
            && self.mismatched == 0
            && self.unreadable == 0
            && self.collisions == 0
            && !(o.strict && self.misformatted > 0);
    }
}
