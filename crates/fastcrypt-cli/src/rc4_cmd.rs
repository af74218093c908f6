//! `fastcrypt rc4`: RC4 or RC4-drop\[n\] over a file or a pipe, in constant
//! memory (one 64 KiB buffer, whatever the input's size).
//!
//! With `-o`, the output goes to a temporary file in the same directory,
//! renamed over OUT only once everything was written and synced: an
//! existing OUT is never truncated or left half-written, and a failed run
//! leaves no temporary file behind.

use fastcrypt::rc4::{Backend, Rc4, MAX_KEY_LEN, MIN_KEY_LEN};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// Bytes read, encrypted and written per step.
const CHUNK: usize = 64 * 1024;

/// `fastcrypt rc4 (--key HEX | --key-file FILE) [--drop N] [-i IN] [-o OUT]`
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("key_source").required(true).args(["key", "key_file"])))]
pub struct Args {
    /// The key as hex digits (1 to 256 bytes).
    #[arg(long, value_name = "HEX")]
    key: Option<String>,
    /// A file holding the raw key bytes (1 to 256 bytes, no encoding).
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// Discard the first N keystream bytes: RC4-drop[N] (BitTorrent's
    /// message stream encryption uses 1024).
    #[arg(long, value_name = "N", default_value_t = 0)]
    drop: u64,
    /// Read from IN instead of standard input.
    #[arg(short = 'i', long = "input", value_name = "IN")]
    input: Option<PathBuf>,
    /// Write to OUT instead of standard output (through a temporary file
    /// in OUT's directory, renamed into place on success).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Backend to use (default: the fastest this CPU runs); see
    /// `fastcrypt cpu`.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
}

pub fn run(args: Args) -> Result<(), String> {
    let key = match (&args.key, &args.key_file) {
        (Some(hex), _) => parse_hex(hex).map_err(|e| format!("rc4: --key: {e}"))?,
        (None, Some(path)) => fs::read(path)
            .map_err(|e| format!("rc4: cannot read key file {}: {e}", path.display()))?,
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
    cipher.skip(args.drop);

    // The input first: an unreadable input must fail before any output
    // file is created.
    let input = match &args.input {
        Some(path) => {
            File::open(path).map_err(|e| format!("rc4: cannot open {}: {e}", path.display()))?
        }
        None => std_file(io::stdin().as_fd()).map_err(|e| format!("rc4: standard input: {e}"))?,
    };
    let in_name = args
        .input
        .as_ref()
        .map_or_else(|| "standard input".to_string(), |p| p.display().to_string());

    match &args.output {
        None => {
            let out =
                std_file(io::stdout().as_fd()).map_err(|e| format!("rc4: standard output: {e}"))?;
            stream(&mut cipher, input, &in_name, out, "standard output")
        }
        Some(path) => {
            refuse_same_file(&input, &in_name, path)?;
            let mut tmp = TempOut::create(path)?;
            let name = path.display().to_string();
            stream(&mut cipher, input, &in_name, &mut tmp.file, &name)?;
            tmp.commit()
        }
    }
}

/// Reads `input` to its end, applies the keystream and writes the result,
/// one `CHUNK` at a time.
fn stream(
    cipher: &mut Rc4,
    mut input: impl Read,
    in_name: &str,
    mut output: impl Write,
    out_name: &str,
) -> Result<(), String> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("rc4: cannot read {in_name}: {e}")),
        };
        cipher.apply_keystream(&mut buf[..n]);
        output
            .write_all(&buf[..n])
            .map_err(|e| format!("rc4: cannot write {out_name}: {e}"))?;
    }
    output
        .flush()
        .map_err(|e| format!("rc4: cannot write {out_name}: {e}"))
}

/// An unbuffered `File` on a duplicate of a standard stream's descriptor:
/// binary data in 64 KiB writes, with no line buffering in between.
fn std_file(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<File> {
    Ok(File::from(fd.try_clone_to_owned()?))
}

/// Fails if `input` (a file or standard input) is the file `out` names:
/// writing it would destroy the data still to be read.
fn refuse_same_file(input: &File, in_name: &str, out: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(out_meta) = fs::metadata(out) else {
        // OUT does not exist yet, so it cannot be the input.
        return Ok(());
    };
    let in_meta = input
        .metadata()
        .map_err(|e| format!("rc4: cannot stat {in_name}: {e}"))?;
    if in_meta.dev() == out_meta.dev() && in_meta.ino() == out_meta.ino() {
        return Err(format!(
            "rc4: input {in_name} and output {} are the same file",
            out.display()
        ));
    }
    Ok(())
}

/// The temporary output file: created beside OUT, removed on drop unless
/// `commit` renamed it over OUT.
struct TempOut {
    file: File,
    path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl TempOut {
    fn create(target: &Path) -> Result<TempOut, String> {
        let name = target
            .file_name()
            .ok_or_else(|| format!("rc4: output {} is not a file name", target.display()))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let pid = std::process::id();
        for attempt in 0..100u32 {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".fastcrypt-rc4.{pid}.{attempt}.tmp"));
            let path = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    // Keep the permissions of the file being replaced.
                    if let Ok(m) = fs::metadata(target) {
                        let _ = file.set_permissions(m.permissions());
                    }
                    return Ok(TempOut {
                        file,
                        path,
                        target: target.to_path_buf(),
                        committed: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(format!(
                        "rc4: cannot create a temporary file in {}: {e}",
                        dir.display()
                    ))
                }
            }
        }
        Err(format!(
            "rc4: cannot create a temporary file in {}: too many left over",
            dir.display()
        ))
    }

    /// Syncs the data and renames the temporary file over the target.
    fn commit(mut self) -> Result<(), String> {
        let out = self.target.display().to_string();
        self.file
            .sync_all()
            .map_err(|e| format!("rc4: cannot write {out}: {e}"))?;
        fs::rename(&self.path, &self.target)
            .map_err(|e| format!("rc4: cannot replace {out}: {e}"))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Hex digits (either case, no separators) to bytes.
fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8, at: usize| -> Result<u8, String> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(format!(
                "not a hex digit at position {}: {:?}",
                at + 1,
                s.get(at..).and_then(|t| t.chars().next()).unwrap_or('?')
            )),
        }
    };
    let b = s.as_bytes();
    if b.len() & 1 != 0 {
        return Err(format!("odd number of hex digits ({})", b.len()));
    }
    b.chunks_exact(2)
        .enumerate()
        .map(|(n, p)| Ok(digit(p[0], 2 * n)? << 4 | digit(p[1], 2 * n + 1)?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_hex;

    #[test]
    fn hex() {
        assert_eq!(parse_hex("00fFa5").unwrap(), vec![0, 0xff, 0xa5]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert!(parse_hex("abc").unwrap_err().contains("odd"));
        assert!(parse_hex("zz").unwrap_err().contains("position 1"));
        assert!(parse_hex("0é").is_err());
    }
}
