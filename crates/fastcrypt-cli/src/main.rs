//! `fastcrypt`: the speed lab and everyday tools on top of the library.
// Doc comments here are clap's --help text first: `RC4-drop[N]` must
// read as written there, not become an escaped intra-doc link.
#![allow(rustdoc::broken_intra_doc_links)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

// Shared by the commands, which do not import each other, and with the
// speed lab (`fastcrypt-speed`).
use fastcrypt_cli::{backends, gobench, hex, machine, oldnew, stats, stdio};

mod benchcmp;
mod cpu_cmd;
mod rc4_cmd;
mod sha1_cmd;
mod speed_launch;

#[derive(Parser)]
#[command(
    name = "fastcrypt",
    version,
    about = "Fast, verified RC4, SHA-1, GHASH and AES-GCM"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the CPU model, detected features and, per primitive, the
    /// backends available and the one chosen by default.
    Cpu,
    /// RC4 or RC4-drop[N] from standard input or IN to standard output or
    /// OUT, in constant memory (a broken cipher: for interoperability only).
    Rc4(rc4_cmd::Args),
    /// SHA-1 of files in sha1sum's format, detecting collision attacks
    /// (sha1cdsum's `*coll*` lines; --no-detect for plain SHA-1), or
    /// --check a list of digests.
    Sha1(sha1_cmd::Args),
    /// The speed lab: every fastcrypt backend and the peer libraries,
    /// measured side by side (ns/op, MB/s; --compare, --sweep, --plot).
    ///
    /// Runs the `fastcrypt-speed` program installed beside this one, with
    /// these arguments (`fastcrypt speed --help` for its options).
    #[command(disable_help_flag = true)]
    Speed {
        /// Options and algorithms of the speed lab.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<std::ffi::OsString>,
    },
    /// Old/new tables (delta, speed-up) from two files of Go benchmark
    /// lines, e.g. `fastcrypt speed --format go` or `go test -bench` output.
    Benchcmp(benchcmp::BenchcmpArgs),
}

fn main() -> ExitCode {
    stdio::default_sigpipe();
    // `fastcrypt sha1 FILE...`, the common case, without building clap's
    // parser (see `sha1_cmd::Args::operands_only`).
    let argv: Vec<std::ffi::OsString> = std::env::args_os().take(2).collect();
    if argv.get(1).is_some_and(|a| a == "sha1") {
        let rest: Vec<std::ffi::OsString> = std::env::args_os().skip(2).collect();
        if let Some(args) = sha1_cmd::Args::operands_only(&rest) {
            return status(sha1_cmd::run(args));
        }
    }
    // A usage error of `sha1` in sha1sum's (getopt's) words.
    let sha1_usage = || {
        let mut args = std::env::args_os().skip(1);
        if args.next().is_some_and(|a| a == "sha1") {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            cmd.build();
            let rest: Vec<std::ffi::OsString> = args.collect();
            sha1_cmd::usage_error(cmd.find_subcommand("sha1")?, &rest)
        } else {
            None
        }
    };
    let cli: Cli = match fastcrypt_cli::parse_with(sha1_usage) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    status(match cli.command {
        Command::Cpu => cpu_cmd::run().map_err(Failure::from),
        Command::Rc4(args) => rc4_cmd::run(args).map_err(Failure::from),
        Command::Sha1(args) => sha1_cmd::run(args),
        Command::Speed { args } => speed_launch::run(&args).map_err(Failure::from),
        Command::Benchcmp(args) => benchcmp::run(args).map_err(Failure::from),
    })
}

/// A command's result as the exit status; a message is printed first.
fn status(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Message(e)) => {
            eprintln!("fastcrypt: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Reported) => ExitCode::FAILURE,
    }
}

/// Why a command failed: a message for `main` to print, or failures the
/// command has already reported one by one (as `sha1` does, like GNU's
/// `sha1sum`: one line per unreadable file, then exit status 1).
pub enum Failure {
    /// Printed as `fastcrypt: <message>`.
    Message(String),
    /// Already on standard error; only the exit status is left to set.
    Reported,
}

impl From<String> for Failure {
    fn from(e: String) -> Failure {
        Failure::Message(e)
    }
}
