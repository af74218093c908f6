//! The core clock behind the cycles/B column: measured at start, stated
//! with `--cpu-ghz`, or none.
//!
//! # The measurement
//!
//! A chain of dependent integer adds retires one add per core cycle: each
//! `add` needs the result of the one before, and an add's latency is one
//! cycle on every x86 core since the P6 (Agner Fog's instruction tables),
//! however wide the core. So adds per nanosecond of wall clock
//! ([`std::time::Instant`]) are core cycles per nanosecond: GHz.
//!
//! The loop body is [`ADDS_PER_ITER`] copies of `add acc, one`; the loop
//! counter lives in another register (`dec n; jnz`), off the chain, so the
//! core runs it in parallel and the loop costs no cycle of the count. The
//! addend is a register, not an immediate: some renamers (reportedly
//! Intel's Golden Cove) fold small-immediate adds, which would break the
//! one-cycle chain. The core is warmed up first for [`WARM_UP`], so that
//! it leaves an idle state and reaches its steady clock; then
//! [`REPEATS`] repeats of about [`REPEAT`] each are timed and the best
//! (highest GHz) is kept: interrupts, preemption and a busy SMT sibling
//! only ever make a repeat slower. About 7 ms in all.
//!
//! # Its limits
//!
//! - It is the clock of that core at that moment. Turbo and frequency
//!   scaling move it with load, temperature and the instructions running
//!   (wide SIMD may lower it), and cores of a hybrid CPU differ: a long
//!   run can see another clock than the one measured at its start. Fix
//!   the clock (turbo and scaling off) and state it with `--cpu-ghz` for
//!   cycle counts to compare across runs.
//! - Under a hypervisor (KVM) it is the clock the guest sees: host core
//!   cycles per wall-clock nanosecond while the vCPU runs, not the
//!   nominal rate CPUID's brand string names.
//! - No cycle counter is read: the TSC ticks at a nominal rate, not at the
//!   core clock, under turbo, power management and in virtual machines.
//! - A core that ran dependent adds faster than one a cycle (the
//!   Pentium 4's double-speed ALUs) would read about twice its clock.
//! - Off x86 there is no measurement: no column unless `--cpu-ghz`.

use super::options::CpuGhz;
use std::time::{Duration, Instant};

/// The clock cycles/B is computed with, and where it came from.
#[derive(Clone, Debug)]
pub enum CoreClock {
    /// Measured at start by the dependent-add loop.
    Measured(f64),
    /// `--cpu-ghz GHZ`.
    Stated(f64),
    /// `--cpu-ghz off`.
    Off,
    /// No measurement here, and why.
    Unknown(String),
}

impl CoreClock {
    /// The clock `--cpu-ghz` states or turns off, else the one measured
    /// now.
    pub fn new(option: Option<CpuGhz>) -> CoreClock {
        match option {
            Some(CpuGhz::Rate(g)) => CoreClock::Stated(g),
            Some(CpuGhz::Off) => CoreClock::Off,
            None => match measure() {
                Ok(g) => CoreClock::Measured(g),
                Err(why) => CoreClock::Unknown(why),
            },
        }
    }

    /// The clock in GHz, when there is one: the cycles/B column is shown
    /// exactly then.
    pub fn ghz(&self) -> Option<f64> {
        match self {
            CoreClock::Measured(g) | CoreClock::Stated(g) => Some(*g),
            CoreClock::Off | CoreClock::Unknown(_) => None,
        }
    }

    /// `measured` or `stated`, when there is a clock.
    pub fn source(&self) -> Option<&'static str> {
        match self {
            CoreClock::Measured(_) => Some("measured"),
            CoreClock::Stated(_) => Some("stated"),
            CoreClock::Off | CoreClock::Unknown(_) => None,
        }
    }
}

/// Dependent adds per loop iteration: enough that the loop branch is
/// one instruction in a thousand.
const ADDS_PER_ITER: usize = 1000;
/// How long the chain runs before any repeat is timed.
const WARM_UP: Duration = Duration::from_millis(3);
/// About how long one timed repeat runs: long against `Instant::now`'s
/// cost and resolution (tens of ns), short against the scheduler's tick.
const REPEAT: Duration = Duration::from_micros(500);
/// Timed repeats; the best one counts.
const REPEATS: usize = 8;

/// The core clock in GHz, from the dependent-add loop; why not, off x86
/// or when the figure is implausible.
pub fn measure() -> Result<f64, String> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        plausible(best_ghz(x86::dependent_adds))
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        Err(format!(
            "no clock measurement on {}",
            std::env::consts::ARCH
        ))
    }
}

/// `ghz` if a CPU can have it: above 0.05 GHz and at most `--cpu-ghz`'s
/// bound, 100 GHz. A timer too coarse to time a repeat gives 0.
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
fn plausible(ghz: f64) -> Result<f64, String> {
    if (0.05..=100.0).contains(&ghz) {
        Ok(ghz)
    } else {
        Err(format!(
            "the dependent-add loop gave an implausible {ghz:.3} GHz"
        ))
    }
}

/// The most loop iterations one run of the chain takes: 65 million adds,
/// about 20 ms at 3 GHz, however coarse the timer.
const MAX_ITERS: usize = 1 << 16;

/// Warms up, then times [`REPEATS`] runs of `adds(iters)` (`iters` loop
/// iterations of [`ADDS_PER_ITER`] dependent adds, one cycle each) sized
/// to about [`REPEAT`], and returns the highest adds per ns.
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
fn best_ghz(adds: fn(usize)) -> f64 {
    // The warm-up doubles as calibration: the run grows until it takes a
    // quarter of REPEAT, and goes on until WARM_UP has passed.
    let start = Instant::now();
    let mut iters = 16;
    let mut took;
    loop {
        let t = Instant::now();
        adds(iters);
        took = t.elapsed();
        if took < REPEAT / 4 && iters < MAX_ITERS {
            iters *= 2;
        } else if start.elapsed() >= WARM_UP {
            break;
        }
    }
    let per_iter = took.as_secs_f64() / iters as f64;
    let iters = (REPEAT.as_secs_f64() / per_iter).clamp(1.0, MAX_ITERS as f64) as usize;
    let mut best = 0f64;
    for _ in 0..REPEATS {
        let t = Instant::now();
        adds(iters);
        let ns = t.elapsed().as_secs_f64() * 1e9;
        if ns > 0.0 {
            best = best.max((iters * ADDS_PER_ITER) as f64 / ns);
        }
    }
    best
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86 {
    use super::ADDS_PER_ITER;
    use std::hint::black_box;

    /// Runs `iters` (at least 1) loop iterations of [`ADDS_PER_ITER`]
    /// dependent adds: `iters * ADDS_PER_ITER` core cycles. Never inlined:
    /// one copy of the 1000-add body, not one per call site.
    #[inline(never)]
    pub fn dependent_adds(iters: usize) {
        // `dec; jnz` below would wrap from 0 and run 2^64 iterations.
        let mut n = iters.max(1);
        // Opaque to the compiler, so it cannot be an immediate (see the
        // module's comment) or fold the chain.
        let one: usize = black_box(1);
        let mut acc: usize = 0;
        // SAFETY: the asm touches only the three registers it is given
        // and the flags (clobbered by default): no memory (`nomem`), no
        // stack (`nostack`). It ends: `n` starts at 1 or more and drops
        // by one per iteration, so `jnz` falls through at zero.
        unsafe {
            core::arch::asm!(
                // Loop top.
                "2:",
                // ADDS_PER_ITER copies of the next line.
                ".rept {adds}",
                // The chain: each add waits one cycle for the last.
                "add {acc}, {one}",
                ".endr",
                // The counter, off the chain, runs in parallel with it.
                "dec {n}",
                // Predicted taken; one mispredict at the end.
                "jnz 2b",
                adds = const ADDS_PER_ITER,
                acc = inout(reg) acc,
                one = in(reg) one,
                n = inout(reg) n,
                options(nomem, nostack),
            );
        }
        black_box((acc, n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plausible, not precise: a noisy host only makes it slower, and
    /// no x86 core of this century runs below 0.2 GHz or above 10.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn measured_clock_is_plausible() {
        let ghz = measure().unwrap();
        assert!((0.2..10.0).contains(&ghz), "{ghz} GHz");
    }

    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    #[test]
    fn no_measurement_off_x86() {
        assert!(measure().unwrap_err().contains("no clock measurement"));
    }

    #[test]
    fn stated_and_off_need_no_measurement() {
        let c = CoreClock::new(Some(CpuGhz::Rate(3.0)));
        assert_eq!((c.ghz(), c.source()), (Some(3.0), Some("stated")));
        let c = CoreClock::new(Some(CpuGhz::Off));
        assert_eq!((c.ghz(), c.source()), (None, None));
    }
}
