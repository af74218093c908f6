//! The measurement engine.
//!
//! The machine this runs on is shared: for seconds at a time, SIMD code may
//! run 1.3-1.7x slower while scalar code does not. Timing A for a while and
//! then B for a while would put A and B in different phases, and their ratio
//! would say more about the neighbours than about the code. So the engine
//! runs in *rounds*: each round takes one sample of every cell (every
//! algorithm x size x implementation), in an order rotated by one each round
//! so that no cell always follows the same neighbour. Sample `i` of every
//! cell comes from round `i`, which lets `--compare` pair samples taken
//! back to back and report the median of the per-round ratios: a slow phase
//! that hits both members of a pair cancels, and one that hits a minority
//! of rounds is outvoted.
//!
//! Per cell: a calibration that doubles (then scales) the iteration count
//! until one sample takes `min_time / samples` (this doubles as warm-up),
//! one discarded warm-up round, then `samples` timed rounds.

use super::algos::{Op, Origin};
use crate::stats::{median, Stats};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The bytes every cell processes: pseudo-random from a fixed seed, the
/// same in every run and on every machine. Random, not a pattern: the
/// collision detector's filter sends about one block in twenty of random
/// data on to more tests (as it would compressed objects, media and other
/// high-entropy files), and fewer of a short repeating pattern, whose
/// cost the speed lab used to understate (`(i % 251) as u8`: detection at
/// 0.91x plain SHA-1 where random data gives 0.85x, AMD EPYC Zen 5, 8 KiB).
/// Every other algorithm runs in time independent of the data.
pub fn paint(bytes: usize) -> Vec<u8> {
    let mut rng = SplitMix64(u64::from_le_bytes(*b"painted!"));
    let mut out = Vec::with_capacity(bytes.next_multiple_of(8));
    while out.len() < bytes {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(bytes);
    out
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014): integer-only, so what it draws is
/// the same on every machine; well mixed enough for data and sizes.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` by multiply-and-shift (Lemire); its bias, below
    /// `n / 2^64`, does not matter for picking sizes.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// What one table row measures.
pub struct Cell {
    pub algo: usize,
    pub size: usize,
    /// The bytes one operation processes, which MB/s and cycles/B count:
    /// `size`, or a whole message set's (see `RowNames::bytes`).
    pub bytes: usize,
    pub name: &'static str,
    pub origin: Origin,
    pub state: State,
}

pub enum State {
    /// Cannot run here; the reason is shown as `n/a (reason)`.
    NotAvailable(String),
    Runnable(Runner),
}

/// A cell's input: its own, or shared by the cells of one size of an
/// algorithm whose operations only read it ([`BufferUse::ReadOnly`](super::algos::BufferUse::ReadOnly)).
pub type Buffer = Rc<RefCell<Vec<u8>>>;

/// A buffer of `bytes` [`paint`]ed bytes.
pub fn buffer(bytes: usize) -> Buffer {
    Rc::new(RefCell::new(paint(bytes)))
}

pub struct Runner {
    op: Box<dyn Op>,
    buf: Buffer,
    /// Operations per sample, from calibration.
    pub iters: u64,
    /// ns per operation, one per round, in round order.
    pub samples: Vec<f64>,
}

impl Cell {
    /// A cell whose operation processes `bytes` bytes at `size` (the
    /// algorithm's `RowNames::bytes`); `input` gives a runnable cell its
    /// `bytes` long buffer.
    pub fn new(
        algo: usize,
        size: usize,
        bytes: usize,
        name: &'static str,
        origin: Origin,
        op: Result<Box<dyn Op>, String>,
        input: impl FnOnce() -> Buffer,
    ) -> Cell {
        let state = match op {
            Ok(mut op) => {
                op.prepare(size);
                let buf = input();
                debug_assert_eq!(buf.borrow().len(), bytes);
                State::Runnable(Runner {
                    op,
                    buf,
                    iters: 0,
                    samples: Vec::new(),
                })
            }
            Err(why) => State::NotAvailable(why),
        };
        Cell {
            algo,
            size,
            bytes,
            name,
            origin,
            state,
        }
    }

    pub fn runner(&self) -> Option<&Runner> {
        match &self.state {
            State::Runnable(r) => Some(r),
            State::NotAvailable(_) => None,
        }
    }

    pub fn stats(&self) -> Option<Stats> {
        self.runner().and_then(|r| Stats::of(&r.samples))
    }
}

/// What a sample's time is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// CPU time of the measuring thread (`CLOCK_THREAD_CPUTIME_ID`): time
    /// the thread spends descheduled while other processes run is not
    /// counted, which on a shared machine is most of the noise.
    ThreadCpu,
    /// Elapsed wall-clock time (`Instant`).
    Wall,
}

impl Clock {
    /// The thread CPU clock where the OS has one, else the wall clock.
    pub fn best() -> Clock {
        if thread_cpu_now().is_some() {
            Clock::ThreadCpu
        } else {
            Clock::Wall
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Clock::ThreadCpu => "thread CPU time (CLOCK_THREAD_CPUTIME_ID; time descheduled by other load not counted)",
            Clock::Wall => "wall clock",
        }
    }
}

#[cfg(unix)]
fn thread_cpu_now() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec owned by this frame, and
    // clock_gettime writes nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(not(unix))]
fn thread_cpu_now() -> Option<Duration> {
    None
}

impl Runner {
    fn time(&mut self, iters: u64, clock: Clock) -> Duration {
        match clock {
            Clock::Wall => {
                let mut buf = self.buf.borrow_mut();
                let t0 = Instant::now();
                self.op.run(&mut buf, iters);
                t0.elapsed()
            }
            Clock::ThreadCpu => {
                let mut buf = self.buf.borrow_mut();
                let t0 = thread_cpu_now().unwrap_or_default();
                self.op.run(&mut buf, iters);
                thread_cpu_now().unwrap_or_default().saturating_sub(t0)
            }
        }
    }

    /// Finds the iteration count for one sample of about `target`.
    fn calibrate(&mut self, target: Duration, clock: Clock, stop: &dyn Fn() -> bool) {
        let mut iters: u64 = 1;
        loop {
            if stop() {
                return;
            }
            let t = self.time(iters, clock);
            if t >= target / 2 || iters >= 1 << 40 {
                let scaled = iters as f64 * target.as_secs_f64() / t.as_secs_f64().max(1e-9);
                self.iters = (scaled.round() as u64).max(1);
                return;
            }
            // Grow fast while the timer resolution dominates, then aim.
            let factor = if t < Duration::from_micros(10) {
                16.0
            } else {
                (target.as_secs_f64() * 0.8 / t.as_secs_f64()).clamp(2.0, 16.0)
            };
            iters = ((iters as f64 * factor).ceil() as u64).max(iters + 1);
        }
    }
}

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Total sampled time per cell (all its samples together).
    pub min_time: Duration,
    pub samples: usize,
    /// Most rounds to take when `--compare`'s pairs lack quiet rounds.
    pub max_rounds: usize,
    pub clock: Clock,
}

/// Below this per-sample time the clock's own cost and resolution (tens
/// of nanoseconds per reading) and the loop around the operation are a
/// visible part of what is measured.
pub const SHORTEST_SAMPLE: Duration = Duration::from_micros(100);

impl Plan {
    pub fn sample_time(&self) -> Duration {
        self.min_time / self.samples as u32
    }

    /// Why figures from this plan are not to be trusted, if they are not:
    /// each sample shorter than [`SHORTEST_SAMPLE`].
    pub fn too_short(&self) -> Option<String> {
        let t = self.sample_time();
        (t < SHORTEST_SAMPLE).then(|| {
            format!(
                "--min-time {:?} over {} samples is {t:?} per sample; below {SHORTEST_SAMPLE:?} the \
                 clock and the loop are a visible part of each figure (use --min-time {:?} or more)",
                self.min_time,
                self.samples,
                SHORTEST_SAMPLE * self.samples as u32
            )
        })
    }
}

/// How many times [`run`] calls its progress callback.
pub fn total_steps(cells: &[Cell], plan: &Plan) -> u64 {
    let runnable = cells.iter().filter(|c| c.runner().is_some()).count() as u64;
    runnable * (plan.samples as u64 + 2)
}

/// A round in which a cell ran more than this much slower than its usual
/// fast speed is taken as disturbed by load for `--compare` (see
/// [`quiet_rounds`]).
pub const QUIET_TOLERANCE: f64 = 0.10;

/// The fewest paired rounds in which a sign test can tell two cells apart
/// at the 5% level that `--compare` marks by: all 6 one way give p = 2 /
/// 2^6 = 0.031, while all 5 give 0.0625, never significant.
pub const MIN_PAIRED_ROUNDS: usize = 6;

/// Whether `quiet` of `total` paired rounds are enough to use the quiet
/// ones alone: at least [`MIN_PAIRED_ROUNDS`] and at least a third of
/// all rounds. The engine takes rounds until this holds; [`paired`] uses
/// every round, and says so, when it does not.
pub fn quiet_enough(quiet: usize, total: usize) -> bool {
    quiet >= MIN_PAIRED_ROUNDS && quiet * 3 >= total
}

/// Measures every runnable cell, interleaved as the module docs describe.
///
/// `pairs` are the cells `--compare` will pair (indices into `cells`).
/// While some pair has fewer than `plan.samples / 2` quiet rounds (see
/// [`quiet_rounds`]), or not [`quiet_enough`] of them, more rounds are
/// taken, up to `plan.max_rounds` in all: a load phase that covers half
/// a run is then outlasted instead of reported. `grow` is
/// told how many steps each extra round adds. Returns the rounds taken,
/// and whether `stop` cut them short.
///
/// `stop` is asked before each timing (Ctrl-C sets it): when it says
/// yes, measuring ends there and only the whole rounds are kept (a cut
/// round's samples are dropped, so every cell keeps as many samples as
/// the others and paired rounds stay paired). Calibration and the
/// discarded warm-up round are no rounds: a stop during them returns 0.
pub fn run(
    cells: &mut [Cell],
    plan: &Plan,
    pairs: &[(usize, usize)],
    mut tick: impl FnMut(&str),
    mut grow: impl FnMut(u64),
    stop: impl Fn() -> bool,
) -> (usize, bool) {
    let target = plan.sample_time();
    // Positions of the paired cells among the runnable ones.
    let mut slot = vec![None; cells.len()];
    let mut runners: Vec<(String, &mut Runner)> = Vec::new();
    for (i, c) in cells.iter_mut().enumerate() {
        let label = format!("{} {}", c.size, c.name);
        if let State::Runnable(r) = &mut c.state {
            slot[i] = Some(runners.len());
            runners.push((label, r));
        }
    }
    let pairs: Vec<(usize, usize)> = pairs
        .iter()
        .filter_map(|&(a, b)| Some((slot[a]?, slot[b]?)))
        .collect();
    for (label, r) in runners.iter_mut() {
        if stop() {
            return (0, true);
        }
        r.calibrate(target, plan.clock, &stop);
        tick(label);
    }
    // One discarded round: every cell's code and data are warm again after
    // the other cells' calibration evicted them.
    for (label, r) in runners.iter_mut() {
        if stop() {
            return (0, true);
        }
        let iters = r.iters;
        r.time(iters, plan.clock);
        tick(label);
    }
    let n = runners.len();
    let wanted = plan.samples.div_ceil(2).max(MIN_PAIRED_ROUNDS);
    let mut round = 0;
    loop {
        if round >= plan.samples {
            let enough = pairs.iter().all(|&(a, b)| {
                let quiet = quiet_rounds(&runners[a].1.samples, &runners[b].1.samples).len();
                quiet >= wanted && quiet_enough(quiet, round)
            });
            if enough || round >= plan.max_rounds.max(plan.samples) {
                return (round, false);
            }
            grow(n as u64);
        }
        for k in 0..n {
            if stop() {
                for (_, r) in runners.iter_mut() {
                    r.samples.truncate(round);
                }
                return (round, true);
            }
            let (label, r) = &mut runners[(round + k) % n];
            let iters = r.iters;
            let t = r.time(iters, plan.clock);
            r.samples.push(t.as_nanos() as f64 / iters as f64);
            tick(label);
        }
        round += 1;
    }
}

/// Rounds in which neither `a` nor `b` ran more than [`QUIET_TOLERANCE`]
/// slower than its usual fast speed: the lower quartile of its samples.
/// Load only ever slows code down, so a cell's fast samples are its
/// undisturbed speed; the quartile rather than the minimum, because some
/// code has a rare faster mode (OpenSSL's RC4 here: 1 sample in 10 runs
/// 17% faster) that would otherwise make every other round look loaded.
pub fn quiet_rounds(a: &[f64], b: &[f64]) -> Vec<usize> {
    let n = a.len().min(b.len());
    let (qa, qb) = (lower_quartile(&a[..n]), lower_quartile(&b[..n]));
    let limit = 1.0 + QUIET_TOLERANCE;
    (0..n)
        .filter(|&i| a[i] <= qa * limit && b[i] <= qb * limit)
        .collect()
}

fn lower_quartile(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 4).copied().unwrap_or(f64::NAN)
}

/// `--compare A,B` for one size: medians of per-round ratios.
#[derive(Clone, Debug)]
pub struct Paired {
    /// Median over the rounds used of `B[i] / A[i]` (new ns/op over old).
    pub time_ratio: f64,
    /// Median over the rounds used of `A[i] / B[i]`: B's speed-up over A.
    pub speedup: f64,
    /// Rounds used.
    pub n: usize,
    /// Rounds taken.
    pub total: usize,
    /// Whether the quiet rounds were too few and every round was used.
    pub loaded: bool,
    /// Two-sided sign-test p-value for "B is as fast as A".
    pub p_value: f64,
}

/// Pairs sample `i` of `a` with sample `i` of `b` (taken in the same
/// round). Uses the quiet rounds when there are [`quiet_enough`] of
/// them; otherwise every round (the machine was busy throughout, and
/// `loaded` says so).
pub fn paired(a: &[f64], b: &[f64]) -> Option<Paired> {
    let total = a.len().min(b.len());
    if total == 0 {
        return None;
    }
    let quiet = quiet_rounds(a, b);
    let loaded = !quiet_enough(quiet.len(), total);
    let used: Vec<usize> = if loaded { (0..total).collect() } else { quiet };
    let ratios: Vec<f64> = used.iter().map(|&i| b[i] / a[i]).collect();
    let inverse: Vec<f64> = used.iter().map(|&i| a[i] / b[i]).collect();
    let faster = ratios.iter().filter(|&&r| r < 1.0).count();
    let slower = ratios.iter().filter(|&&r| r > 1.0).count();
    Some(Paired {
        time_ratio: median(&ratios),
        speedup: median(&inverse),
        n: used.len(),
        total,
        loaded,
        p_value: sign_test(faster, faster + slower),
    })
}

/// Exact two-sided binomial sign test: the chance of a split at least as
/// lopsided as `k` of `n` if either order were equally likely.
pub fn sign_test(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let tail = k.min(n - k);
    // log-space binomial coefficients keep n in the hundreds exact enough.
    let ln_choose = |n: usize, k: usize| -> f64 {
        (1..=k)
            .map(|i| ((n - k + i) as f64).ln() - (i as f64).ln())
            .sum()
    };
    let p: f64 = (0..=tail)
        .map(|i| (ln_choose(n, i) - n as f64 * std::f64::consts::LN_2).exp())
        .sum();
    (2.0 * p).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three cells of a trivial operation, measured until `stop` says yes
    /// after `after` ticks (calibrations, warm-up timings, samples).
    fn stopped_after(after: usize) -> (Vec<Cell>, (usize, bool)) {
        let mut cells: Vec<Cell> = (0..3)
            .map(|_| {
                let op = crate::speed::algos::op(|buf| {
                    std::hint::black_box(buf);
                });
                Cell::new(0, 8, 8, "x", Origin::Auto, Ok(op), || buffer(8))
            })
            .collect();
        let plan = Plan {
            min_time: Duration::from_millis(5),
            samples: 10,
            max_rounds: 30,
            clock: Clock::Wall,
        };
        // `tick` follows each calibration, warm-up timing and sample.
        let ticks = std::cell::Cell::new(0usize);
        let taken = run(
            &mut cells,
            &plan,
            &[(0, 1)],
            |_| ticks.set(ticks.get() + 1),
            |_| {},
            || ticks.get() >= after,
        );
        (cells, taken)
    }

    #[test]
    fn a_stop_keeps_whole_rounds_only() {
        // 3 calibrations and 3 warm-up timings come first: no round yet.
        for after in [0, 2, 5, 6] {
            assert_eq!(stopped_after(after).1, (0, true), "after {after}");
        }
        // Then 3 timings a round: stopped within the third round, two
        // whole rounds are kept, as many samples in every cell.
        let (cells, taken) = stopped_after(6 + 2 * 3 + 1);
        assert_eq!(taken, (2, true));
        for c in &cells {
            assert_eq!(c.runner().unwrap().samples.len(), 2);
        }
        // Stopped just at a round's end: that round is whole.
        assert_eq!(stopped_after(6 + 3 * 3).1, (3, true));
        // Never stopped: the plan's rounds, not cut.
        let (cells, taken) = stopped_after(usize::MAX);
        assert!(!taken.1 && taken.0 >= 10);
        assert_eq!(cells[2].runner().unwrap().samples.len(), taken.0);
    }

    #[test]
    fn sign_test_values() {
        // 15 of 15 one way: p = 2 / 2^15.
        assert!((sign_test(0, 15) - 2.0 / 32768.0).abs() < 1e-12);
        assert!((sign_test(15, 15) - 2.0 / 32768.0).abs() < 1e-12);
        assert_eq!(sign_test(7, 15), 1.0);
        // 12 of 15: p = 2 * (1 + 15 + 105 + 455) / 32768 = 0.0352.
        assert!((sign_test(12, 15) - 0.03515625).abs() < 1e-9);
    }

    #[test]
    fn load_phases_are_set_aside() {
        // Rounds 3..8 are loaded: A (scalar) 1.8x slower, B (SIMD) 1.3x.
        let mut a = vec![100.0; 15];
        let mut b = vec![50.0; 15];
        for i in 3..8 {
            a[i] = 180.0;
            b[i] = 65.0;
        }
        let p = paired(&a, &b).unwrap();
        assert_eq!((p.n, p.total), (10, 15));
        assert_eq!(p.time_ratio, 0.5);
        // Five rounds, however quiet, are too few to use alone.
        let p = paired(&a[3..8], &b[3..8]).unwrap();
        assert_eq!((p.n, p.total, p.loaded), (5, 5, true));
        // Quiet only in 4 of 15 rounds: every round is used, and said so.
        let (mut a, mut b) = (vec![180.0; 15], vec![65.0; 15]);
        for i in 0..4 {
            a[i] = 100.0;
            b[i] = 50.0;
        }
        let p = paired(&a, &b).unwrap();
        assert_eq!((p.n, p.total, p.loaded), (15, 15, true));
    }

    #[test]
    fn the_fewest_rounds_can_be_significant() {
        // Every round one way: 6 rounds pass the 5% test, 5 cannot.
        let ms = MIN_PAIRED_ROUNDS;
        assert!(sign_test(ms, ms) < 0.05);
        assert!(sign_test(ms - 1, ms - 1) >= 0.05);
        let p = paired(&[100.0; 6], &[50.0; 6]).unwrap();
        assert!(!p.loaded && p.p_value < 0.05, "{p:?}");
    }

    #[test]
    fn pairing_uses_rounds() {
        // B is 2x faster in every round although the rounds swing 3x.
        let a = [100.0, 300.0, 100.0, 300.0, 100.0];
        let b = [50.0, 150.0, 50.0, 150.0, 50.0];
        let p = paired(&a, &b).unwrap();
        // Too few quiet rounds (3 of 5): every round is used.
        assert_eq!(p.n, 5);
        assert_eq!(p.time_ratio, 0.5);
        assert_eq!(p.speedup, 2.0);
        assert!(p.p_value < 0.1);
    }
}
