//! `fastcrypt sha1`: SHA-1 of files, in `sha1sum`'s format, and `--check`
//! of such a list. Files are streamed in 256 KiB reads, so memory stays
//! flat for any size; `-` (or no file) is standard input.

use clap::Args as ClapArgs;
use fastcrypt::sha1::{Backend, Sha1};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

#[derive(ClapArgs)]
pub struct Args {
    /// Files to hash (`-` or none: standard input).
    files: Vec<String>,
    /// Read `<hex digest>  <file>` lines (sha1sum's output) from each FILE
    /// and check every listed file against its digest.
    #[arg(short, long)]
    check: bool,
    /// With --check: print nothing for files that match.
    #[arg(long, requires = "check")]
    quiet: bool,
    /// Backend to use (default: the fastest this CPU runs); see `fastcrypt cpu`.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
}

fn hasher(backend: Option<Backend>) -> Result<Sha1, String> {
    match backend {
        Some(b) => Sha1::with_backend(b).map_err(|e| e.to_string()),
        None => Ok(Sha1::new()),
    }
}

fn hash_reader(mut r: impl Read, backend: Option<Backend>) -> io::Result<[u8; 20]> {
    let mut h = hasher(backend).map_err(io::Error::other)?;
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

fn hash_path(name: &str, backend: Option<Backend>) -> io::Result<[u8; 20]> {
    if name == "-" {
        hash_reader(io::stdin().lock(), backend)
    } else {
        if Path::new(name).is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        hash_reader(File::open(name)?, backend)
    }
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn run(args: Args) -> Result<(), String> {
    let backend = args
        .backend
        .as_deref()
        .map(|n| n.parse::<Backend>().map_err(|e| e.to_string()))
        .transpose()?;
    // Refuse an unavailable backend once, up front, with the reason.
    hasher(backend)?;
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut failures = 0usize;
    if args.check {
        for list in &files {
            failures += check_list(list, backend, args.quiet, &mut out)?;
        }
        if failures > 0 {
            return Err(format!(
                "{failures} file(s) did not match or could not be read"
            ));
        }
        return Ok(());
    }
    for name in &files {
        match hash_path(name, backend) {
            Ok(d) => {
                writeln!(out, "{}  {name}", hex(&d)).map_err(|e| crate::stdio::write_error(&e))?
            }
            Err(e) => {
                eprintln!("fastcrypt: {name}: {e}");
                failures += 1;
            }
        }
    }
    if failures > 0 {
        return Err(format!("{failures} file(s) could not be read"));
    }
    Ok(())
}

/// Checks every `<digest>  <name>` line of `list`; returns the number of
/// mismatches and unreadable files. Malformed lines are an error naming the
/// line.
fn check_list(
    list: &str,
    backend: Option<Backend>,
    quiet: bool,
    out: &mut impl Write,
) -> Result<usize, String> {
    let reader: Box<dyn BufRead> = if list == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        Box::new(BufReader::new(
            File::open(list).map_err(|e| format!("{list}: {e}"))?,
        ))
    };
    let mut failures = 0;
    let mut lines = 0;
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{list}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        // sha1sum writes "<hex>  <name>" (text mode) or "<hex> *<name>" (binary).
        let parsed = line
            .split_once(' ')
            .map(|(d, rest)| {
                (
                    d,
                    rest.strip_prefix(' ')
                        .or_else(|| rest.strip_prefix('*'))
                        .unwrap_or(rest),
                )
            })
            .filter(|(d, name)| {
                d.len() == 40 && d.bytes().all(|b| b.is_ascii_hexdigit()) && !name.is_empty()
            });
        let Some((want, name)) = parsed else {
            return Err(format!(
                "{list}:{}: not a '<40 hex digits>  <file>' line",
                n + 1
            ));
        };
        match hash_path(name, backend) {
            Ok(d) if hex(&d).eq_ignore_ascii_case(want) => {
                if !quiet {
                    writeln!(out, "{name}: OK").map_err(|e| crate::stdio::write_error(&e))?;
                }
            }
            Ok(_) => {
                writeln!(out, "{name}: FAILED").map_err(|e| crate::stdio::write_error(&e))?;
                failures += 1;
            }
            Err(e) => {
                writeln!(out, "{name}: FAILED open or read ({e})")
                    .map_err(|e| crate::stdio::write_error(&e))?;
                failures += 1;
            }
        }
    }
    if lines == 0 {
        return Err(format!("{list}: no checksum lines found"));
    }
    Ok(failures)
}
