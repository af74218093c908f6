//! The unit tests' random inputs: one xorshift64 generator (Marsaglia,
//! "Xorshift RNGs", 2003), seeded per test so that every run sees the
//! same inputs.

/// A xorshift64 generator from `seed` (non-zero): each call steps the
/// state and returns it.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
