//! Hex text of bytes, both ways: SHA-1 digests out (`sha1`), RC4 keys in
//! (`rc4 --key`).
//!
//! Self-contained (std only): the fuzz targets include this file with
//! `#[path]` (fuzz/fuzz_targets/rc4_key_hex.rs), so it must not use other
//! modules of the crate.

/// Lowercase hex digits, two per byte.
pub fn encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex digits (either case, no separators) to bytes.
pub fn decode(s: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8, at: usize| -> Result<u8, String> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(format!(
                "not a hex digit at position {}: {:?}",
                at + 1,
                s.get(at..).and_then(|t| t.chars().next()).unwrap_or('?')
            )),
        }
    };
    // One pass. A stray character (a space, `0x`) is the likelier
    // mistake, so it is named first, even when it also makes the count
    // odd: the count is checked only once every character was.
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut high = None;
    for (at, c) in s.bytes().enumerate() {
        let d = digit(c, at)?;
        match high.take() {
            None => high = Some(d),
            Some(h) => out.push(h << 4 | d),
        }
    }
    if high.is_some() {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn hex() {
        assert_eq!(decode("00fFa5").unwrap(), vec![0, 0xff, 0xa5]);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
        assert!(decode("abc").unwrap_err().contains("odd"));
        assert!(decode("zz").unwrap_err().contains("position 1"));
        // A stray character is named even when the count is odd too.
        assert!(decode("01 02").unwrap_err().contains("position 3: ' '"));
        assert!(decode("0é").is_err());
        assert_eq!(encode(&[0, 0xff, 0xa5]), "00ffa5");
    }
}
