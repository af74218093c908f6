//! SHA-1 of a file (or of standard input), streamed in 64 KiB reads, in
//! `sha1sum`'s output format.
//!
//! ```text
//! cargo run -p fastcrypt --example sha1_file -- Cargo.toml
//! ```
//!
//! SHA-1 is broken for collision resistance: use it where a format demands
//! it (git object ids, BitTorrent v1 pieces, HMAC-SHA1), not for new
//! designs.

use fastcrypt::sha1::Sha1;
use std::io::Read;

fn main() -> std::io::Result<()> {
    let name = std::env::args().nth(1);
    let mut input: Box<dyn Read> = match &name {
        Some(path) => Box::new(std::fs::File::open(path)?),
        None => Box::new(std::io::stdin().lock()),
    };
    let mut hasher = Sha1::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("{hex}  {}", name.as_deref().unwrap_or("-"));
    Ok(())
}
