//! Where `rc4` writes: standard output, or `-o OUT` by the kind of file
//! OUT is, and the rules that refuse an output that is the input.

use super::{cannot, signals};
use crate::stdio;
use std::ffi::{CString, OsStr};
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Symbolic links followed from OUT to the real file before giving up,
/// as the kernel's own limit (ELOOP).
const MAX_LINKS: u32 = 40;

/// The longest file name (bytes) Linux file systems take; the temporary
/// file's name is cut to fit it.
const NAME_MAX: usize = 255;

/// An opened output.
pub enum Output {
    /// Standard output, written through its descriptor (`None`: it, or
    /// the standard descriptor `-o` names through /proc/self/fd/N, was
    /// closed when the process started, so every write fails as a write
    /// to a closed descriptor does).
    Stdout(Option<File>),
    /// A device, FIFO or terminal named by `-o`, written in place; or a
    /// descriptor of this process `-o` names through /proc/self/fd/N.
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
            if open_file_is_input(input, &out_meta, &out) {
                return Err(format!("rc4: {in_name}: input file is output file"));
            }
        }
        Ok(Output::Stdout(Some(out)))
    }

    /// `-o` leading to descriptor `fd` of this process (/dev/stdout,
    /// /dev/stderr, /dev/fd/N, /proc/self/fd/N): written through a
    /// duplicate of it, as `cat > /dev/stderr` writes through the
    /// shell's `2>> log`, so appending appends and nothing is replaced.
    fn descriptor(
        fd: RawFd,
        name: String,
        input: &Metadata,
        in_name: &str,
    ) -> Result<Output, String> {
        // Closed at start-up, then reopened on /dev/null by Rust's
        // runtime: writing must fail as on the closed descriptor.
        if (0..3).contains(&fd) && stdio::was_closed(fd as u8) {
            return Ok(Output::Stdout(None));
        }
        let ebadf = || cannot("open", &name, &io::Error::from_raw_os_error(libc::EBADF));
        // SAFETY: F_GETFD only reports whether `fd` is open.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            return Err(ebadf());
        }
        // SAFETY: `fd` was just seen open, and this single-threaded
        // command closes nothing before the duplicate is made.
        let file = unsafe { BorrowedFd::borrow_raw(fd) }
            .try_clone_to_owned()
            .map(File::from)
            .map_err(|_| ebadf())?;
        let m = file.metadata().map_err(|e| cannot("open", &name, &e))?;
        if m.is_dir() {
            return Err(format!("rc4: output {name} is a directory"));
        }
        if open_file_is_input(input, &m, &file) {
            return Err(format!(
                "rc4: input {in_name} and output {name} are the same file"
            ));
        }
        Ok(Output::Direct { file, name })
    }

    /// `-o path`: refused if a directory or the input; written directly
    /// if not a regular file; else through a temporary beside the real
    /// file the path leads to. Nothing is created before these checks.
    pub fn path(path: &Path, input: &Metadata, in_name: &str) -> Result<Output, String> {
        let name = path.display().to_string();
        if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return Err(format!("rc4: output {name} names a directory"));
        }
        // Only a name that leads to one of this process's descriptors
        // (`/dev/stdout`, a link to /proc/self/fd/3) is written through
        // the descriptor; a plain path to the file standard output
        // happens to be (`-o g 1<> g`) is replaced like any other.
        let real = match follow_links(path)? {
            Dest::Fd(fd) => return Output::descriptor(fd, name, input, in_name),
            Dest::Path(p) => p,
        };
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(format!("rc4: output {name} is a directory")),
            Ok(m) if m.is_file() => {
                if same_inode(input, &m) {
                    return Err(format!(
                        "rc4: input {in_name} and output {name} are the same file"
                    ));
                }
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
                check_writable(&real, &name)?;
                Ok(Output::Replace(TempOut::create(&real, &name, Some(&m))?))
            }
            Ok(m) => {
                // A socket cannot be opened: open() says ENXIO, "No such
                // device or address"; say what it is instead.
                if m.file_type().is_socket() {
                    return Err(format!("rc4: output {name} is a socket"));
                }
                // The same FIFO or block device as the input: the run
                // would read its own output, or wait for a writer that
                // is itself. A character device (a terminal) is fine.
                if same_inode(input, &m) && !m.file_type().is_char_device() {
                    return Err(format!(
                        "rc4: input {in_name} and output {name} are the same file"
                    ));
                }
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| cannot("open", &name, &e))?;
                Ok(Output::Direct { file, name })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A new file, possibly at the end of a dangling link.
                Ok(Output::Replace(TempOut::create(&real, &name, None)?))
            }
            Err(e) => Err(cannot("open", &name, &e)),
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
            Output::Direct { file, name } => {
                file.write_all(data).map_err(|e| cannot("write", &name, &e))
            }
            Output::Replace(t) => t
                .file
                .write_all(data)
                .map_err(|e| cannot("write", &t.name, &e)),
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

/// Whether `input` is refused as the file an open output descriptor
/// `out` (with metadata `m`) writes to: a regular file unless it is empty
/// and not appended to (`< g > g`, emptied by the shell, as GNU cat), and
/// the same FIFO, socket or block device (the run would read its own
/// output); a character device such as a terminal is fine.
fn open_file_is_input(input: &Metadata, m: &Metadata, out: &File) -> bool {
    if !same_inode(input, m) {
        return false;
    }
    let t = m.file_type();
    if t.is_file() {
        input.len() > 0 || is_append(out)
    } else {
        t.is_fifo() || t.is_socket() || t.is_block_device()
    }
}

/// Refuses `-i IN -o OUT` naming the same FIFO or file before IN is
/// opened: opening a FIFO for reading waits for a writer, which would be
/// this process itself, so the later checks would never be reached.
pub fn refuse_same_paths(input: &Path, out: &Path) -> Result<(), String> {
    if let (Ok(a), Ok(b)) = (fs::metadata(input), fs::metadata(out)) {
        if same_inode(&a, &b) && !a.is_dir() && !a.file_type().is_char_device() {
            return Err(format!(
                "rc4: input {} and output {} are the same file",
                input.display(),
                out.display()
            ));
        }
    }
    Ok(())
}

/// Refuses an existing OUT the caller may not write (a 0444 file, or
/// someone else's in a directory they can write): replacing it by a
/// rename would succeed where `cat in > OUT` fails. The effective ids
/// are checked (AT_EACCESS), as open would; root passes.
fn check_writable(real: &Path, name: &str) -> Result<(), String> {
    let Ok(c) = CString::new(real.as_os_str().as_bytes()) else {
        return Ok(());
    };
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    let r = unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
    if r != 0 {
        return Err(cannot("open", name, &io::Error::last_os_error()));
    }
    Ok(())
}

/// Whether `f` was opened for appending (`>>`).
fn is_append(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: F_GETFL on a descriptor `f` owns only reads its flags.
    let flags = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
    flags != -1 && flags & libc::O_APPEND != 0
}

/// Where the links of `-o` lead.
enum Dest {
    /// The path of a file that is not a link (existing or not).
    Path(PathBuf),
    /// A descriptor of this process, named by a /proc/self/fd/N link.
    Fd(RawFd),
}

/// Follows symbolic links at the end of `path` to the path of the file
/// (existing or not) they lead to, so that the temporary goes beside the
/// real file and the rename replaces it, not the link; or to the
/// descriptor of this process a hop names (/dev/stderr, /dev/fd/3),
/// whose link would otherwise lead to the file and lose `>>`.
fn follow_links(path: &Path) -> Result<Dest, String> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = own_fd(&p) {
            return Ok(Dest::Fd(fd));
        }
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p).map_err(|e| cannot("read link", p.display(), &e))?;
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(Dest::Path(p)),
        }
    }
    Err(format!(
        "rc4: output {}: too many levels of symbolic links",
        path.display()
    ))
}

/// N, if `p` is `DIR/N` with DIR this process's descriptor directory:
/// `/proc/self/fd`, `/dev/fd`, `/proc/<our pid>/fd`, or the main thread's
/// /proc/thread-self/fd (`rc4` runs on one thread).
fn own_fd(p: &Path) -> Option<RawFd> {
    let n = p.file_name()?.to_str()?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let fd: RawFd = n.parse().ok()?;
    let dir = fs::canonicalize(p.parent()?).ok()?;
    let pid = std::process::id();
    let ours = [
        PathBuf::from(format!("/proc/{pid}/fd")),
        PathBuf::from(format!("/proc/{pid}/task/{pid}/fd")),
    ];
    ours.contains(&dir).then_some(fd)
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
    /// The mode a new OUT gets when committed (0666 & ~umask); `None`
    /// when it replaces a file, whose mode it took at creation.
    new_mode: Option<u32>,
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
            Err(e) => {
                return Err(cannot(
                    "create",
                    format_args!("{name}: {}", dir.display()),
                    &e,
                ))
            }
        }
        let pid = std::process::id();
        for attempt in 0..100u32 {
            let suffix = format!(".fastcrypt-rc4.{pid}.{attempt}.tmp");
            // A long OUT name would make the temporary's name too long
            // (ENAMETOOLONG) although OUT itself is valid: keep only as
            // much of it as fits, still enough to tell whose it is.
            let room = NAME_MAX - 1 - suffix.len();
            let b = base.as_bytes();
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(OsStr::from_bytes(&b[..b.len().min(room)]));
            tmp_name.push(suffix);
            let path = dir.join(tmp_name);
            // Private from the start: another user who opened it before
            // a later chmod could read all that is written to it.
            let created = signals::create_removable(&path, || {
                OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)
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
                        new_mode: existing.is_none().then(|| 0o666 & !umask()),
                        committed: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(cannot("create a temporary file in", dir.display(), &e)),
            }
        }
        Err(format!(
            "rc4: cannot create a temporary file in {}: too many left over",
            dir.display()
        ))
    }

    /// Syncs the data and renames the temporary file over the target.
    fn commit(mut self) -> Result<(), String> {
        // A new OUT gets the mode `cat > OUT` would give it only now that
        // the whole output is in place.
        if let Some(mode) = self.new_mode {
            self.file
                .set_permissions(fs::Permissions::from_mode(mode))
                .map_err(|e| cannot("write", &self.name, &e))?;
        }
        self.file
            .sync_all()
            .map_err(|e| cannot("write", &self.name, &e))?;
        signals::finish_removable(|| fs::rename(&self.path, &self.target))
            .map_err(|e| cannot("replace", &self.name, &e))?;
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

/// The process's umask. umask(2) can only be read by setting it, so it is
/// set and at once restored; `rc4` runs on one thread, so no file is
/// created in between with the wrong mask.
fn umask() -> libc::mode_t {
    // SAFETY: umask cannot fail; the old mask is put back at once.
    let old = unsafe { libc::umask(0o077) };
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    old
}
