//! `fastcrypt rc4`: RC4 or RC4-drop\[n\] over a file or a pipe, in constant
//! memory (one 64 KiB buffer, whatever the input's size).
//!
//! The order of work: the arguments are checked (key, backend, the
//! `--drop` bound), then the input and the output are opened and checked
//! against each other, and only then is the keystream dropped and the
//! data streamed, so every refusal comes before any long work.
//!
//! With `-o`, a regular OUT (or a new one) is written through a temporary
//! file beside it, renamed over it only once everything was written and
//! synced: an existing OUT is never truncated or left half-written, and a
//! failed or interrupted run leaves no temporary file behind. Anything
//! else (a device, a FIFO, a terminal) is written in place, since
//! renaming over it would replace it with a regular file; so is a
//! descriptor of the process that OUT names through /proc/self/fd/N
//! (`/dev/stderr`), which keeps the shell's `2>> log` appending.

mod output;
mod signals;

use fastcrypt::rc4::{Backend, Rc4, MAX_KEY_LEN, MIN_KEY_LEN};
use output::Output;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::path::PathBuf;

/// Bytes read, encrypted and written per step.
const CHUNK: usize = 64 * 1024;

/// The largest `--drop`: 2^40 bytes (1 TiB) of keystream, minutes of
/// work. Ordinary drops are a few KiB; a larger one is only useful to
/// start deep inside a stream, and a mistyped huge one would otherwise
/// run for years before doing anything.
const MAX_DROP: u64 = 1 << 40;

const AFTER_LONG_HELP: &str = "\
Output (-o OUT):
  A regular file, or a path that does not exist yet, is written through a
  temporary file in the directory of the real file (symbolic links are
  followed, and stay links), renamed over it once all was written: OUT is
  never left half-written, and an error, SIGINT/SIGTERM/SIGHUP, SIGALRM,
  SIGXCPU, SIGVTALRM, SIGPROF or SIGUSR1/2 removes the temporary (past
  `ulimit -f` the write fails with \"File too large\"). The temporary is
  readable by its owner only; the new OUT keeps the old one's mode (and,
  as root, its owner), a new OUT gets 0666 minus the umask. Other hard
  links to the old OUT keep the old content. An existing OUT the caller
  may not write is refused (\"Permission denied\"), as `> OUT` would be.
  A device, FIFO or terminal (e.g. /dev/null) is opened and written in
  place, never replaced. A name that leads to a descriptor of the process
  (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written
  through that descriptor: `-o /dev/stderr 2>> log` appends; a closed one
  is a write error. Any other path to a regular file is replaced, even
  if standard output is open on it. A directory or a socket is refused
  before any input is read.

Input and output the same file:
  -i/stdin and -o naming the same file (by any path, link or hard link),
  or the same FIFO, pipe or block device, is refused. Without -o,
  standard output that is the input's regular file is refused if the
  file is not empty or is opened for appending (`-i g >> g`,
  `< g 1<> g`): \"input file is output file\", as GNU cat. Only
  `< g > g`, which the shell has already emptied, runs (and writes
  nothing).

Limits: --drop is at most 2^40 (1099511627776). The arguments are checked
first, then the input and output are opened, then the work starts.

Errors: one line on standard error, exit status 1. A failed write to
standard output (a closed descriptor, a full disk) is reported as
\"write error: ...\"; a closed pipe ends the process quietly by SIGPIPE.";

/// `fastcrypt rc4 (--key HEX | --key-file FILE) [--drop N] [-i IN] [-o OUT]`
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("key_source").required(true).args(["key", "key_file"])))]
#[command(after_long_help = AFTER_LONG_HELP)]
pub struct Args {
    /// The key as hex digits (1 to 256 bytes). Other users may see it in
    /// `ps` and it stays in shell history: prefer --key-file for a real
    /// key.
    #[arg(long, value_name = "HEX")]
    key: Option<String>,
    /// A file holding the raw key bytes (1 to 256 bytes, no encoding:
    /// `echo 0102 > k` makes the 5-byte key `0102` and a newline; write
    /// it with `printf '\x01\x02' > k` or `xxd -r -p`).
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// Discard the first N keystream bytes, N at most 2^40: RC4-drop[N]
    /// (BitTorrent's message stream encryption uses 1024).
    #[arg(long, value_name = "N", default_value_t = 0)]
    drop: u64,
    /// Read from IN instead of standard input.
    #[arg(short = 'i', long = "input", value_name = "IN")]
    input: Option<PathBuf>,
    /// Write to OUT instead of standard output: a regular file is replaced
    /// through a temporary, a device or FIFO written in place (--help).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Backend to use (default: the fastest this CPU runs); see
    /// `fastcrypt cpu`.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
}

pub fn run(args: Args) -> Result<(), String> {
    // 1. The arguments.
    if args.drop > MAX_DROP {
        return Err(format!(
            "rc4: --drop {} is more than the limit, 2^40 ({MAX_DROP})",
            args.drop
        ));
    }
    let key = match (&args.key, &args.key_file) {
        (Some(hex), _) => crate::hex::decode(hex).map_err(|e| format!("rc4: --key: {e}"))?,
        (None, Some(path)) => read_key_file(path)?,
        (None, None) => return Err("rc4: give --key HEX or --key-file FILE".into()),
    };
    if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&key.len()) {
        return Err(format!(
            "rc4: the key is {} bytes; RC4 keys are {MIN_KEY_LEN} to {MAX_KEY_LEN} bytes",
            key.len()
        ));
    }
    let mut cipher = match &args.backend {
        None => Rc4::new(&key).map_err(|e| format!("rc4: {e}"))?,
        Some(name) => {
            let b: Backend = name.parse().map_err(|e| format!("rc4: {e}"))?;
            Rc4::with_backend(b, &key).map_err(|e| format!("rc4: {e}"))?
        }
    };

    // 2. The input, then the output: an unreadable input fails before any
    // output file is created.
    let in_name = args
        .input
        .as_ref()
        .map_or_else(|| "standard input".to_string(), |p| p.display().to_string());
    if let (Some(i), Some(o)) = (&args.input, &args.output) {
        output::refuse_same_paths(i, o)?;
    }
    let input = match &args.input {
        Some(path) => File::open(path).map_err(|e| cannot("open", &in_name, &e))?,
        None if crate::stdio::was_closed(0) => {
            return Err(cannot(
                "read",
                &in_name,
                &io::Error::from_raw_os_error(libc::EBADF),
            ))
        }
        None => io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .map_err(|e| cannot("read", &in_name, &e))?,
    };
    let in_meta = input.metadata().map_err(|e| cannot("stat", &in_name, &e))?;
    if in_meta.is_dir() {
        return Err(format!("rc4: cannot read {in_name}: Is a directory"));
    }
    let mut out = match &args.output {
        None => Output::stdout(&in_meta, &in_name)?,
        Some(path) => Output::path(path, &in_meta, &in_name)?,
    };

    // 3. The work.
    cipher.skip(args.drop);
    stream(&mut cipher, input, &in_name, &mut out)?;
    out.finish()
}

/// `rc4: cannot VERB NAME: REASON`, the form of every I/O error this
/// command reports, with the reason worded as C tools word it (no
/// "(os error N)").
fn cannot(verb: &str, name: impl std::fmt::Display, e: &io::Error) -> String {
    format!("rc4: cannot {verb} {name}: {}", crate::stdio::os_message(e))
}

/// The key file's bytes, reading no more than one byte past the longest
/// key, so that `--key-file /dev/zero` is refused rather than read
/// forever.
fn read_key_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let name = format!("key file {}", path.display());
    let file = File::open(path).map_err(|e| cannot("read", &name, &e))?;
    let mut key = Vec::new();
    (&file)
        .take(MAX_KEY_LEN as u64 + 1)
        .read_to_end(&mut key)
        .map_err(|e| cannot("read", &name, &e))?;
    if key.len() > MAX_KEY_LEN {
        let size = match file.metadata() {
            Ok(m) if m.is_file() => format!("{} bytes", m.len()),
            _ => format!("more than {MAX_KEY_LEN} bytes"),
        };
        return Err(format!(
            "rc4: the key file holds {size}; RC4 keys are {MIN_KEY_LEN} to {MAX_KEY_LEN} bytes"
        ));
    }
    Ok(key)
}

/// Reads `input` to its end, applies the keystream and writes the result,
/// one `CHUNK` at a time.
fn stream(
    cipher: &mut Rc4,
    mut input: impl Read,
    in_name: &str,
    out: &mut Output,
) -> Result<(), String> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot("read", in_name, &e)),
        };
        cipher.apply_keystream(&mut buf[..n]);
        out.write_all(&buf[..n])?;
    }
}
