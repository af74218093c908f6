//! `fastcrypt speed`: runs the speed lab, the `fastcrypt-speed` program
//! (see `speed_main.rs` for why it is a program of its own), with the
//! arguments given. It replaces this process, so the lab's output,
//! terminal, signals and exit status are exactly its own; so are its
//! standard descriptors, closed ones included.

use std::ffi::OsString;
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

/// The speed lab's program name.
const PROGRAM: &str = "fastcrypt-speed";

/// Where the speed lab is: beside this program (where `cargo build` and
/// `cargo install` put both), else on `PATH`.
fn locate() -> Result<PathBuf, String> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok().or(Some(exe)))
        .map(|exe| exe.with_file_name(PROGRAM));
    if let Some(path) = beside.as_ref().filter(|p| p.is_file()) {
        return Ok(path.clone());
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(PROGRAM))
            .find(|p| p.is_file())
    });
    on_path.ok_or_else(|| {
        let dir = match beside.as_ref().and_then(|p| p.parent()) {
            Some(dir) => format!("{} or ", dir.display()),
            None => String::new(),
        };
        format!(
            "the speed lab is a program of its own, {PROGRAM}, and it is not in \
             {dir}PATH; `cargo build --release -p fastcrypt-cli` builds it beside \
             fastcrypt, `cargo install fastcrypt-cli` installs both"
        )
    })
}

/// Replaces this process with the speed lab, or says why it could not.
#[cfg(unix)]
pub fn run(args: &[OsString]) -> Result<(), String> {
    let path = locate()?;
    fastcrypt_cli::stdio::reclose_closed_std_fds();
    let e = Command::new(&path).args(args).exec();
    Err(format!("cannot run {}: {e}", path.display()))
}

/// Runs the speed lab and exits with its status, or says why it could
/// not (no `exec` here).
#[cfg(not(unix))]
pub fn run(args: &[OsString]) -> Result<(), String> {
    let path = locate()?;
    match Command::new(&path).args(args).status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(e) => Err(format!("cannot run {}: {e}", path.display())),
    }
}
