//! GNU coreutils' text conventions that `sha1sum` (9.1) uses and that
//! `fastcrypt sha1` mirrors byte for byte: output lines and the escaping
//! of file names in them, the shell-style quoting of names in error
//! messages, and the parsing of `--check` lines. Plus the one addition of
//! Debian's collision-detecting `sha1cdsum`: the `*coll*` mark on the line
//! of a file that is part of a collision attack. Pure functions on bytes,
//! so file names that are not UTF-8 pass through unchanged.
//!
//! Self-contained (std only): the fuzz target
//! fuzz/fuzz_targets/sha1_check_line.rs includes this file with `#[path]`
//! and checks that every line [`hash_line`] writes parses back with
//! [`parse_line`], so it must not use other modules of the crate.

/// Whether a name on a hashing output line needs GNU's escaping (a
/// leading `\` on the line): it holds a backslash, newline or CR.
pub fn needs_escape_hash(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Whether a name on a `--check` result line needs escaping: coreutils
/// 9.1 escapes those only for a newline (a backslash or CR is printed
/// raw there, unlike on hashing lines).
pub fn needs_escape_check(name: &[u8]) -> bool {
    name.contains(&b'\n')
}

/// `\` as `\\`, newline as `\n`, CR as `\r`: the inverse of [`unescape`].
pub fn escape(name: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(name.len() + 2);
    for &b in name {
        match b {
            b'\\' => v.extend_from_slice(b"\\\\"),
            b'\n' => v.extend_from_slice(b"\\n"),
            b'\r' => v.extend_from_slice(b"\\r"),
            _ => v.push(b),
        }
    }
    v
}

/// GNU's `filename_unescape`: `\\`, `\n` and `\r` only; any other escape,
/// a trailing lone backslash or a NUL makes the line malformed (`None`).
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut v = Vec::with_capacity(s.len());
    let mut it = s.iter();
    while let Some(&b) = it.next() {
        match b {
            b'\\' => match it.next() {
                Some(b'n') => v.push(b'\n'),
                Some(b'r') => v.push(b'\r'),
                Some(b'\\') => v.push(b'\\'),
                _ => return None,
            },
            0 => return None,
            _ => v.push(b),
        }
    }
    Some(v)
}

/// The mark `sha1cdsum` (Debian's collision-detecting `sha1sum`) and
/// `fastcrypt sha1` put between digest and name for a file found to be
/// part of a collision attack: `HEX *coll* NAME`, `SHA1 (NAME) = *coll*
/// HEX`. It replaces the two-character mode separator (`  ` or ` *`).
pub const COLLISION_MARK: &[u8] = b"*coll*";

/// One output line for a hashed file, in the requested format: `HEX  NAME`,
/// `HEX *NAME` (binary) or `SHA1 (NAME) = HEX` (tag), the name escaped
/// unless `zero` ends the line with NUL instead of a newline. `hex` is the
/// digest as lowercase hex digits.
pub fn hash_line(name: &[u8], hex: &str, binary: bool, tag: bool, zero: bool) -> Vec<u8> {
    line(
        name,
        hex,
        tag,
        zero,
        if binary { Sep::Binary } else { Sep::Text },
    )
}

/// The line for a file found to be part of a collision attack, as
/// `sha1cdsum` writes it: [`hash_line`]'s with [`COLLISION_MARK`] before
/// the name (`HEX *coll* NAME`, whatever the mode) or, with `tag`, before
/// the digest (`SHA1 (NAME) = *coll* HEX`). `hex` is the digest printed
/// for it (the safe hash).
pub fn collision_line(name: &[u8], hex: &str, tag: bool, zero: bool) -> Vec<u8> {
    line(name, hex, tag, zero, Sep::Collision)
}

/// What goes between digest and name on a hashing line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sep {
    Text,
    Binary,
    Collision,
}

fn line(name: &[u8], hex: &str, tag: bool, zero: bool, sep: Sep) -> Vec<u8> {
    let escaped = !zero && needs_escape_hash(name);
    let shown = if escaped { escape(name) } else { name.to_vec() };
    let mut line = Vec::with_capacity(shown.len() + 60);
    if escaped {
        line.push(b'\\');
    }
    if tag {
        line.extend_from_slice(b"SHA1 (");
        line.extend_from_slice(&shown);
        line.extend_from_slice(b") = ");
        if sep == Sep::Collision {
            line.extend_from_slice(COLLISION_MARK);
            line.push(b' ');
        }
        line.extend_from_slice(hex.as_bytes());
    } else {
        line.extend_from_slice(hex.as_bytes());
        match sep {
            Sep::Text => line.extend_from_slice(b"  "),
            Sep::Binary => line.extend_from_slice(b" *"),
            Sep::Collision => {
                line.push(b' ');
                line.extend_from_slice(COLLISION_MARK);
                line.push(b' ');
            }
        }
        line.extend_from_slice(&shown);
    }
    line.push(if zero { 0 } else { b'\n' });
    line
}

/// One unit of a name for quoting: a printable character (kept as is)
/// or a byte that has to be written as an escape.
enum Unit<'a> {
    Char(&'a str),
    Byte(u8),
}

/// Splits `name` as glibc's multibyte decoder sees it in a UTF-8 locale:
/// printable characters stay whole; control characters and bytes that
/// are not valid UTF-8 become one escaped byte each. An iterator, walked
/// twice by `quotef`, so that quoting a name of any length needs no
/// memory beyond the result (a vector of units took 16 bytes per byte of
/// the name: a 400 MB name in a check list cost 7 GB).
fn units(name: &[u8]) -> impl Iterator<Item = Unit<'_>> {
    name.utf8_chunks().flat_map(|chunk| {
        let s = chunk.valid();
        let valid = s.char_indices().flat_map(move |(i, c)| {
            let piece = &s[i..i + c.len_utf8()];
            let (whole, bytes): (Option<Unit<'_>>, &[u8]) = if c.is_control() {
                (None, piece.as_bytes())
            } else {
                (Some(Unit::Char(piece)), &[])
            };
            whole
                .into_iter()
                .chain(bytes.iter().map(|&b| Unit::Byte(b)))
        });
        valid.chain(chunk.invalid().iter().map(|&b| Unit::Byte(b)))
    })
}

/// The C escape letter for the control characters quotearg writes that
/// way (`$'\n'`); the others are written in octal.
fn c_escape(b: u8) -> Option<char> {
    Some(match b {
        7 => 'a',
        8 => 'b',
        0x0c => 'f',
        b'\n' => 'n',
        b'\r' => 'r',
        b'\t' => 't',
        0x0b => 'v',
        _ => return None,
    })
}

/// Characters that never need quoting (gnulib quotearg's list).
fn is_safe(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"%+,-./:]_".contains(&c)
}

/// GNU's `quotef` (gnulib quotearg, `shell_escape_quoting_style` with `:`
/// also quoted) in a UTF-8 locale: how coreutils names a file in an error
/// message, so that the name can be pasted back into a shell. A plain
/// name is left alone; otherwise it is single-quoted, with control and
/// invalid bytes as `$'\n'` / `$'\377'` pieces, or double-quoted when an
/// apostrophe is the only problem.
pub fn quotef(name: &[u8]) -> String {
    // Bytes before each unit, for quotearg's "first character" rules.
    let mut needs = name.is_empty();
    let mut shell_compat = true;
    let mut has_apostrophe = false;
    let mut at = 0;
    for u in units(name) {
        let (force, compat) = match u {
            Unit::Byte(_) => (true, false),
            Unit::Char(s) if s.len() > 1 => (false, true),
            Unit::Char(s) => {
                let c = s.as_bytes()[0];
                match c {
                    b'{' | b'}' if name.len() == 1 => (true, true),
                    b'{' | b'}' => (false, false),
                    b'#' | b'~' if at == 0 => (true, true),
                    b'#' | b'~' => (false, false),
                    b' ' => (true, true),
                    b'\'' => {
                        has_apostrophe = true;
                        (true, true)
                    }
                    b':' => (true, true),
                    _ if is_safe(c) => (false, true),
                    b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>'
                    | b'[' | b'^' | b'`' | b'|' | b'?' | b'\\' => (true, false),
                    // '@' and the like: printable, never special.
                    _ => (false, true),
                }
            }
        };
        needs |= force;
        shell_compat &= compat;
        at += match u {
            Unit::Byte(_) => 1,
            Unit::Char(s) => s.len(),
        };
    }
    if !needs {
        return String::from_utf8_lossy(name).into_owned();
    }
    if has_apostrophe && shell_compat {
        return format!("\"{}\"", String::from_utf8_lossy(name));
    }
    let mut q = String::from("'");
    // Inside a `$'...'` piece, which the next plain character must close.
    let mut in_dollar = false;
    for u in units(name) {
        match u {
            Unit::Byte(b) => {
                if !in_dollar {
                    q.push_str("'$'");
                    in_dollar = true;
                }
                q.push('\\');
                match c_escape(b) {
                    Some(e) => q.push(e),
                    None => q.push_str(&format!("{b:03o}")),
                }
            }
            Unit::Char("'") => {
                q.push_str("'\\''");
                in_dollar = false;
            }
            Unit::Char(s) => {
                if in_dollar {
                    q.push_str("''");
                    in_dollar = false;
                }
                q.push_str(s);
            }
        }
    }
    q.push('\'');
    q
}

/// A well-formed `--check` line: the expected digest (40 hex digits, any
/// case) and the file name, unescaped.
#[derive(Debug, PartialEq, Eq)]
pub struct CheckLine {
    pub digest: Vec<u8>,
    pub name: Vec<u8>,
}

/// Which line format a run of `--check` has committed to, as GNU's
/// process-wide `bsd_reversed`: the first `hex  name` line rules out the
/// `hex name` (one space, "BSD reversed") form for every later line and
/// list, and the reverse.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Unknown,
    Gnu,
    Reversed,
}

const HEX_LEN: usize = 40;
/// GNU's shortest line: digest, one separator, one name byte.
const MIN_LINE: usize = HEX_LEN + 2;

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn valid_digits(d: &[u8]) -> bool {
    d.len() == HEX_LEN && d.iter().all(u8::is_ascii_hexdigit)
}

/// A name as a C string: GNU stops at the first NUL byte.
fn c_str(s: &[u8]) -> &[u8] {
    s.split(|&b| b == 0).next().unwrap_or(s)
}

/// GNU's `split_3`: one line (trailing LF and CR already removed) as
/// `[\]hex  name`, `[\]hex *name`, `[\]SHA1 (name) = hex` or, if the run
/// allows it, `hex name`; also with sha1cdsum's collision mark,
/// `[\]hex *coll* name` and `[\]SHA1 (name) = *coll* hex`. Leading blanks
/// are skipped; `None` is a malformed line.
pub fn parse_line(s: &[u8], layout: &mut Layout) -> Option<CheckLine> {
    // Index past the end reads as the C string's terminating NUL.
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while is_white(at(i)) {
        i += 1;
    }
    let escaped = at(i) == b'\\';
    if escaped {
        i += 1;
    }
    if s[i.min(s.len())..].starts_with(b"SHA1") {
        i += 4;
        if at(i) == b' ' {
            i += 1;
        }
        if at(i) != b'(' {
            return None;
        }
        return parse_bsd(&s[i + 1..], escaped);
    }
    if s.len().saturating_sub(i) < MIN_LINE + usize::from(at(i) == b'\\') {
        return None;
    }
    let start = i;
    while at(i) != 0 && !is_white(at(i)) {
        i += 1;
    }
    if i >= s.len() {
        return None;
    }
    let digest = &s[start..i];
    i += 1;
    if !valid_digits(digest) {
        return None;
    }
    // `HEX *coll* NAME`: a file part of a collision attack, as sha1cdsum
    // and fastcrypt write it; the mark is not part of the name. (GNU would
    // read a binary-mode file named `coll* NAME`; such a name cannot be
    // told apart from the mark, in this format or in sha1cdsum's.) A
    // two-column line, the same in a run that has seen one-space lines.
    if let Some(rest) = s[i..]
        .strip_prefix(COLLISION_MARK)
        .and_then(|r| r.strip_prefix(b" "))
        .filter(|r| !r.is_empty())
    {
        if *layout == Layout::Unknown {
            *layout = Layout::Gnu;
        }
        return name_of(rest, escaped).map(|name| CheckLine {
            digest: digest.to_vec(),
            name,
        });
    }
    if s.len() - i == 1 || (at(i) != b' ' && at(i) != b'*') {
        // `hex name`: refused once the run has seen GNU's two-column form,
        // so a file renamed with a leading blank cannot pass as another.
        if *layout == Layout::Gnu {
            return None;
        }
        *layout = Layout::Reversed;
    } else if *layout != Layout::Reversed {
        *layout = Layout::Gnu;
        i += 1;
    }
    name_of(&s[i..], escaped).map(|name| CheckLine {
        digest: digest.to_vec(),
        name,
    })
}

/// A name as a list line holds it: unescaped on an escaped line, else a
/// C string.
fn name_of(s: &[u8], escaped: bool) -> Option<Vec<u8>> {
    if escaped {
        unescape(s)
    } else {
        Some(c_str(s).to_vec())
    }
}

/// GNU's `bsd_split_3`: `name) = hex` after `SHA1 (`; the name runs to
/// the last `)`, so it may itself contain `)`. sha1cdsum's and our
/// `name) = *coll* hex`, of a file part of a collision attack, is read
/// too (the mark then a blank before the digest).
fn parse_bsd(s: &[u8], escaped: bool) -> Option<CheckLine> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = name_of(&s[..close], escaped)?;
    let rest = skip_blanks(&s[close + 1..]).strip_prefix(b"=")?;
    let rest = skip_blanks(rest);
    let rest = match rest.strip_prefix(COLLISION_MARK) {
        Some(r) if r.first().copied().is_some_and(is_white) => skip_blanks(r),
        _ => rest,
    };
    valid_digits(rest).then(|| CheckLine {
        digest: rest.to_vec(),
        name,
    })
}

/// `s` past its leading GNU `ISWHITE` bytes (space and tab only).
fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| is_white(b)).count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_coreutils() {
        // Expected strings taken from sha1sum 9.1 in C.UTF-8.
        for (name, want) in [
            (&b"plain.txt"[..], "plain.txt"),
            (b"a:b", "'a:b'"),
            (b"sp ace", "'sp ace'"),
            (b"q'uote", "\"q'uote\""),
            ("é".as_bytes(), "é"),
            (b"\xff", "''$'\\377'"),
            (b"#h", "'#h'"),
            (b"a#", "a#"),
            (b"~t", "'~t'"),
            (b"t\tab", "'t'$'\\t''ab'"),
            (b"x=y", "'x=y'"),
            (b"a,b", "a,b"),
            (b"a@b", "a@b"),
            (b"a{b}", "a{b}"),
            (b"a!b", "'a!b'"),
            (b"nope\\nx", "'nope\\nx'"),
            (b"m\n\\\rz", "'m'$'\\n''\\'$'\\r''z'"),
            (b"it's \\", "'it'\\''s \\'"),
            (b"", "''"),
        ] {
            assert_eq!(quotef(name), want, "{:?}", String::from_utf8_lossy(name));
        }
    }

    #[test]
    fn escaping_round_trips() {
        let name = b"a\\b\nc\rd";
        assert_eq!(escape(name), b"a\\\\b\\nc\\rd");
        assert_eq!(unescape(&escape(name)).unwrap(), name);
        assert_eq!(unescape(b"a\\"), None);
        assert_eq!(unescape(b"a\\t"), None);
    }

    #[test]
    fn lines_parse_as_gnu_does() {
        let h = "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8";
        let mut l = Layout::Unknown;
        let p = parse_line(format!("  {h} *x y").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"x y");
        let p = parse_line(format!("\\SHA1 (a\\nb) = {h}").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"a\nb");
        assert!(parse_line(format!("SHA1(a))= {h}").as_bytes(), &mut l).is_some());
        assert!(parse_line(format!("SHA1 (a) = {h} ").as_bytes(), &mut l).is_none());
        // GNU layout seen: the one-space form is now malformed.
        assert!(parse_line(format!("{h} a").as_bytes(), &mut l).is_none());
        let mut l = Layout::Unknown;
        assert!(parse_line(format!("{h}\ta").as_bytes(), &mut l).is_some());
        let p = parse_line(format!("{h}  a").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b" a");
        for bad in ["", "x", "SHA1", "SHA1 (", &h[..39], "\\"] {
            assert!(parse_line(bad.as_bytes(), &mut Layout::Unknown).is_none());
        }
    }

    #[test]
    fn collision_lines_are_sha1cdsums() {
        // Bytes as sha1cdsum 0.2.6 writes them.
        let h = "16e96b70000dd1e7c85b8368ee197754400e58ec";
        let line = |n: &[u8], tag, zero| String::from_utf8(collision_line(n, h, tag, zero));
        assert_eq!(
            line(b"s.pdf", false, false).unwrap(),
            format!("{h} *coll* s.pdf\n")
        );
        assert_eq!(
            line(b"s.pdf", false, true).unwrap(),
            format!("{h} *coll* s.pdf\0")
        );
        assert_eq!(
            line(b"s.pdf", true, false).unwrap(),
            format!("SHA1 (s.pdf) = *coll* {h}\n")
        );
        assert_eq!(
            line(b"a\\b", false, false).unwrap(),
            format!("\\{h} *coll* a\\\\b\n")
        );
        assert_eq!(
            line(b"a\\b", true, false).unwrap(),
            format!("\\SHA1 (a\\\\b) = *coll* {h}\n")
        );
        // Unchanged lines for files without an attack.
        assert_eq!(
            hash_line(b"x", h, true, false, false),
            format!("{h} *x\n").as_bytes()
        );
        assert_eq!(
            hash_line(b"x", h, false, false, false),
            format!("{h}  x\n").as_bytes()
        );
        assert_eq!(
            hash_line(b"x", h, true, true, false),
            format!("SHA1 (x) = {h}\n").as_bytes()
        );
    }

    #[test]
    fn collision_mark_is_not_part_of_the_name() {
        let h = "16e96b70000dd1e7c85b8368ee197754400e58ec";
        for (line, name, layout) in [
            (format!("{h} *coll* s.pdf"), &b"s.pdf"[..], Layout::Gnu),
            (format!("{h} *coll*  two"), b" two", Layout::Gnu),
            (format!("\\{h} *coll* a\\nb"), b"a\nb", Layout::Gnu),
            (
                format!("SHA1 (s.pdf) = *coll* {h}"),
                b"s.pdf",
                Layout::Unknown,
            ),
            (
                format!("SHA1 (s.pdf) =\t*coll*\t {h}"),
                b"s.pdf",
                Layout::Unknown,
            ),
            (
                format!("\\SHA1 (a\\\\b) = *coll* {h}"),
                b"a\\b",
                Layout::Unknown,
            ),
        ] {
            let mut l = Layout::Unknown;
            let p = parse_line(line.as_bytes(), &mut l).unwrap();
            assert_eq!(p.name, name, "{line:?}");
            assert_eq!(p.digest, h.as_bytes());
            assert!(l == layout, "{line:?}");
            // The same after one-space lines: the mark is still a mark.
            let mut l = Layout::Reversed;
            assert_eq!(parse_line(line.as_bytes(), &mut l).unwrap().name, name);
            assert!(l == Layout::Reversed);
        }
        // Not the mark: GNU's reading stands.
        let mut l = Layout::Unknown;
        let p = parse_line(format!("{h} *coll*").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"coll*");
        let p = parse_line(format!("{h} *coll* ").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"coll* ");
        let p = parse_line(format!("{h} *colls x").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"colls x");
        let p = parse_line(format!("{h}  *coll* x").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"*coll* x");
        let mut l = Layout::Reversed;
        let p = parse_line(format!("{h} coll* x").as_bytes(), &mut l).unwrap();
        assert_eq!(p.name, b"coll* x");
        for bad in [
            format!("SHA1 (x) = *coll*{h}"),
            format!("SHA1 (x) = *coll* {h} "),
            "SHA1 (x) = *coll* ".to_string(),
            format!("\\{h} *coll* bad\\q"),
        ] {
            assert!(
                parse_line(bad.as_bytes(), &mut Layout::Unknown).is_none(),
                "{bad:?}"
            );
        }
    }
}
