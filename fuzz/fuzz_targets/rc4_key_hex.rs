//! `fastcrypt rc4 --key HEX` (crates/fastcrypt-cli/src/hex.rs): any key
//! written as hex, in either case, decodes to itself; any text decodes to
//! bytes that print back as that text, or to an error that names the
//! actual problem (the position of the first non-digit, else the odd
//! length), never a panic.
#![no_main]

// The CLI's self-contained hex module, compiled in as it is (see
// sha1_check_line.rs for why not through the binary crate).
#[path = "../../crates/fastcrypt-cli/src/hex.rs"]
mod hex;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    // The input as a key: parse(format(key)) == key.
    let text = hex::encode(input);
    assert_eq!(text.len(), 2 * input.len());
    assert!(text.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
    assert_eq!(hex::decode(&text).unwrap(), input);
    assert_eq!(hex::decode(&text.to_ascii_uppercase()).unwrap(), input);

    // The input as the text of --key (not UTF-8 reaches us only as the
    // replacement characters of a lossy conversion).
    let s = String::from_utf8_lossy(input);
    match hex::decode(&s) {
        Ok(key) => {
            assert_eq!(2 * key.len(), s.len());
            assert!(hex::encode(&key).eq_ignore_ascii_case(&s));
        }
        Err(e) => match s.bytes().position(|c| !c.is_ascii_hexdigit()) {
            // A stray character is named first, even when the count is
            // odd too.
            Some(bad) => {
                let at = format!("not a hex digit at position {}: ", bad + 1);
                assert!(e.starts_with(&at), "{s:?}: {e}");
                if s.as_bytes()[bad].is_ascii() {
                    assert!(
                        e.ends_with(&format!("{:?}", s.as_bytes()[bad] as char)),
                        "{e}"
                    );
                }
            }
            None => {
                assert_eq!(s.len() % 2, 1, "{s:?} refused with every digit valid: {e}");
                assert_eq!(e, format!("odd number of hex digits ({})", s.len()));
            }
        },
    }
});
