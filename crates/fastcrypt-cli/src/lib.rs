//! What the two programs of this package share: `fastcrypt` (the
//! everyday tools) and `fastcrypt-speed` (the speed lab, which
//! `fastcrypt speed` starts).
//!
//! They are two programs so that `fastcrypt sha1` does not load the
//! system's libcrypto, which only the speed lab measures: loading it
//! (and ring, RustCrypto and the other peers) tripled the start-up time
//! of a one-file `fastcrypt sha1`. Nothing in this library links a peer
//! library.

pub mod backends;
pub mod gobench;
pub mod hex;
pub mod machine;
pub mod oldnew;
pub mod stats;
pub mod stdio;
pub mod table;

use clap::error::ErrorKind;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Parses the command line of either program, or says why not and gives
/// the exit status: a rejected option value is one line (`fastcrypt:
/// <why>`, the value parser's own message says what is valid), like every
/// other error; `--help` and `--version` print and succeed; a usage error
/// prints clap's message and exits 1, as coreutils' tools do (clap's own
/// choice is 2), so scripts see one failure status from every command.
pub fn parse<C: clap::Parser>() -> Result<C, ExitCode> {
    parse_with(|| None)
}

/// As [`parse`], but a usage error's message is first asked of `usage`
/// (for a subcommand that words them as the tool it stands in for);
/// when it gives one, that is printed instead of clap's.
pub fn parse_with<C: clap::Parser>(usage: impl FnOnce() -> Option<String>) -> Result<C, ExitCode> {
    let e = match C::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    if e.kind() == ErrorKind::ValueValidation {
        if let Some(why) = std::error::Error::source(&e) {
            eprintln!("fastcrypt: {why}");
            return Err(ExitCode::FAILURE);
        }
    }
    if e.use_stderr() {
        if let Some(message) = usage() {
            eprintln!("{message}");
            return Err(ExitCode::FAILURE);
        }
    }
    if !e.use_stderr() && !std::io::stdout().is_terminal() {
        // `--help` or `--version` into a file or pipe: a write error
        // fails as coreutils' do (`sha1sum --version >/dev/full`), where
        // clap's own print would report success.
        return match stdio::print_out(&e.render().to_string()) {
            Ok(()) => Err(ExitCode::SUCCESS),
            Err(why) => {
                eprintln!("fastcrypt: {why}");
                Err(ExitCode::FAILURE)
            }
        };
    }
    let _ = e.print();
    Err(if e.use_stderr() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
