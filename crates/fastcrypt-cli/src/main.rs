//! `fastcrypt`: the speed lab and everyday tools on top of the library.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cpu_cmd;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cpu => cpu_cmd::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fastcrypt: {e}");
            ExitCode::FAILURE
        }
    }
}
