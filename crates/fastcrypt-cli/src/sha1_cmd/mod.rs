//! `fastcrypt sha1`: SHA-1 of files, and `--check` of lists of digests,
//! behaving as GNU coreutils' `sha1sum` (9.1) does: the same options,
//! line formats, name escaping, messages on stdout and stderr, warnings
//! and exit status (the compatibility test, tests/sha1_gnu_compat.rs,
//! runs both). File names are raw bytes, so names that are not UTF-8
//! work. Files are streamed in 256 KiB reads: memory stays flat for any
//! size; `-` (or no file) is standard input.
//!
//! One deliberate addition: collision detection, on by default (off with
//! `--no-detect`, which is plain `sha1sum`). Inputs are hashed with
//! [`Sha1Dc`]; a file that is part of a collision attack gets Debian's
//! `sha1cdsum` line (`HEX *coll* NAME`, HEX its safe hash), a reason on
//! stderr and, unlike `sha1cdsum`, exit status 1; in `--check` it is
//! `NAME: FAILED collision attack`, counted in `WARNING: N collisions
//! were detected`, even when the listed digest matches.

mod check;
mod gnu;
mod out;

use clap::{ArgMatches, Command, FromArgMatches};
use fastcrypt::sha1::{Backend, Collision, DcConfig, Sha1, Sha1Dc};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;

use crate::Failure;
use out::Out;

/// The options as clap parses them; [`Args`] adds the order in which the
/// overriding ones were given, which GNU's semantics depend on.
#[derive(clap::Args)]
struct Raw {
    /// Files to hash, or with --check, lists to check (`-` or none:
    /// standard input).
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
    /// Read in binary mode: mark lines with `*` (no difference in the
    /// digest on Unix).
    #[arg(short, long, action = clap::ArgAction::SetTrue, overrides_with = "binary")]
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
    /// Backend to use (default: the fastest this CPU runs); see `fastcrypt
    /// cpu`. fastcrypt's own option, not in sha1sum.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
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
plain SHA-1 is compared, so a `*coll*` line's safe hash does not match.

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
        // long option (`sha1sum -c --stat f`).
        <Raw as clap::Args>::augment_args(cmd)
            .after_long_help(AFTER_HELP)
            .infer_long_args(true)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        <Raw as clap::Args>::augment_args_for_update(cmd)
            .after_long_help(AFTER_HELP)
            .infer_long_args(true)
    }
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
    } else {
        None
    };
    match problem {
        Some(p) => Err(format!(
            "{p}\nTry 'fastcrypt sha1 --help' for more information."
        )),
        None => Ok(()),
    }
}

/// How files are hashed: the backend, and whether (and how) collision
/// attacks are detected.
#[derive(Clone, Copy)]
pub struct Hashing {
    /// The forced backend, or `None` for the fastest.
    pub backend: Option<Backend>,
    /// The detector's switches, or `None` for plain SHA-1 (`--no-detect`).
    pub detect: Option<DcConfig>,
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

fn hash_reader(mut r: impl Read, how: Hashing) -> io::Result<Hashed> {
    let mut h = how.hasher().map_err(io::Error::other)?;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(h.finalize()),
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The digest of a file or, for `-`, of standard input. A directory opens
/// and then fails to read with EISDIR, the error GNU reports.
fn hash_path(name: &[u8], how: Hashing) -> io::Result<Hashed> {
    if name == b"-" {
        // Closed at start-up (`<&-`), then reopened on /dev/null by
        // Rust's runtime: GNU fails with EBADF, not an empty input's hash.
        if crate::stdio::was_closed(0) {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        hash_reader(io::stdin().lock(), how)
    } else {
        hash_reader(File::open(std::ffi::OsStr::from_bytes(name))?, how)
    }
}

/// Prints `fastcrypt: NAME: REASON` to stderr, NAME quoted as GNU does.
fn report(name: &[u8], e: &io::Error) {
    report_reason(name, &crate::stdio::os_message(e));
}

/// [`report`] with a reason of our own.
fn report_reason(name: &[u8], reason: &str) {
    eprintln!("fastcrypt: {}: {reason}", gnu::quotef(name));
}

pub fn run(args: Args) -> Result<(), Failure> {
    usage_check(&args)?;
    let backend = args
        .raw
        .backend
        .as_deref()
        .map(|n| n.parse::<Backend>().map_err(|e| e.to_string()))
        .transpose()?;
    let r = &args.raw;
    let how = Hashing {
        backend,
        detect: (!r.no_detect).then_some(DcConfig {
            reduced_round: r.reduced_round,
            ..DcConfig::default()
        }),
    };
    // Refuse an unavailable backend once, up front, with the reason.
    how.hasher()?;
    let files: Vec<&[u8]> = if r.files.is_empty() {
        vec![b"-"]
    } else {
        r.files.iter().map(|f| f.as_bytes()).collect()
    };
    // GNU closes standard input at the end when it read from it, and a
    // descriptor closed at start-up (`<&-`) fails that close too.
    let read_closed_stdin = crate::stdio::was_closed(0) && files.contains(&&b"-"[..]);
    let mut out = Out::stdout();
    let mut ok = true;
    if r.check {
        let mut checker = check::Checker {
            how,
            status: args.verbosity == Some(Verbosity::Status),
            warn: args.verbosity == Some(Verbosity::Warn),
            quiet: args.verbosity == Some(Verbosity::Quiet),
            strict: r.strict,
            ignore_missing: r.ignore_missing,
            layout: gnu::Layout::Unknown,
        };
        for list in files {
            ok &= checker.check_list(list, &mut out);
        }
    } else {
        let binary = args.binary.unwrap_or(false);
        for name in files {
            match hash_path(name, how) {
                Ok(Hashed {
                    digest,
                    collision: None,
                }) => out.record(&gnu::hash_line(
                    name,
                    &crate::hex::encode(&digest),
                    binary,
                    r.tag,
                    r.zero,
                )),
                // The line sha1cdsum prints, then the reason; nothing is
                // lost, but the run fails (sha1cdsum exits 0 here).
                Ok(Hashed {
                    digest,
                    collision: Some(c),
                }) => {
                    out.record(&gnu::collision_line(
                        name,
                        &crate::hex::encode(&digest),
                        r.tag,
                        r.zero,
                    ));
                    report_reason(name, &format!("{c}; the digest printed is the safe hash"));
                    ok = false;
                }
                Err(e) => {
                    report(name, &e);
                    ok = false;
                }
            }
        }
    }
    if read_closed_stdin {
        eprintln!("fastcrypt: standard input: Bad file descriptor");
        ok = false;
    }
    out.finish().map_err(|e| crate::stdio::write_error(&e))?;
    if ok {
        Ok(())
    } else {
        // Every failure has been reported on its own line, as GNU does.
        Err(Failure::Reported)
    }
}
