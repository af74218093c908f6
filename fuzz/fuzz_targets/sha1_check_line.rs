//! `fastcrypt sha1 --check` lines (crates/fastcrypt-cli/src/sha1_cmd/gnu.rs):
//! every line our hashing output writes, for any file name, is one list line
//! that parses back to that name and digest; any bytes at all parse or are
//! refused without a panic, and what parses is a well-formed entry; name
//! escaping round-trips and error-message quoting leaves no control
//! character in the message.
#![no_main]

// The CLI is a binary crate whose dependencies (openssl, ring, clap,
// plotters) a fuzz build should not carry: its self-contained text modules
// are compiled in here as they are.
#[allow(dead_code)]
#[path = "../../crates/fastcrypt-cli/src/sha1_cmd/gnu.rs"]
mod gnu;
#[allow(dead_code)]
#[path = "../../crates/fastcrypt-cli/src/hex.rs"]
mod hex;

use gnu::{escape, hash_line, parse_line, quotef, unescape, Layout};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    any_line(input);
    if let Some((&flags, rest)) = input.split_first() {
        let (digest, name) = rest.split_at(rest.len().min(20));
        round_trip(name, digest, flags & 1 != 0, flags & 2 != 0);
    }
});

/// Arbitrary bytes as a list line, under each layout a run can be in.
fn any_line(line: &[u8]) {
    for start in [Layout::Unknown, Layout::Gnu, Layout::Reversed] {
        let mut layout = start;
        let parsed = parse_line(line, &mut layout);
        // A run never switches between the two one-line forms.
        if start != Layout::Unknown {
            assert!(layout == start, "layout changed from a committed one");
        }
        if let Some(e) = parsed {
            assert_eq!(e.digest.len(), 40);
            assert!(
                e.digest.iter().all(u8::is_ascii_hexdigit),
                "digest {:?}",
                e.digest
            );
            // A C string: names end at NUL, escaped names refuse it.
            assert!(!e.name.contains(&0), "NUL in a parsed name");
            // Parsing again in the layout the line committed to agrees.
            let mut again = layout;
            assert_eq!(parse_line(line, &mut again).as_ref(), Some(&e));
        }
    }
}

/// A line as `fastcrypt sha1` prints it for a file `name` with digest
/// `digest`, read back as `--check` reads list lines.
fn round_trip(name: &[u8], digest: &[u8], binary: bool, tag: bool) {
    // File names are non-empty C strings.
    let name: Vec<u8> = name.iter().copied().filter(|&b| b != 0).collect();
    if name.is_empty() {
        return;
    }
    let want = hex::encode(digest);
    let mut padded = [0u8; 20];
    padded[..digest.len()].copy_from_slice(digest);
    let hex = hex::encode(&padded);
    assert!(want.len() == 2 * digest.len() && hex.starts_with(&want));

    // Escaping: inverse of unescape, and no line break left in the text.
    let e = escape(&name);
    assert_eq!(unescape(&e).as_deref(), Some(&name[..]));
    assert!(!e.contains(&b'\n') && !e.contains(&b'\r'));

    // Quoting for error messages: never a raw control character (the
    // message must stay one line that a shell can take back).
    let q = quotef(&name);
    assert!(!q.chars().any(char::is_control), "{q:?}");
    if name
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"%+,-./]_".contains(&b))
    {
        assert_eq!(q.as_bytes(), &name[..]);
    }

    let line = hash_line(&name, &hex, binary, tag, false);
    // check.rs reads lines up to '\n', skips those starting with '#',
    // strips the LF and then one CR.
    assert_eq!(line.iter().position(|&b| b == b'\n'), Some(line.len() - 1));
    assert_ne!(line[0], b'#');
    let text = &line[..line.len() - 1];
    assert!(!text.ends_with(b"\r"), "a name's CR would be stripped");
    // A list written by us is in GNU's two-column layout (or tags): it
    // parses from a fresh run and from a run that already saw our lines.
    for start in [Layout::Unknown, Layout::Gnu] {
        let mut layout = start;
        let e = parse_line(text, &mut layout)
            .unwrap_or_else(|| panic!("our line is refused: {:?}", String::from_utf8_lossy(text)));
        assert_eq!(e.name, name, "name of {:?}", String::from_utf8_lossy(text));
        assert_eq!(e.digest, hex.as_bytes());
        assert!(layout == if tag { start } else { Layout::Gnu });
    }
    // Tag lines are read the same in every layout.
    if tag {
        let e = parse_line(text, &mut Layout::Reversed).unwrap();
        assert_eq!(e.name, name);
    }
}
