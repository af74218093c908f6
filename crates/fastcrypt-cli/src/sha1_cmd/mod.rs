//! `fastcrypt sha1`: SHA-1 of files, and `--check` of lists of digests,
//! behaving as GNU coreutils' `sha1sum` (9.1) does: the same options,
//! line formats, name escaping, messages on stdout and stderr, warnings
//! and exit status (the compatibility test, tests/sha1_gnu_compat.rs,
//! runs both). File names are raw bytes, so names that are not UTF-8
//! work; `-` (or no file) is standard input.
//!
//! Files are hashed on a pool of threads (`-j`, one per core by default;
//! see [`pool`]), and every result is printed in argument order, after
//! everything the inputs before it printed: stdout and stderr read as a
//! one-file-at-a-time run's, byte for byte. Small files are read whole and
//! hashed in batches by the multi-buffer kernels ([`Sha1Many`]); large
//! files, standard input and anything that is not a regular file are
//! streamed in 256 KiB reads, so memory stays bounded for any input.
//! `-j 1` is that one-at-a-time run itself, all streamed, no threads.
//! `--pieces` prints BitTorrent-style piece digests instead ([`pieces`]).
//!
//! One deliberate addition: collision detection, on by default (off with
//! `--no-detect`, which is plain `sha1sum`). Inputs are hashed with
//! [`Sha1Dc`]; a file that is part of a collision attack gets Debian's
//! `sha1cdsum` line (`HEX *coll* NAME`, HEX its safe hash), a reason on
//! stderr and, unlike `sha1cdsum`, exit status 1; in `--check` it is
//! `NAME: FAILED collision attack`, counted in `WARNING: N collisions
//! were detected`, even when the listed digest matches.

mod check;
mod getopt;
mod gnu;
mod out;
mod pieces;
mod pool;
mod progress;

use clap::{ArgMatches, Command, FromArgMatches};
use fastcrypt::sha1::many::{self, Sha1Many};
use fastcrypt::sha1::{Backend, Collision, DcConfig, Sha1, Sha1Dc};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::num::NonZeroUsize;
use std::os::unix::ffi::OsStrExt;

use crate::Failure;
use out::{Out, Sink};
use pool::{Pipeline, Work};
use progress::Progress;

/// The options as clap parses them; [`Args`] adds the order in which the
/// overriding ones were given, which GNU's semantics depend on. The
/// default is what clap makes of a command line without options (a test
/// checks it).
#[derive(clap::Args, Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Raw {
    /// Files to hash, or with --check, lists to check (`-` or none:
    /// standard input).
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
    /// Read in binary mode: mark lines with `*` (no difference in the
    /// digest on Unix).
    // `--b` is `--binary`, as in sha1sum, not a prefix shared with
    // `--backend` (an exact alias wins over prefixes).
    #[arg(short, long, alias = "b", action = clap::ArgAction::SetTrue, overrides_with = "binary")]
    binary: bool,
    /// Read checksums from the FILEs and check them.
    #[arg(short, long, action = clap::ArgAction::SetTrue, overrides_with = "check")]
    check: bool,
    /// Write BSD-style lines: `SHA1 (FILE) = HEX`.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "tag")]
    tag: bool,
    /// Read in text mode (the default).
    #[arg(short, long, action = clap::ArgAction::SetTrue, overrides_with = "text")]
    text: bool,
    /// End each output line with NUL, not newline, and disable file name
    /// escaping.
    #[arg(short, long, action = clap::ArgAction::SetTrue, overrides_with = "zero")]
    zero: bool,
    /// With --check: don't fail or report status for missing files.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "ignore_missing")]
    ignore_missing: bool,
    /// With --check: don't print OK for each successfully verified file.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "quiet")]
    quiet: bool,
    /// With --check: don't output anything, the exit status shows success.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "status")]
    status: bool,
    /// With --check: exit non-zero for improperly formatted checksum lines.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "strict")]
    strict: bool,
    /// With --check: warn about improperly formatted checksum lines.
    #[arg(short, long, action = clap::ArgAction::SetTrue, overrides_with = "warn")]
    warn: bool,
    /// One-stream backend to use (default: the fastest this CPU runs);
    /// see `fastcrypt cpu`. fastcrypt's own option, not in sha1sum.
    ///
    /// It hashes large files and standard input and, unless --lanes is
    /// also given, small files and --pieces too, one stream each.
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    backend: Option<Backend>,
    /// Multi-buffer backend for the batches of small files and for
    /// --pieces: portable, avx2, shani or avx512 (default: the fastest
    /// this CPU runs). fastcrypt's own option.
    #[arg(long, value_name = "NAME", value_parser = parse_lanes)]
    lanes: Option<many::Backend>,
    /// Hash with N threads (default: one per core); `-j 1` hashes one
    /// file after another, streamed. Output is in argument order either
    /// way. fastcrypt's own option.
    #[arg(short, long, value_name = "N", value_parser = parse_jobs)]
    jobs: Option<NonZeroUsize>,
    /// Print one plain SHA-1 per SIZE-byte piece of FILE (BitTorrent v1
    /// piece hashes), as `OFFSET HEX` lines. SIZE in bytes or with a K,
    /// M or G suffix (1K = 1024). fastcrypt's own option.
    #[arg(long, value_name = "SIZE", value_parser = pieces::parse_size)]
    pieces: Option<usize>,
    /// Never show the progress bar (shown otherwise on a terminal's
    /// standard error once hashing has taken a second). fastcrypt's own
    /// option.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "no_progress")]
    no_progress: bool,
    /// Plain SHA-1, as sha1sum: no collision detection, no `*coll*`
    /// lines. fastcrypt's own option.
    ///
    /// Without it, every input is hashed with collision-detecting SHA-1
    /// (see below); the digests are the same for all data that is not
    /// part of a collision attack.
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "no_detect")]
    no_detect: bool,
    /// Also detect collisions of reduced-round SHA-1: a testing aid for
    /// the detector, not an attack on SHA-1 itself. fastcrypt's own option.
    ///
    /// Reports, and changes the digest of, data such as the reference
    /// library's test file sha1_reducedsha_coll.bin, whose blocks collide
    /// only in a reduced-round SHA-1 (it turns on the reference's
    /// `SHA1DCSetDetectReducedRoundCollision`).
    #[arg(long, action = clap::ArgAction::SetTrue, overrides_with = "reduced_round")]
    reduced_round: bool,
}

const AFTER_HELP: &str = "\
Output lines are `HEX  FILE` (`HEX *FILE` with --binary) or, with --tag, \
`SHA1 (FILE) = HEX`. A name holding a backslash, newline or carriage return \
is written escaped (`\\\\`, `\\n`, `\\r`) on a line that starts with `\\`, so \
the list can be checked again; --zero writes names raw instead.

Collision detection (on unless --no-detect): inputs are hashed with \
collision-detecting SHA-1 (sha1dc, Stevens and Shumow's, as git uses), \
which recognises the blocks of the known SHA-1 collision attacks \
(SHAttered, SHAMBLES). Data without an attack gets its plain SHA-1. A file \
found to be part of an attack gets the line Debian's sha1cdsum prints, \
`HEX *coll* FILE` (`SHA1 (FILE) = *coll* HEX` with --tag), with HEX its \
safe hash (not its SHA-1: colliding files no longer collide), and a reason \
on standard error: `fastcrypt: FILE: SHA-1 collision attack in the block \
at byte N (disturbance vector II(52,0)); the digest printed is the safe \
hash`. The other files are still hashed, and the exit status is 1 \
(sha1cdsum exits 0).

--check reads both formats, also mixed, escaped lines, CRLF line ends, \
lines starting with `#` (ignored) and sha1cdsum's `*coll*` mark (not part \
of the name). Improperly formatted lines are skipped (counted in a \
warning; --strict makes them fail). `FILE: OK` and `FILE: FAILED` go to \
standard output; reasons and warnings to standard error. With detection, \
the listed digest is compared with the one computed (the safe hash for \
attack data, so lists from sha1cdsum or from this command verify), and a \
file found to be part of an attack fails even when its digest matches: \
`FILE: FAILED collision attack`, the reason on standard error and, at the \
end, `WARNING: N collisions were detected`. --quiet still prints those; \
--status prints nothing (the exit status tells). With --no-detect the \
plain SHA-1 is compared, so a `*coll*` line's safe hash does not match. \
One ambiguity comes with sha1cdsum's mark: a binary-mode line (-b) for a \
file whose name starts with `coll* ` reads as a marked line for the rest \
of the name; rename such a file, or list it with --tag.

Parallel hashing (fastcrypt's own): files are hashed on -j N threads \
(default: one per core) and printed in argument order, exactly as one \
file after another would print them, errors included. Files of at most \
1 MiB are read whole and hashed in batches (up to 256 files or 4 MiB per \
thread) by the multi-buffer kernels, several messages at once \
(--lanes); larger files and block devices are streamed in 256 KiB reads \
(--backend), each on one thread. Standard input, and inputs that others \
may read or feed too (FIFOs, sockets, character devices such as a \
terminal or /dev/stdin), are read in their turn, one after another, as \
without threads. -j 1 hashes one file after another, all streamed. Memory \
stays bounded: about N times 5 MiB.

Progress: when standard error is a terminal, a bar (bytes done of the \
total, rate, time left) appears once hashing has taken a second, and is \
cleared at the end; never when standard error is a pipe or a file, nor \
while standard input is a terminal being read. --no-progress turns it \
off.

--pieces SIZE [FILE]: BitTorrent v1 piece hashes of FILE (or standard \
input): one line per consecutive SIZE-byte piece, the last one shorter \
if the length is not a multiple, as `OFFSET HEX`: the piece's starting \
byte offset in decimal, one space, its SHA-1 in lowercase hex (`0 HEX`, \
`262144 HEX`, ...); an empty file has no pieces and prints nothing. SIZE \
is a number of bytes, optionally with a binary suffix K, M or G (also \
KiB, MiB, GiB; 256K = 262144). Pieces are plain SHA-1, as BitTorrent \
defines them: collision detection does not apply to them. One FILE only \
(not with --check, --tag, --binary or --text); -z ends the lines with \
NUL. The file is read in chunks of whole pieces, about 8 MiB per thread \
(at most 64 MiB or 65536 pieces), each hashed by the multi-buffer kernels \
on the -j threads while the next one is read; pieces larger than 64 MiB \
are streamed one at a time. After a read error, the \
pieces before it are printed, then the error, and the exit status is 1.

Exit status: 0 when every file was hashed and none is part of a collision \
attack or, with --check, when at least one listed file matched and none \
failed (an attack is a failure); 1 otherwise, and on usage errors.

SHA-1 is broken for collision resistance: use it for interoperability.";

/// The `sha1` subcommand's options, with GNU's last-one-wins rules for
/// `-b`/`-t`/`--tag` and `--status`/`--warn`/`--quiet` already applied.
pub struct Args {
    raw: Raw,
    /// `-b`, `-t` or `--tag`, whichever came last, as GNU's `binary`
    /// variable: `Some(true)` binary, `Some(false)` text, `None` unset.
    binary: Option<bool>,
    /// `--status`, `--warn` or `--quiet`, whichever came last.
    verbosity: Option<Verbosity>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Status,
    Warn,
    Quiet,
}

impl Args {
    /// The arguments after `sha1` when they are operands only (no word
    /// that starts with `-`, except `-` itself, standard input): the
    /// [`Args`] clap makes of them, without building clap's parser. That
    /// is the common command line, `fastcrypt sha1 FILE...`, and its
    /// start-up is most of the time of a one-file run: building the
    /// parser of every command and option cost ~0.12 ms of the ~1 ms a
    /// one-file run takes (measured in the process on an AMD EPYC Zen 4;
    /// skipping it saved 0.11 ms of 1.84 on an Intel Xeon, Emerald
    /// Rapids, 400 interleaved runs).
    /// Anything else, `--` included, is clap's.
    pub fn operands_only(rest: &[OsString]) -> Option<Args> {
        let operand = |a: &OsString| a == "-" || !a.as_bytes().starts_with(b"-");
        rest.iter().all(operand).then(|| Args {
            raw: Raw {
                files: rest.to_vec(),
                ..Raw::default()
            },
            binary: None,
            verbosity: None,
        })
    }
}

/// The position of an option's last occurrence on the command line.
/// Flags that were not given still have a (default) value, and an index.
fn last_index(m: &ArgMatches, id: &str) -> Option<usize> {
    if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
        return None;
    }
    m.indices_of(id).and_then(|i| i.max())
}

/// Of the options `ids` (with their meaning), the one given last.
fn last_of<T: Copy>(m: &ArgMatches, ids: &[(&str, T)]) -> Option<T> {
    ids.iter()
        .filter_map(|&(id, v)| last_index(m, id).map(|i| (i, v)))
        .max_by_key(|&(i, _)| i)
        .map(|(_, v)| v)
}

impl FromArgMatches for Args {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(Args {
            raw: Raw::from_arg_matches(m)?,
            binary: last_of(m, &[("binary", true), ("text", false), ("tag", true)]),
            verbosity: last_of(
                m,
                &[
                    ("status", Verbosity::Status),
                    ("warn", Verbosity::Warn),
                    ("quiet", Verbosity::Quiet),
                ],
            ),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Args::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: Command) -> Command {
        // getopt_long, as GNU uses it, takes any unambiguous prefix of a
        // long option (`sha1sum -c --stat f`); `--version` as sha1sum's.
        <Raw as clap::Args>::augment_args(cmd)
            .after_long_help(AFTER_HELP)
            .infer_long_args(true)
            .version(env!("CARGO_PKG_VERSION"))
            .disable_version_flag(true)
            .arg(version_flag())
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        <Raw as clap::Args>::augment_args_for_update(cmd)
            .after_long_help(AFTER_HELP)
            .infer_long_args(true)
            .version(env!("CARGO_PKG_VERSION"))
            .disable_version_flag(true)
            .arg(version_flag())
    }
}

/// `--version`, long only: sha1sum has no `-V` (clap's own flag adds
/// one).
fn version_flag() -> clap::Arg {
    clap::Arg::new("version")
        .long("version")
        .action(clap::ArgAction::Version)
        .help("Print version")
}

/// GNU's option checks, in GNU's order, with its wording.
fn usage_check(a: &Args) -> Result<(), String> {
    let r = &a.raw;
    let check = r.check;
    let is = |v| a.verbosity == Some(v);
    let problem = if r.tag && a.binary == Some(false) {
        Some("--tag does not support --text mode")
    } else if r.zero && check {
        Some("the --zero option is not supported when verifying checksums")
    } else if r.tag && check {
        Some("the --tag option is meaningless when verifying checksums")
    } else if a.binary.is_some() && check {
        Some("the --binary and --text options are meaningless when verifying checksums")
    } else if r.ignore_missing && !check {
        Some("the --ignore-missing option is meaningful only when verifying checksums")
    } else if is(Verbosity::Status) && !check {
        Some("the --status option is meaningful only when verifying checksums")
    } else if is(Verbosity::Warn) && !check {
        Some("the --warn option is meaningful only when verifying checksums")
    } else if is(Verbosity::Quiet) && !check {
        Some("the --quiet option is meaningful only when verifying checksums")
    } else if r.strict && !check {
        Some("the --strict option is meaningful only when verifying checksums")
    } else if r.reduced_round && r.no_detect {
        Some("the --reduced-round option is meaningless with --no-detect")
    } else if r.pieces.is_some() && check {
        Some("the --pieces option is meaningless when verifying checksums")
    } else if r.pieces.is_some() && a.binary.is_some() {
        Some("the --tag, --binary and --text options are meaningless with --pieces")
    } else if r.pieces.is_some() && r.reduced_round {
        Some("the --reduced-round option is meaningless with --pieces (pieces are plain SHA-1)")
    } else if r.pieces.is_some() && r.files.len() > 1 {
        Some("the --pieces option takes one FILE")
    } else {
        None
    };
    match problem {
        Some(p) => Err(format!("{p}\n{TRY_HELP}")),
        None => Ok(()),
    }
}

/// The line after every usage error, as GNU's `Try 'sha1sum --help' ...`.
const TRY_HELP: &str = "Try 'fastcrypt sha1 --help' for more information.";

/// The message for a command line clap refused, in `sha1sum`'s words
/// when `getopt_long` would refuse it too (`fastcrypt: unrecognized
/// option '--bogus'` and the `Try` line); `None` leaves clap's message.
/// `cmd` is the built `sha1` subcommand, `args` what follows `sha1`.
pub fn usage_error(cmd: &Command, args: &[OsString]) -> Option<String> {
    getopt::rejected(cmd, args).map(|why| format!("fastcrypt: {why}\n{TRY_HELP}"))
}

/// `--backend`: a one-stream backend this CPU runs.
fn parse_backend(s: &str) -> Result<Backend, String> {
    let b: Backend = s
        .parse()
        .map_err(|e: fastcrypt::UnknownBackend| e.to_string())?;
    Sha1::with_backend(b).map_err(|e| e.to_string())?;
    Ok(b)
}

/// `--lanes`: a multi-buffer backend this CPU runs.
fn parse_lanes(s: &str) -> Result<many::Backend, String> {
    let b: many::Backend = s
        .parse()
        .map_err(|e: fastcrypt::UnknownBackend| e.to_string())?;
    Sha1Many::with_backend(b).map_err(|e| e.to_string())?;
    Ok(b)
}

/// The most threads `-j` takes: far more than any machine's cores, few
/// enough that starting them cannot exhaust memory or the OS's limits.
const MAX_JOBS: usize = 1024;

/// `-j`: a thread count from 1 to [`MAX_JOBS`].
fn parse_jobs(s: &str) -> Result<NonZeroUsize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("invalid thread count '{s}' for -j/--jobs"))?;
    if n > MAX_JOBS {
        return Err(format!("-j/--jobs takes at most {MAX_JOBS} threads"));
    }
    NonZeroUsize::new(n).ok_or_else(|| "-j/--jobs needs at least 1 thread".to_string())
}

/// How files are hashed: the backends, and whether (and how) collision
/// attacks are detected.
#[derive(Clone, Copy)]
pub struct Hashing {
    /// The forced one-stream backend, or `None` for the fastest.
    pub backend: Option<Backend>,
    /// The detector's switches, or `None` for plain SHA-1 (`--no-detect`).
    pub detect: Option<DcConfig>,
    /// The multi-buffer hasher for whole small files and pieces, or
    /// `None` when `--backend` was forced without `--lanes`: the user
    /// asked for that one kernel, so every message is one stream on it.
    pub many: Option<Sha1Many>,
}

/// A hasher of either kind.
enum Hasher {
    Plain(Sha1),
    Detecting(Sha1Dc),
}

/// What hashing one input gave: its digest (the safe hash when an attack
/// was detected) and the first block found to be part of an attack.
pub struct Hashed {
    pub digest: [u8; 20],
    pub collision: Option<Collision>,
}

impl Hashing {
    /// A fresh hasher, or why the backend cannot run here.
    fn hasher(&self) -> Result<Hasher, String> {
        let unsupported = |e: fastcrypt::Unsupported| e.to_string();
        Ok(match (self.detect, self.backend) {
            (None, Some(b)) => Hasher::Plain(Sha1::with_backend(b).map_err(unsupported)?),
            (None, None) => Hasher::Plain(Sha1::new()),
            (Some(c), Some(b)) => {
                Hasher::Detecting(Sha1Dc::with_backend(b).map_err(unsupported)?.with_config(c))
            }
            (Some(c), None) => Hasher::Detecting(Sha1Dc::new().with_config(c)),
        })
    }

    /// What each of `msgs`, a whole input each, hashes to, in order: the
    /// same as streaming them one by one would give.
    fn hash_many(&self, msgs: &[&[u8]]) -> Vec<io::Result<Hashed>> {
        match (self.many, self.detect) {
            (Some(m), Some(c)) => m
                .digest_many_dc(msgs, c)
                .into_iter()
                .map(|d| {
                    Ok(Hashed {
                        digest: d.digest,
                        collision: d.collision,
                    })
                })
                .collect(),
            (Some(m), None) => m
                .digest_many(msgs)
                .into_iter()
                .map(|digest| {
                    Ok(Hashed {
                        digest,
                        collision: None,
                    })
                })
                .collect(),
            (None, _) => msgs
                .iter()
                .map(|m| {
                    let mut h = self.hasher().map_err(io::Error::other)?;
                    h.update(m);
                    Ok(h.finalize())
                })
                .collect(),
        }
    }
}

impl Hasher {
    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Plain(h) => h.update(data),
            Hasher::Detecting(h) => h.update(data),
        }
    }

    fn finalize(self) -> Hashed {
        match self {
            Hasher::Plain(h) => Hashed {
                digest: h.finalize(),
                collision: None,
            },
            Hasher::Detecting(h) => {
                let d = h.finalize();
                Hashed {
                    digest: d.digest,
                    collision: d.collision,
                }
            }
        }
    }
}

/// The size of one read when streaming.
const READ_LEN: usize = 256 * 1024;

/// Feeds the rest of `r` to `h`, reading into `buf`.
fn hash_stream(
    mut h: Hasher,
    mut r: impl Read,
    buf: &mut [u8],
    progress: &Progress,
) -> io::Result<Hashed> {
    loop {
        match r.read(buf) {
            Ok(0) => return Ok(h.finalize()),
            Ok(n) => {
                h.update(&buf[..n]);
                progress.inc(n as u64);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn hash_reader(r: impl Read, how: Hashing, progress: &Progress) -> io::Result<Hashed> {
    let h = how.hasher().map_err(io::Error::other)?;
    hash_stream(h, r, &mut vec![0u8; READ_LEN], progress)
}

/// Standard input as GNU sees it: a descriptor closed at start-up
/// (`<&-`), which Rust's runtime reopened on /dev/null, fails with
/// EBADF, not as an empty input.
fn stdin() -> io::Result<io::StdinLock<'static>> {
    if crate::stdio::was_closed(0) {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    Ok(io::stdin().lock())
}

/// The digest of a file or, for `-`, of standard input, streamed. A
/// directory opens and then fails to read with EISDIR, the error GNU
/// reports.
fn hash_path(name: &[u8], how: Hashing, progress: &Progress) -> io::Result<Hashed> {
    if name == b"-" {
        hash_reader(stdin()?, how, progress)
    } else {
        hash_reader(open(name)?, how, progress)
    }
}

fn open(name: &[u8]) -> io::Result<File> {
    File::open(std::ffi::OsStr::from_bytes(name))
}

/// Prints `fastcrypt: NAME: REASON` to stderr, NAME quoted as GNU does.
fn report(sink: &Sink<'_>, name: &[u8], e: &io::Error) {
    report_reason(sink, name, &crate::stdio::os_message(e));
}

/// [`report`] with a reason of our own.
fn report_reason(sink: &Sink<'_>, name: &[u8], reason: &str) {
    sink.say(format_args!("{}: {reason}", gnu::quotef(name)));
}

/// One thread per core, as the OS reports what this process may use.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_JOBS))
}

pub fn run(args: Args) -> Result<(), Failure> {
    usage_check(&args)?;
    let r = &args.raw;
    let how = Hashing {
        backend: r.backend,
        detect: (!r.no_detect).then_some(DcConfig {
            reduced_round: r.reduced_round,
            ..DcConfig::default()
        }),
        many: match (r.lanes, r.backend) {
            (Some(l), _) => Some(Sha1Many::with_backend(l).map_err(|e| e.to_string())?),
            (None, Some(_)) => None,
            (None, None) => Some(Sha1Many::new()),
        },
    };
    // Refuse an unavailable backend once, up front, with the reason.
    how.hasher()?;
    let files: Vec<&[u8]> = if r.files.is_empty() {
        vec![b"-"]
    } else {
        r.files.iter().map(|f| f.as_bytes()).collect()
    };
    let reads_stdin = files.contains(&&b"-"[..]);
    // GNU closes standard input at the end when it read from it, and a
    // descriptor closed at start-up (`<&-`) fails that close too.
    let read_closed_stdin = crate::stdio::was_closed(0) && reads_stdin;
    // One file to hash is hashed on this thread: asking the OS for the
    // core count (cgroup files) would cost a tenth of a millisecond, as
    // much as the rest of the start-up of `fastcrypt sha1 FILE`.
    let jobs = match r.jobs {
        Some(n) => n.get(),
        None if files.len() == 1 && r.pieces.is_none() && !r.check => 1,
        None => default_jobs(),
    };
    // Before anything else opens a file (the progress bar's sizing may).
    let out = Out::stdout();
    // A bar over what someone is typing would garble it.
    let progress = if !r.no_progress
        && io::stderr().is_terminal()
        && !(reads_stdin && io::stdin().is_terminal())
    {
        let sizes = if r.check {
            progress::Sizes::Lists
        } else {
            progress::Sizes::Files
        };
        Progress::start(&files, sizes)
    } else {
        Progress::off()
    };
    let mut sink = Sink {
        out,
        progress: &progress,
    };
    let mut ok = if let Some(size) = r.pieces {
        pieces::run(files[0], size, how, jobs, r.zero, &mut sink)
    } else if r.check {
        let opts = check::Options {
            status: args.verbosity == Some(Verbosity::Status),
            warn: args.verbosity == Some(Verbosity::Warn),
            quiet: args.verbosity == Some(Verbosity::Quiet),
            strict: r.strict,
            ignore_missing: r.ignore_missing,
        };
        pool::run(jobs, how, &progress, |pipe| {
            check::check_lists(&files, &opts, pipe, &mut sink)
        })
    } else {
        let binary = args.binary.unwrap_or(false);
        let format = |name: &[u8], h: &Hashed| {
            let hex = crate::hex::encode(&h.digest);
            match h.collision {
                None => gnu::hash_line(name, &hex, binary, r.tag, r.zero),
                Some(_) => gnu::collision_line(name, &hex, r.tag, r.zero),
            }
        };
        // No more threads than files: one file is hashed on this thread.
        let jobs = jobs.min(files.len());
        pool::run(jobs, how, &progress, |pipe| {
            hash_files(&files, format, pipe, &mut sink)
        })
    };
    progress.finish();
    if read_closed_stdin {
        sink.say(format_args!("standard input: Bad file descriptor"));
        ok = false;
    }
    sink.out
        .finish()
        .map_err(|e| crate::stdio::write_error(&e))?;
    if ok {
        Ok(())
    } else {
        // Every failure has been reported on its own line, as GNU does.
        Err(Failure::Reported)
    }
}

/// Hashes `files` and prints a line (or an error) for each, in order;
/// true when every one was hashed and none is part of an attack.
fn hash_files(
    files: &[&[u8]],
    format: impl Fn(&[u8], &Hashed) -> Vec<u8>,
    pipe: &mut Pipeline<'_, usize>,
    sink: &mut Sink<'_>,
) -> bool {
    let mut ok = true;
    let mut emit = |i: usize, outcome: pool::Outcome| {
        let name = files[i];
        match outcome.expect("every file is hashed") {
            Ok(h) => {
                sink.record(&format(name, &h));
                // The line sha1cdsum prints, then the reason; nothing is
                // lost, but the run fails (sha1cdsum exits 0 here).
                if let Some(c) = h.collision {
                    report_reason(
                        sink,
                        name,
                        &format!("{c}; the digest printed is the safe hash"),
                    );
                    ok = false;
                }
            }
            Err(e) => {
                report(sink, name, &e);
                ok = false;
            }
        }
    };
    for (i, &name) in files.iter().enumerate() {
        pipe.submit(i, Work::of(name), &mut emit);
    }
    pipe.finish(&mut emit);
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::os::unix::ffi::OsStringExt;

    /// `fastcrypt sha1`'s arguments, as `main` has clap parse them.
    #[derive(Parser)]
    struct Sha1Only {
        #[command(flatten)]
        args: Args,
    }

    fn clap_args(rest: &[OsString]) -> Result<Args, clap::Error> {
        let argv = std::iter::once(OsString::from("sha1")).chain(rest.iter().cloned());
        Sha1Only::try_parse_from(argv).map(|p| p.args)
    }

    /// The fast path gives what clap gives for lists of operands, and
    /// leaves everything else to clap.
    #[test]
    fn operands_only_agrees_with_clap() {
        let os = |s: &str| OsString::from(s);
        let lists: Vec<Vec<OsString>> = vec![
            vec![],
            vec![os("a")],
            vec![os("-")],
            vec![os("a"), os("-"), os("b c"), os("")],
            vec![os("x-y"), os("é.txt"), os("a=b"), os("+x")],
            vec![OsString::from_vec(vec![b'f', 0xff, b'\\', b'\n'])],
        ];
        for list in &lists {
            let fast = Args::operands_only(list).expect("operands only");
            let slow = clap_args(list).expect("clap parses operands");
            assert_eq!(fast.raw, slow.raw, "{list:?}");
            assert!(fast.binary == slow.binary && fast.verbosity == slow.verbosity);
        }
        for list in [
            vec![os("--")],
            vec![os("a"), os("--no-detect")],
            vec![os("-c"), os("sums")],
            vec![os("-j1"), os("a")],
            vec![os("a"), os("--"), os("-b")],
        ] {
            assert!(Args::operands_only(&list).is_none(), "{list:?}");
        }
    }
}
