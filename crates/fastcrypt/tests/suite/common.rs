//! Shared helpers: per-backend registration, vector-file access, inputs.

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

/// Registers `test` once per backend in `all`, named `<name>/<backend>`.
/// `check` says whether the backend runs here (for example
/// `|b| Sha1::with_backend(b).map(drop)`). Backends it refuses become
/// ignored trials, or failing ones when required by the environment.
pub fn per_backend<B, C, F>(trials: &mut Vec<Trial>, name: &str, all: &[B], check: C, test: F)
where
    B: Copy + Display + Send + 'static,
    C: Fn(B) -> Result<(), fastcrypt::Unsupported>,
    F: Fn(B) -> TestResult + Clone + Send + 'static,
{
    for &b in all {
        let full = format!("{name}/{b}");
        match check(b) {
            Ok(()) => {
                let t = test.clone();
                trials.push(Trial::test(full, move || t(b)));
            }
            Err(e) if required(&b.to_string()) => {
                let msg = format!("required backend is unavailable: {e}");
                trials.push(Trial::test(full, move || Err(msg.into())));
            }
            Err(_) => {
                trials.push(Trial::test(full, || Ok(())).with_ignored_flag(true));
            }
        }
    }
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

/// `len` bytes painted with `i % 251` (a prime, so no block-periodic
/// pattern hides a block-ordering bug).
pub fn painted(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
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

/// A buffer whose last byte sits right before an unmapped page, to catch
/// over-reads (the kernel would fault). Unix only.
#[cfg(unix)]
pub struct GuardPage {
    base: *mut u8,
    map_len: usize,
    page: usize,
}

#[cfg(unix)]
impl GuardPage {
    /// Maps `data_pages` readable pages followed by one PROT_NONE page.
    pub fn new(data_pages: usize) -> GuardPage {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
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
}

#[cfg(unix)]
impl Drop for GuardPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe { libc::munmap(self.base.cast(), self.map_len) };
    }
}
