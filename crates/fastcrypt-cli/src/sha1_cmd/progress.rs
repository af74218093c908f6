//! The progress bar of `fastcrypt sha1`: bytes hashed of the total, the
//! rate and the time left, on standard error.
//!
//! Only for a person watching: the caller turns it on only when standard
//! error is a terminal (never in a pipe or a file, so scripts and the
//! tests never see it), and it stays hidden until hashing has taken
//! [`DELAY`], so a run that is over in a moment never flashes a bar.
//! It is cleared at the end. Lines written while it is shown go through
//! [`Progress::around_stdout`] and [`Progress::around_stderr`], which
//! take the bar off the screen for the write.
//!
//! The total comes from a thread that looks up the inputs' sizes while
//! they are hashed (with `--check`, it reads the lists a second time for
//! the names); with standard input among the inputs the total is not
//! known, and the bar shows bytes and rate only.

use super::gnu;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{BufRead, BufReader, IsTerminal};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long hashing runs before the bar appears: a bar is worth its
/// noise only for work that takes seconds.
pub const DELAY: Duration = Duration::from_secs(1);

/// What the inputs are, for their sizes.
#[derive(Clone, Copy)]
pub enum Sizes {
    /// Files to hash.
    Files,
    /// `--check` lists, whose lines name the files.
    Lists,
}

/// The bar, or nothing at all when it is off.
pub struct Progress {
    bar: Option<Bar>,
}

struct Bar {
    bar: ProgressBar,
    start: Instant,
    shown: AtomicBool,
    stdout_is_terminal: bool,
    /// The sizing thread, and the flag that stops it.
    sizer: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
}

impl Progress {
    /// No bar.
    pub fn off() -> Progress {
        Progress { bar: None }
    }

    /// A bar, hidden for now, for `inputs` (`-`: standard input).
    pub fn start(inputs: &[&[u8]], sizes: Sizes) -> Progress {
        let known = !inputs.contains(&&b"-"[..]);
        let bar = ProgressBar::with_draw_target(known.then_some(0), ProgressDrawTarget::hidden());
        let template = if known {
            "{spinner} {binary_bytes}/{binary_total_bytes} [{bar:30}] {binary_bytes_per_sec}, {eta} left"
        } else {
            "{spinner} {binary_bytes} hashed, {binary_bytes_per_sec}, {elapsed}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let sizer = known.then(|| {
            let names: Vec<Vec<u8>> = inputs.iter().map(|n| n.to_vec()).collect();
            let (bar, stop) = (bar.clone(), Arc::clone(&stop));
            std::thread::spawn(move || size(&names, sizes, &bar, &stop))
        });
        Progress {
            bar: Some(Bar {
                bar,
                start: Instant::now(),
                shown: AtomicBool::new(false),
                stdout_is_terminal: std::io::stdout().is_terminal(),
                sizer: Mutex::new(sizer),
                stop,
            }),
        }
    }

    /// `n` more bytes hashed.
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.bar.inc(n);
            self.poll();
        }
    }

    /// Shows the bar if hashing has taken long enough.
    pub fn poll(&self) {
        let Some(b) = &self.bar else {
            return;
        };
        if b.shown.load(Ordering::Relaxed) || b.start.elapsed() < DELAY {
            return;
        }
        if !b.shown.swap(true, Ordering::Relaxed) {
            b.bar.set_draw_target(ProgressDrawTarget::stderr());
            // Redrawn while a long file holds the count still, so that
            // rate and time left stay current.
            b.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    /// Runs `f`, which writes to standard output, with the bar off the
    /// screen if both are on the same terminal.
    pub fn around_stdout<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) if b.stdout_is_terminal && b.shown.load(Ordering::Relaxed) => b.bar.suspend(f),
            _ => f(),
        }
    }

    /// Runs `f`, which writes to standard error, with the bar off the
    /// screen.
    pub fn around_stderr<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) if b.shown.load(Ordering::Relaxed) => b.bar.suspend(f),
            _ => f(),
        }
    }

    /// Stops the sizing and clears the bar for good.
    pub fn finish(&self) {
        let Some(b) = &self.bar else {
            return;
        };
        b.stop.store(true, Ordering::Relaxed);
        let sizer = b
            .sizer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(sizer) = sizer {
            // It stops at its next name; a panic there only cost the total.
            let _ = sizer.join();
        }
        b.bar.finish_and_clear();
    }
}

/// Adds the sizes of the files `names` (or named in the lists `names`)
/// to the bar's length, until `stop`.
fn size(names: &[Vec<u8>], sizes: Sizes, bar: &ProgressBar, stop: &AtomicBool) {
    let mut total = Total {
        bar,
        bytes: 0,
        files: 0,
    };
    let mut layout = gnu::Layout::Unknown;
    for name in names {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match sizes {
            Sizes::Files => total.add(name),
            Sizes::Lists => {
                // Regular files only: a list on a pipe or a FIFO (`-c
                // <(...)`) is read once, by the checker; reading it here
                // too would take lines from it.
                let path = std::ffi::OsStr::from_bytes(name);
                if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                    continue;
                }
                let Ok(f) = std::fs::File::open(path) else {
                    continue;
                };
                if !f.metadata().is_ok_and(|m| m.is_file()) {
                    continue;
                }
                for line in BufReader::new(f).split(b'\n') {
                    let Ok(line) = line else {
                        break;
                    };
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let text = line.strip_suffix(b"\r").unwrap_or(&line);
                    if text.first() == Some(&b'#') {
                        continue;
                    }
                    if let Some(entry) = gnu::parse_line(text, &mut layout) {
                        total.add(&entry.name);
                    }
                }
            }
        }
    }
    bar.inc_length(total.bytes);
}

/// Sizes not yet added to the bar.
struct Total<'a> {
    bar: &'a ProgressBar,
    bytes: u64,
    files: u64,
}

impl Total<'_> {
    fn add(&mut self, name: &[u8]) {
        if let Ok(m) = std::fs::metadata(std::ffi::OsStr::from_bytes(name)) {
            if m.is_file() {
                self.bytes += m.len();
            }
        }
        self.files += 1;
        // In steps, so that the total is about right early without taking
        // the bar's lock for every file.
        if self.files.is_multiple_of(256) {
            self.bar.inc_length(std::mem::take(&mut self.bytes));
        }
    }
}
