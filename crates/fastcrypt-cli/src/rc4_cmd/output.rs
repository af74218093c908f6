//! Where `rc4` writes: standard output, or `-o OUT` by the kind of file
//! OUT is, and the rules that refuse an output that is the input.

use super::signals;
use crate::stdio;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Symbolic links followed from OUT to the real file before giving up,
/// as the kernel's own limit (ELOOP).
const MAX_LINKS: u32 = 40;

/// An opened output.
pub enum Output {
    /// Standard output, written through its descriptor (`None`: it was
    /// closed when the process started, so every write fails as a write
    /// to a closed descriptor does).
    Stdout(Option<File>),
    /// A device, FIFO or terminal named by `-o`, written in place.
    Direct { file: File, name: String },
    /// A regular or new file named by `-o`, written through a temporary.
    Replace(TempOut),
}

impl Output {
    /// Standard output, after checking that it is not the input.
    pub fn stdout(input: &Metadata, in_name: &str) -> Result<Output, String> {
        if stdio::was_closed(1) {
            return Ok(Output::Stdout(None));
        }
        let out = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .map_err(|e| stdio::write_error(&e))?;
        if let Ok(out_meta) = out.metadata() {
            if out_meta.is_file()
                && same_inode(input, &out_meta)
                && (input.len() > 0 || is_append(&out))
            {
                return Err(format!("rc4: {in_name}: input file is output file"));
            }
        }
        Ok(Output::Stdout(Some(out)))
    }

    /// `-o path`: refused if a directory or the input; written directly
    /// if not a regular file; else through a temporary beside the real
    /// file the path leads to. Nothing is created before these checks.
    pub fn path(path: &Path, input: &Metadata, in_name: &str) -> Result<Output, String> {
        let name = path.display().to_string();
        if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return Err(format!("rc4: output {name} names a directory"));
        }
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(format!("rc4: output {name} is a directory")),
            Ok(m) if m.is_file() => {
                if same_inode(input, &m) {
                    return Err(format!(
                        "rc4: input {in_name} and output {name} are the same file"
                    ));
                }
                // `-o /dev/stdout` (or any name of the file standard
                // output is): write through the descriptor the shell
                // opened, so `>> log` appends instead of the rename
                // replacing log.
                if !stdio::was_closed(1) {
                    if let Ok(fd1) = io::stdout().as_fd().try_clone_to_owned() {
                        let fd1 = File::from(fd1);
                        if fd1.metadata().is_ok_and(|o| same_inode(&o, &m)) {
                            return Ok(Output::Direct { file: fd1, name });
                        }
                    }
                }
                let real = follow_links(path)?;
                // The path the links lead to must be the file stat saw
                // (a /proc magic link can name a file that no path
                // reaches any more).
                match fs::metadata(&real) {
                    Ok(r) if same_inode(&r, &m) => {}
                    _ => {
                        return Err(format!(
                            "rc4: output {name}: cannot find the file its links lead to"
                        ))
                    }
                }
                Ok(Output::Replace(TempOut::create(&real, &name, Some(&m))?))
            }
            Ok(m) => {
                // A socket cannot be opened: open() says ENXIO, "No such
                // device or address"; say what it is instead.
                if m.file_type().is_socket() {
                    return Err(format!("rc4: output {name} is a socket"));
                }
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| format!("rc4: cannot open {name}: {e}"))?;
                Ok(Output::Direct { file, name })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A new file, possibly at the end of a dangling link.
                let real = follow_links(path)?;
                Ok(Output::Replace(TempOut::create(&real, &name, None)?))
            }
            Err(e) => Err(format!("rc4: cannot open {name}: {e}")),
        }
    }

    /// Writes all of `data`, with the error message for this output.
    pub fn write_all(&mut self, data: &[u8]) -> Result<(), String> {
        match self {
            Output::Stdout(Some(f)) => f.write_all(data).map_err(|e| stdio::write_error(&e)),
            Output::Stdout(None) if data.is_empty() => Ok(()),
            Output::Stdout(None) => Err(stdio::write_error(&io::Error::from_raw_os_error(
                libc::EBADF,
            ))),
            Output::Direct { file, name } => file
                .write_all(data)
                .map_err(|e| format!("rc4: cannot write {name}: {e}")),
            Output::Replace(t) => t
                .file
                .write_all(data)
                .map_err(|e| format!("rc4: cannot write {}: {e}", t.name)),
        }
    }

    /// Finishes the output: renames a temporary into place.
    pub fn finish(self) -> Result<(), String> {
        match self {
            Output::Replace(t) => t.commit(),
            // Unbuffered files: every byte was handed to the kernel.
            Output::Stdout(_) | Output::Direct { .. } => Ok(()),
        }
    }
}

fn same_inode(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether `f` was opened for appending (`>>`).
fn is_append(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: F_GETFL on a descriptor `f` owns only reads its flags.
    let flags = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
    flags != -1 && flags & libc::O_APPEND != 0
}

/// Follows symbolic links at the end of `path` to the path of the file
/// (existing or not) they lead to, so that the temporary goes beside the
/// real file and the rename replaces it, not the link.
fn follow_links(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p)
                    .map_err(|e| format!("rc4: cannot read link {}: {e}", p.display()))?;
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(format!(
        "rc4: output {}: too many levels of symbolic links",
        path.display()
    ))
}

/// The temporary output file: created beside the real target, removed
/// on drop (or by SIGINT/SIGTERM/SIGHUP) unless `commit` renamed it over
/// the target.
pub struct TempOut {
    file: File,
    path: PathBuf,
    target: PathBuf,
    /// OUT as the user wrote it, for messages.
    name: String,
    committed: bool,
}

impl TempOut {
    fn create(target: &Path, name: &str, existing: Option<&Metadata>) -> Result<TempOut, String> {
        let base = target
            .file_name()
            .ok_or_else(|| format!("rc4: output {name} is not a file name"))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // Checked first so that a missing directory gets its own message.
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(format!(
                    "rc4: cannot create {name}: {} is not a directory",
                    dir.display()
                ))
            }
            Err(e) => return Err(format!("rc4: cannot create {name}: {}: {e}", dir.display())),
        }
        let pid = std::process::id();
        for attempt in 0..100u32 {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(base);
            tmp_name.push(format!(".fastcrypt-rc4.{pid}.{attempt}.tmp"));
            let path = dir.join(tmp_name);
            let created = signals::create_removable(&path, || {
                OpenOptions::new().write(true).create_new(true).open(&path)
            });
            match created {
                Ok(file) => {
                    if let Some(m) = existing {
                        // Keep the owner (possible as root; otherwise the
                        // file becomes the caller's, as any new file
                        // would) and then the mode, which chown may clear
                        // of set-id bits.
                        let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
                        let _ = file.set_permissions(m.permissions());
                    }
                    return Ok(TempOut {
                        file,
                        path,
                        target: target.to_path_buf(),
                        name: name.to_string(),
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
        self.file
            .sync_all()
            .map_err(|e| format!("rc4: cannot write {}: {e}", self.name))?;
        signals::finish_removable(|| fs::rename(&self.path, &self.target))
            .map_err(|e| format!("rc4: cannot replace {}: {e}", self.name))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.committed {
            signals::finish_removable(|| fs::remove_file(&self.path)).ok();
        }
    }
}
