//! Shared helpers: per-backend registration, the generic backend-API
//! test, the boundary-length table, guard pages, vector files, inputs.

use fastcrypt::PrimitiveBackend;
use libtest_mimic::{Failed, Trial};
use std::fmt::Display;
use std::path::PathBuf;

/// The test outcome type: `Err` carries the message.
pub type TestResult = Result<(), Failed>;

/// Is `backend` in `FASTCRYPT_REQUIRE_BACKENDS` (`all` or a comma list)?
fn required(backend: &str) -> bool {
    match std::env::var("FASTCRYPT_REQUIRE_BACKENDS") {
        Ok(v) => v
            .split(',')
            .map(str::trim)
            .any(|x| x.eq_ignore_ascii_case("all") || x.eq_ignore_ascii_case(backend)),
        Err(_) => false,
    }
}

/// Registers `test` once per backend of `B`, named `<name>/<backend>`.
/// Backends that cannot run here (`b.check()` fails) become ignored trials, or
/// failing ones when required by the environment, so a CI machine known to
/// have every feature cannot pass by skipping a kernel.
pub fn per_backend<B, F>(trials: &mut Vec<Trial>, name: &str, test: F)
where
    B: PrimitiveBackend,
    F: Fn(B) -> TestResult + Clone + Send + 'static,
{
    for &b in B::ALL {
        let full = format!("{name}/{b}");
        match b.check() {
            Ok(()) => {
                let t = test.clone();
                trials.push(Trial::test(full, move || t(b)));
            }
            Err(e) if required(b.name()) => {
                let msg = format!("required backend is unavailable: {e}");
                trials.push(Trial::test(full, move || Err(msg.into())));
            }
            Err(_) => {
                trials.push(Trial::test(full, || Ok(())).with_ignored_flag(true));
            }
        }
    }
}

/// The backend API that every primitive shares, checked through one of
/// its types: `build(b)` is that type's `with_backend(b, ..)` mapped to the
/// object's `backend()`, `default()` is `new(..)`'s `backend()`. Every
/// backend is tried, available or not, so this runs once, not per backend.
pub fn backend_api<B, E>(build: impl Fn(B) -> Result<B, E>, default: impl Fn() -> B) -> TestResult
where
    B: PrimitiveBackend,
    E: Display,
{
    let fail = |msg: String| -> TestResult { Err(format!("{}: {msg}", B::PRIMITIVE).into()) };
    let portable = B::ALL[0];
    if portable.name() != "portable" || !portable.needs().is_empty() {
        return fail(format!("ALL[0] is {portable}, not the portable backend"));
    }
    let available = B::available();
    let listed: Vec<B> = B::ALL
        .iter()
        .copied()
        .filter(|b| b.is_available())
        .collect();
    if available != listed {
        return fail(format!(
            "available() {available:?} is not ALL filtered by is_available()"
        ));
    }
    if available.first() != Some(&portable) {
        return fail(format!(
            "available() {available:?} does not start with portable"
        ));
    }
    let fastest = B::fastest();
    if available.last() != Some(&fastest) {
        return fail(format!(
            "fastest() {fastest} is not the last of {available:?}"
        ));
    }
    if default() != fastest {
        return fail(format!(
            "new() picks {}, not fastest() {fastest}",
            default()
        ));
    }
    for &b in B::ALL {
        if b.check().is_ok() != b.is_available() {
            return fail(format!("{b}: check() disagrees with is_available()"));
        }
        // Only compiled code can run; a portable-only build compiles only
        // the portable backend (the first), whatever the CPU has.
        let portable_only = cfg!(fastcrypt_backend = "portable");
        if (b.is_available() && !b.is_compiled())
            || (portable_only && b.is_compiled() != (b == B::ALL[0]))
        {
            return fail(format!("{b}: is_compiled() is {}", b.is_compiled()));
        }
        match (build(b), b.check()) {
            (Ok(got), Ok(())) if got == b => {}
            (Ok(got), Ok(())) => return fail(format!("with_backend({b}) built {got}")),
            (Ok(_), Err(e)) => return fail(format!("with_backend({b}) built, but check(): {e}")),
            (Err(e), Ok(())) => {
                return fail(format!(
                    "with_backend({b}) refused an available backend: {e}"
                ))
            }
            (Err(e), Err(unsupported)) => {
                let msg = e.to_string();
                if msg != unsupported.to_string() {
                    return fail(format!(
                        "with_backend({b}) says `{msg}`, check() `{unsupported}`"
                    ));
                }
                // A portable-only build names no features: none would help.
                let names_needs = cfg!(fastcrypt_backend = "portable") || msg.contains(b.needs());
                if !msg.contains(b.name()) || !names_needs {
                    return fail(format!(
                        "error does not name {b} and what it needs ({}): {msg}",
                        b.needs()
                    ));
                }
            }
        }
        if b.to_string() != b.name() {
            return fail(format!("{b:?} displays as {b}, named {}", b.name()));
        }
        let mixed: String = b
            .name()
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        for spelling in [b.name().to_string(), b.name().to_ascii_uppercase(), mixed] {
            match spelling.parse::<B>() {
                Ok(p) if p == b => {}
                other => return fail(format!("`{spelling}` parses as {other:?}, not {b}")),
            }
        }
    }
    let bogus = "no-such-backend";
    match bogus.parse::<B>() {
        Ok(b) => fail(format!("`{bogus}` parsed as {b}")),
        Err(e) => {
            let msg = e.to_string();
            if e.primitive != B::PRIMITIVE || e.name != bogus || !msg.contains(bogus) {
                return fail(format!("unknown-name error misreports the name: {e:?}"));
            }
            match B::ALL.iter().find(|b| !msg.contains(b.name())) {
                Some(b) => fail(format!("unknown-name error does not list {b}: {msg}")),
                None => Ok(()),
            }
        }
    }
}

/// Boundary lengths for a primitive that works in `block`-byte blocks and
/// whose widest kernel takes `stride` bytes per main-loop iteration: every
/// length up to four strides (each tail shape after zero to three
/// iterations), 8 and 16 blocks and strides give or take 9 (where longer
/// inputs switch grouping), and 1, 4, 8 and 16 KiB give or take 1 (pages,
/// the portable AES-GCM's 4 KiB interleave, and long-run tails). One table
/// for every suite, so a kernel with a new stride gets its edges tested by
/// naming the stride.
pub fn lengths(block: usize, stride: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=4 * stride).collect();
    for unit in [block, stride] {
        for k in [1, 2, 3, 4, 8, 16] {
            let n = k * unit;
            v.extend(n.saturating_sub(9)..=n + 9);
        }
    }
    for kib in [1usize, 4, 8, 16] {
        let n = kib << 10;
        v.extend(n - 1..=n + 1);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Path of a vendored vector file under `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

/// Reads a vendored vector file, with its path in the error.
pub fn read_testdata(rel: &str) -> Result<String, Failed> {
    let p = testdata(rel);
    std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()).into())
}

/// One `key = value` line of a vector file (CAVP `.rsp`, RFC 6229).
pub struct Assignment<'a> {
    pub line: usize,
    pub key: &'a str,
    pub value: &'a str,
}

impl Assignment<'_> {
    /// `e`, prefixed with this line's number.
    pub fn bad(&self, e: impl Display) -> String {
        format!("line {}: {e}", self.line)
    }

    /// The value decoded from hex.
    pub fn hex(&self) -> Result<Vec<u8>, String> {
        hex::decode(self.value).map_err(|e| self.bad(e))
    }
}

/// The `key = value` lines of `text`, numbered from 1; other lines
/// (headers, blanks, `[section]`s) are skipped.
pub fn assignments(text: &str) -> impl Iterator<Item = Assignment<'_>> {
    text.lines().enumerate().filter_map(|(n, line)| {
        let (key, value) = line.trim().split_once(" = ")?;
        Some(Assignment {
            line: n + 1,
            key,
            value,
        })
    })
}

/// `len` bytes painted with `i % 251` (a prime, so no block-periodic
/// pattern hides a block-ordering bug).
pub fn painted(len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    paint(&mut v);
    v
}

/// Fills `buf` as [`painted`] does.
pub fn paint(buf: &mut [u8]) {
    buf.iter_mut()
        .enumerate()
        .for_each(|(i, x)| *x = (i % 251) as u8);
}

/// Fails with both values in hex when they differ.
pub fn check_eq(what: &str, got: &[u8], want: &[u8]) -> TestResult {
    if got == want {
        return Ok(());
    }
    if got.len() <= 64 && want.len() <= 64 {
        return Err(format!(
            "{what}: got {}, want {}",
            hex::encode(got),
            hex::encode(want)
        )
        .into());
    }
    // Long values: a window around the first difference.
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let window =
        |v: &[u8]| hex::encode(&v[at.saturating_sub(8).min(v.len())..(at + 24).min(v.len())]);
    Err(format!(
        "{what}: lengths {} (got) vs {} (want), first difference at byte {at}: got ..{}.., want ..{}..",
        got.len(),
        want.len(),
        window(got),
        window(want)
    )
    .into())
}

/// A seeded RNG so a failure reproduces; the seed is printed on failure by
/// the tests that use it.
pub fn rng(seed: u64) -> rand::rngs::StdRng {
    use rand::SeedableRng;
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Mappings whose readable part ends right before an unmapped page, to
/// catch over-reads (the kernel faults instead of passing). Unix only.
#[cfg(unix)]
pub struct GuardPage {
    base: *mut u8,
    map_len: usize,
    page: usize,
}

#[cfg(unix)]
impl GuardPage {
    /// Maps enough readable pages for `len` bytes, then one PROT_NONE page.
    pub fn for_len(len: usize) -> GuardPage {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let data_pages = len.div_ceil(page).max(1);
        let map_len = (data_pages + 1) * page;
        // SAFETY: anonymous private mapping, no address hint.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap failed");
        let base = base as *mut u8;
        // SAFETY: the last page lies inside the mapping just made.
        let rc =
            unsafe { libc::mprotect(base.add(data_pages * page).cast(), page, libc::PROT_NONE) };
        assert_eq!(rc, 0, "mprotect failed");
        GuardPage {
            base,
            map_len,
            page,
        }
    }

    /// The `len` bytes that end exactly at the guard page.
    pub fn tail_mut(&mut self, len: usize) -> &mut [u8] {
        let end = self.map_len - self.page;
        assert!(len <= end);
        // SAFETY: [end - len, end) lies in the readable part of the mapping,
        // which this struct owns exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(end - len), len) }
    }

    /// [`tail_mut`](Self::tail_mut) filled as [`painted`] fills a buffer,
    /// so the expected value can be computed from `painted(len)`.
    pub fn painted_tail(&mut self, len: usize) -> &mut [u8] {
        let tail = self.tail_mut(len);
        paint(tail);
        tail
    }
}

#[cfg(unix)]
impl Drop for GuardPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `for_len`.
        unsafe { libc::munmap(self.base.cast(), self.map_len) };
    }
}

/// Runs `f(len, buf)` for every length in `lens`, `buf` being `len` bytes
/// painted as [`painted`] paints them and ending right before an unmapped
/// page. The expected value must come from a copy (`painted(len)`), so
/// only the code under test meets the guard page. Errors name the length.
#[cfg(unix)]
pub fn before_guard_page(
    lens: &[usize],
    mut f: impl FnMut(usize, &mut [u8]) -> TestResult,
) -> TestResult {
    let mut page = GuardPage::for_len(lens.iter().copied().max().unwrap_or(0));
    for &len in lens {
        f(len, page.painted_tail(len)).map_err(|e| {
            format!(
                "len {len}, ending before a guard page: {}",
                e.message().unwrap_or("failed")
            )
        })?;
    }
    Ok(())
}
