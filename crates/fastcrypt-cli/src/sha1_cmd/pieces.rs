//! `fastcrypt sha1 --pieces SIZE FILE`: the SHA-1 of each consecutive
//! SIZE-byte piece of FILE, as BitTorrent v1 lists piece hashes, one
//! `OFFSET HEX` line per piece (decimal byte offset, lowercase hex).
//!
//! Plain SHA-1 always: BitTorrent defines pieces by it, so collision
//! detection does not apply. The file is read in chunks of whole pieces
//! ([`chunk_pieces`]), and each chunk's pieces are hashed by the
//! multi-buffer kernels
//! ([`Sha1Many::digest_pieces_into`](fastcrypt::sha1::Sha1Many)), split
//! across the `-j` threads, while the next chunk is read: two chunks in
//! memory, whatever the file's size. Pieces larger than [`CHUNK_BYTES`]
//! are streamed one at a time instead.

use super::out::Sink;
use super::Hashing;
use fastcrypt::sha1::Sha1;
use std::io::{self, Read, Write};

/// About how much of a chunk one thread hashes: 32 pieces of 256 KiB,
/// two rounds of AVX-512's 16 lanes. Chunks are read into buffers that
/// are reused, so this is also what a thread's data costs in page faults
/// once: 64 MiB chunks made that (not the hashing) the main cost of a
/// 128 MiB file.
const THREAD_BYTES: usize = 8 << 20;

/// The largest chunk, whatever the thread count; larger pieces are
/// streamed.
const CHUNK_BYTES: usize = 64 << 20;

/// The most pieces per chunk, so that tiny pieces (SIZE 1) do not make
/// a chunk's digests and lines outgrow its data many times over.
const CHUNK_PIECES: usize = 1 << 16;

/// How many `size`-byte pieces a chunk holds with `jobs` threads: about
/// [`THREAD_BYTES`] for each, within the limits above, at least one.
fn chunk_pieces(size: usize, jobs: usize) -> usize {
    let jobs = jobs.max(1);
    let per_thread = (THREAD_BYTES / size).clamp(1, (CHUNK_PIECES / jobs).max(1));
    (per_thread * jobs)
        .min((CHUNK_BYTES / size).max(1))
        .min(CHUNK_PIECES)
}

/// `--pieces SIZE`: bytes, or a number with a binary suffix (K, M, G,
/// also written KiB, MiB, GiB; any case).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let bad =
        || format!("invalid piece size '{s}' (a number of bytes, or with K, M or G: 1K = 1024)");
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, suffix) = s.split_at(digits);
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return Err(bad()),
    };
    if number.is_empty() {
        return Err(bad());
    }
    let too_large = || format!("piece size '{s}' is too large");
    let n: usize = number.parse().map_err(|_| too_large())?;
    let size = n.checked_mul(1 << shift).ok_or_else(too_large)?;
    if size == 0 {
        return Err(format!(
            "piece size '{s}' is 0: a piece needs at least 1 byte"
        ));
    }
    Ok(size)
}

/// Prints the pieces of `name` (`-`: standard input); true on success.
pub fn run(
    name: &[u8],
    size: usize,
    how: Hashing,
    jobs: usize,
    zero: bool,
    sink: &mut Sink<'_>,
) -> bool {
    let reader: Box<dyn Read> = if name == b"-" {
        match super::stdin() {
            Ok(s) => Box::new(s),
            Err(e) => return fail(sink, name, &e),
        }
    } else {
        match super::open(name) {
            Ok(f) => Box::new(f),
            Err(e) => return fail(sink, name, &e),
        }
    };
    let mut lines = Lines {
        offset: 0,
        size: size as u64,
        end: if zero { 0 } else { b'\n' },
    };
    let r = if size > CHUNK_BYTES {
        streamed(reader, size, how, &mut lines, sink)
    } else {
        chunked(reader, size, how, jobs, &mut lines, sink)
    };
    match r {
        Ok(()) => true,
        Err(e) => fail(sink, name, &e),
    }
}

fn fail(sink: &Sink<'_>, name: &[u8], e: &io::Error) -> bool {
    super::report(sink, name, e);
    false
}

/// The output lines, numbered by offset.
struct Lines {
    /// The next piece's offset.
    offset: u64,
    size: u64,
    end: u8,
}

impl Lines {
    /// One write for all of `digests`' lines.
    fn print(&mut self, digests: &[[u8; 20]], sink: &mut Sink<'_>) {
        if digests.is_empty() {
            return;
        }
        let mut text = Vec::with_capacity(digests.len() * 54);
        for d in digests {
            let _ = write!(text, "{} {}", self.offset, crate::hex::encode(d));
            text.push(self.end);
            self.offset += self.size;
        }
        sink.record(&text);
    }
}

/// Fills `buf` from `r`, short only at the end of the input.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Whole chunks of pieces, each hashed while the next one is read.
fn chunked(
    mut r: Box<dyn Read>,
    size: usize,
    how: Hashing,
    jobs: usize,
    lines: &mut Lines,
    sink: &mut Sink<'_>,
) -> io::Result<()> {
    let chunk = chunk_pieces(size, jobs) * size;
    let mut cur = vec![0u8; chunk];
    let mut next = vec![0u8; chunk];
    let mut digests = Vec::new();
    let mut n = fill(&mut *r, &mut cur)?;
    while n > 0 {
        let data = &cur[..n];
        digests.clear();
        digests.resize(n.div_ceil(size), [0u8; 20]);
        // A short chunk was the end of the input: reading on would wait
        // for more from a terminal that has already said end-of-file.
        let more = n == chunk;
        let read = std::thread::scope(|s| {
            super::pool::spawn(s, || hash_pieces(data, size, how, jobs, &mut digests));
            // The scope waits for the hashing before it returns.
            if more {
                fill(&mut *r, &mut next)
            } else {
                Ok(0)
            }
        });
        sink.progress.inc(n as u64);
        // Pieces before a failed read are still printed.
        lines.print(&digests, sink);
        n = read?;
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(())
}

/// The digests of `data`'s pieces into `out`, the pieces split in runs
/// across `jobs` threads.
fn hash_pieces(data: &[u8], size: usize, how: Hashing, jobs: usize, out: &mut [[u8; 20]]) {
    let per = out.len().div_ceil(jobs.max(1)).max(1);
    std::thread::scope(|s| {
        let mut runs = data.chunks(per * size).zip(out.chunks_mut(per));
        let first = runs.next();
        for (d, o) in runs {
            super::pool::spawn(s, move || hash_run(d, size, how, o));
        }
        if let Some((d, o)) = first {
            hash_run(d, size, how, o);
        }
    });
}

fn hash_run(data: &[u8], size: usize, how: Hashing, out: &mut [[u8; 20]]) {
    match (how.many, how.backend) {
        (Some(m), _) => m.digest_pieces_into(data, size, out),
        // `--backend` without `--lanes`: one stream per piece, on it.
        (None, b) => {
            for (piece, o) in data.chunks(size).zip(out) {
                let mut h = match b {
                    Some(b) => Sha1::with_backend(b).expect("checked at start-up"),
                    None => Sha1::new(),
                };
                h.update(piece);
                *o = h.finalize();
            }
        }
    }
}

/// Pieces larger than a chunk: each one streamed.
fn streamed(
    mut r: Box<dyn Read>,
    size: usize,
    how: Hashing,
    lines: &mut Lines,
    sink: &mut Sink<'_>,
) -> io::Result<()> {
    let new = || match how.backend {
        Some(b) => Sha1::with_backend(b).expect("checked at start-up"),
        None => Sha1::new(),
    };
    let mut buf = vec![0u8; super::READ_LEN];
    loop {
        let mut h = new();
        let mut left = size;
        while left > 0 {
            let want = left.min(buf.len());
            let n = fill(&mut *r, &mut buf[..want])?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            sink.progress.inc(n as u64);
            left -= n;
            if n < want {
                break;
            }
        }
        if left == size {
            return Ok(());
        }
        lines.print(&[h.finalize()], sink);
        if left > 0 {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1"), Ok(1));
        assert_eq!(parse_size("256K"), Ok(256 << 10));
        assert_eq!(parse_size("3MiB"), Ok(3 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        for bad in ["", "K", "1.5K", "-1", "1KB", "1 K", "0x10", "+1"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
        assert!(parse_size("0").unwrap_err().contains("is 0"));
        assert!(parse_size("0G").unwrap_err().contains("is 0"));
        let huge = format!("{}G", usize::MAX);
        assert!(parse_size(&huge).unwrap_err().contains("too large"));
    }

    #[test]
    fn chunks_hold_whole_pieces_within_bounds() {
        for size in [
            1,
            64,
            1000,
            256 << 10,
            1 << 20,
            16 << 20,
            48 << 20,
            CHUNK_BYTES,
        ] {
            for jobs in [1, 2, 3, 8, 64, 1000] {
                let n = chunk_pieces(size, jobs);
                assert!((1..=CHUNK_PIECES).contains(&n), "{size} {jobs}: {n}");
                assert!(n == 1 || n * size <= CHUNK_BYTES, "{size} {jobs}: {n}");
            }
        }
        // Two threads, 256 KiB pieces: 32 pieces each.
        assert_eq!(chunk_pieces(256 << 10, 2), 64);
    }
}
