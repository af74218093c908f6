//! The git object id of a file, as `git hash-object FILE` prints it, with
//! the collision detection git uses: the header `blob <size>\0`, then the
//! contents, through `Sha1Dc`. Like git, it refuses data that is part of a
//! SHA-1 collision attack instead of printing an id for it. (The
//! SHAttered PDFs themselves pass: the header in front changes every
//! chaining value, so they are no attack on git; colliding blobs would
//! have to be built with it, and those are refused.)
//!
//! ```text
//! cargo run -p fastcrypt --example git_blob_id -- README.md
//! ```

use fastcrypt::sha1::Sha1Dc;
use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: git_blob_id FILE");
        return ExitCode::from(2);
    };
    let mut file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("git_blob_id: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let size = match file.metadata() {
        Ok(m) => m.len(),
        Err(e) => {
            eprintln!("git_blob_id: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut hasher = Sha1Dc::new();
    hasher.update(format!("blob {size}\0"));
    let mut buf = vec![0u8; 64 * 1024];
    let mut seen = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                seen += n as u64;
            }
            Err(e) => {
                eprintln!("git_blob_id: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if seen != size {
        eprintln!("git_blob_id: {path}: changed while being read");
        return ExitCode::FAILURE;
    }
    match hasher.finalize().ok() {
        Ok(id) => {
            let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
            println!("{hex}");
            ExitCode::SUCCESS
        }
        Err(attack) => {
            // git's message for the same case.
            eprintln!(
                "git_blob_id: {path}: SHA-1 appears to be part of a collision attack: {attack}"
            );
            ExitCode::FAILURE
        }
    }
}
