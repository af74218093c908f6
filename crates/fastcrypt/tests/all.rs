//! fastcrypt's test suite: one binary, every backend on every test.
//!
//! Test names are `<test>/<backend>`. A backend this CPU (or build) cannot
//! run is listed as *ignored*, never as passed. Set
//! `FASTCRYPT_REQUIRE_BACKENDS=all` (or a comma list such as
//! `shani,avx2`) to turn such an ignore into a failure, so CI on a known
//! machine proves every kernel ran.
//!
//! Run one group with a filter, as usual: `cargo test --test all sha1_cavp`.

mod suite;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    suite::register_all(&mut trials);
    libtest_mimic::run(&args, trials).exit();
}
