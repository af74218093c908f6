//! `fastcrypt-speed`: the speed lab, the program `fastcrypt speed` runs.
//!
//! It is its own program because it links every peer it measures
//! (OpenSSL's libcrypto, ring, RustCrypto, the sha1dc crates), and
//! `fastcrypt`'s everyday commands should not pay for loading them (see
//! the package's library).

use clap::Parser;
use std::io::Write as _;
use std::process::ExitCode;

// What the speed lab shares with `fastcrypt`.
use fastcrypt_cli::{backends, gobench, machine, oldnew, stats, stdio, table};

mod speed;

/// The speed lab's command line: `fastcrypt speed [OPTIONS] [ALGO]...`.
#[derive(Parser)]
#[command(
    name = "fastcrypt speed",
    bin_name = "fastcrypt speed",
    version,
    about = "The speed lab: every fastcrypt backend and the peer libraries, \
             measured side by side (ns/op, MB/s; --compare, --sweep, --plot)"
)]
struct Cli {
    #[command(flatten)]
    args: speed::SpeedArgs,
}

fn main() -> ExitCode {
    stdio::default_sigpipe();
    let cli: Cli = match fastcrypt_cli::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    let result = speed::run(cli.args);
    if let Err(e) = &result {
        // Not `eprintln!`, which panics (status 101) when stderr cannot
        // be written.
        let _ = writeln!(std::io::stderr(), "fastcrypt: {e}");
    }
    if speed::interrupted() {
        // What a shell reports for a command SIGINT ended: a script sees
        // that the report it got covers only part of the run.
        ExitCode::from(130)
    } else if result.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
