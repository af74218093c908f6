//! Statistical constant-time test of the SIMD kernels valgrind cannot run
//! (SHA-NI, VAES, VPCLMULQDQ), in the style of dudect (Reparaz, Balasch,
//! Verbauwhede, "Dude, is my code constant time?", DATE 2017).
//!
//! Per target, every measurement runs the public API (`with_backend`, so
//! what ships) on one of two classes of secret input: a fixed value or a
//! fresh random one, the class drawn at random for each measurement so that
//! drift of the machine hits both classes alike. Inputs are prepared in
//! batches before they are timed (the random generator is not measured).
//! Each call is timed with the time-stamp counter, `LFENCE; RDTSC; LFENCE`
//! before and `RDTSCP; LFENCE` after (Intel's "How to Benchmark Code
//! Execution Times", 2010, section 3.2.1; on AMD, Linux makes LFENCE
//! dispatch-serialising). The two timing distributions are compared with
//! Welch's t-test, uncropped and cropped at 100 percentiles of the warm-up
//! measurements (dudect's crops: cropping drops the long tail that
//! interrupts and migrations add, so a small shift of the body shows). The
//! largest |t| over the crops is the statistic; above 4.5 means the two
//! classes take measurably different times: a leak.
//!
//! Two modes: `warm` times calls back to back (branch and early-exit
//! leaks); `cold` first reads 64 KiB of unrelated memory, which evicts the
//! L1 data cache, so secret-indexed memory accesses turn into a different
//! number of cache misses (table leaks).
//!
//! Two deliberately leaky twins of real targets show that the test has the
//! power to find a leak of the size that matters: an AES-GCM tag check
//! with an early-exit compare, and a seal followed by a walk through a
//! 4 KiB table indexed by key bytes. See docs/constant-time.md and
//! scripts/ct-timing.sh.

#[cfg(target_arch = "x86_64")]
fn main() -> std::process::ExitCode {
    harness::main()
}

#[cfg(not(target_arch = "x86_64"))]
fn main() -> std::process::ExitCode {
    eprintln!("ct_timing: the kernels under test are x86-64 only");
    std::process::ExitCode::from(2)
}

#[cfg(target_arch = "x86_64")]
mod harness {
    use core::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
    use std::hint::black_box;
    use std::io::Write;
    use std::process::ExitCode;
    use std::time::{Duration, Instant};

    use clap::{Parser, ValueEnum};
    use fastcrypt::aes_gcm::{self, Aes128Gcm};
    use fastcrypt::ghash::{self, GHash};
    use fastcrypt::sha1::{self, Sha1};

    /// dudect-style timing test of fastcrypt's SIMD kernels.
    #[derive(Parser)]
    #[command(name = "ct_timing")]
    struct Args {
        /// Measurements per target and cache mode (after warm-up).
        #[arg(long, default_value_t = 1_000_000)]
        samples: u64,
        /// Time limit per target and cache mode, in seconds; whichever of
        /// this and --samples comes first ends the target.
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        /// Which cache modes to run.
        #[arg(long, value_enum, default_value_t = CacheArg::Both)]
        cache: CacheArg,
        /// Run only targets whose name or backend contains this string.
        #[arg(long)]
        only: Option<String>,
        /// Seed of the input and class generator (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// How often a real target over the threshold is measured again
        /// (with fresh inputs); it is reported as leaking only if every
        /// rerun is over the threshold too.
        #[arg(long, default_value_t = 2)]
        reruns: u32,
        /// |t| above which a target is reported as leaking.
        #[arg(long, default_value_t = 4.5)]
        threshold: f64,
        /// The fixed class of the data-like secrets (message, H, data, key,
        /// plaintext): all zeros (dudect's usual choice: special values are
        /// where data-dependent hardware shows), or one random value drawn
        /// at start. Tag targets and the leaky twins keep their own.
        #[arg(long, value_enum, default_value_t = FixedArg::Zero)]
        fixed: FixedArg,
        /// Also print the results as a Markdown table.
        #[arg(long)]
        markdown: bool,
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    enum CacheArg {
        Warm,
        Cold,
        Both,
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    enum FixedArg {
        Zero,
        Random,
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Cache {
        Warm,
        Cold,
    }

    impl Cache {
        fn name(self) -> &'static str {
            match self {
                Cache::Warm => "warm",
                Cache::Cold => "cold",
            }
        }
    }

    /// Measurements prepared and timed per batch.
    const BATCH: usize = 1000;
    /// Batches timed first and only used for the crop thresholds.
    const WARMUP_BATCHES: usize = 10;
    /// Number of percentile crops (dudect's value).
    const CROPS: usize = 100;
    /// A crop enters the maximum only with this many samples per class.
    const MIN_PER_CLASS: f64 = 1000.0;
    /// Bytes read to evict the L1 data cache (32 KiB on Zen and recent
    /// Intel cores) before each measurement in cold mode.
    const EVICT_BYTES: usize = 64 * 1024;

    // ---- timing ----------------------------------------------------------

    /// Time-stamp counter at the start of a timed region: the fences keep
    /// earlier instructions from finishing after, and later ones from
    /// starting before, the read.
    #[inline(always)]
    fn ticks_start() -> u64 {
        // SAFETY: LFENCE needs SSE2, part of the x86-64 baseline; RDTSC
        // reads a counter every x86-64 CPU has. Neither takes operands that
        // could be invalid.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }

    /// Time-stamp counter at the end of a timed region: RDTSCP waits for
    /// the measured instructions to finish, LFENCE keeps later ones out.
    #[inline(always)]
    fn ticks_end() -> u64 {
        let mut aux = 0u32;
        // SAFETY: RDTSCP (checked in `main` through /proc/cpuinfo's
        // `rdtscp` flag) writes the TSC_AUX value through the pointer, a
        // live, writable local; LFENCE needs SSE2, part of the x86-64
        // baseline.
        unsafe {
            let t = __rdtscp(&mut aux);
            _mm_lfence();
            t
        }
    }

    // ---- random inputs ---------------------------------------------------

    /// xoshiro256** (Blackman and Vigna, 2018), seeded through SplitMix64.
    /// Statistical quality is all that is needed: the "random" class only
    /// has to differ from the fixed one and from call to call.
    struct Rng([u64; 4]);

    impl Rng {
        fn new(seed: u64) -> Rng {
            let mut x = seed;
            let mut next = || {
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            };
            Rng([next(), next(), next(), next()])
        }

        fn next_u64(&mut self) -> u64 {
            let s = &mut self.0;
            let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
            let t = s[1] << 17;
            s[2] ^= s[0];
            s[3] ^= s[1];
            s[1] ^= s[2];
            s[0] ^= s[3];
            s[2] ^= t;
            s[3] = s[3].rotate_left(45);
            out
        }

        fn fill(&mut self, buf: &mut [u8]) {
            for c in buf.chunks_mut(8) {
                let r = self.next_u64().to_le_bytes();
                c.copy_from_slice(&r[..c.len()]);
            }
        }

        fn array<const N: usize>(&mut self) -> [u8; N] {
            let mut a = [0u8; N];
            self.fill(&mut a);
            a
        }
    }

    // ---- statistics ------------------------------------------------------

    /// Running mean and variance (Welford).
    #[derive(Clone, Copy, Default)]
    struct Moments {
        n: f64,
        mean: f64,
        m2: f64,
    }

    impl Moments {
        fn push(&mut self, x: f64) {
            self.n += 1.0;
            let d = x - self.mean;
            self.mean += d / self.n;
            self.m2 += d * (x - self.mean);
        }

        fn var(&self) -> f64 {
            if self.n > 1.0 {
                self.m2 / (self.n - 1.0)
            } else {
                0.0
            }
        }
    }

    /// Welch's t-test between class 0 (fixed) and class 1 (random).
    #[derive(Clone, Copy, Default)]
    struct TTest([Moments; 2]);

    impl TTest {
        fn push(&mut self, class: usize, x: f64) {
            self.0[class].push(x);
        }

        fn enough(&self) -> bool {
            self.0[0].n >= MIN_PER_CLASS && self.0[1].n >= MIN_PER_CLASS
        }

        fn t(&self) -> f64 {
            let [a, b] = &self.0;
            let se = (a.var() / a.n + b.var() / b.n).sqrt();
            if se > 0.0 {
                (a.mean - b.mean) / se
            } else {
                0.0
            }
        }
    }

    /// One uncropped test and one per crop threshold (measurements below
    /// the threshold only), thresholds ascending.
    struct Crops {
        thresholds: Vec<u64>,
        /// `tests[0]` is uncropped; `tests[k + 1]` keeps `x < thresholds[k]`.
        tests: Vec<TTest>,
        percentiles: Vec<f64>,
    }

    impl Crops {
        /// Thresholds at dudect's percentiles `1 - 0.5^(10 (k+1) / CROPS)`
        /// (dense near the top, where the noise lives) of `warmup`.
        fn new(mut warmup: Vec<u64>) -> Crops {
            warmup.sort_unstable();
            let percentiles: Vec<f64> = (0..CROPS)
                .map(|k| 1.0 - 0.5f64.powf(10.0 * (k + 1) as f64 / CROPS as f64))
                .collect();
            let thresholds = percentiles
                .iter()
                .map(|p| warmup[((p * warmup.len() as f64) as usize).min(warmup.len() - 1)])
                .collect();
            Crops {
                thresholds,
                tests: vec![TTest::default(); CROPS + 1],
                percentiles,
            }
        }

        fn push(&mut self, class: usize, ticks: u64) {
            let x = ticks as f64;
            self.tests[0].push(class, x);
            // Thresholds ascend: the crops a value enters are a suffix.
            let first = self.thresholds.partition_point(|&th| th <= ticks);
            for test in &mut self.tests[first + 1..] {
                test.push(class, x);
            }
        }

        /// Largest |t| over the tests with enough samples, which crop it
        /// came from (`None`: uncropped), and that test's difference of
        /// means (fixed minus random, ticks).
        fn max_t(&self) -> (f64, Option<f64>, f64) {
            let mut best = (0.0, None, 0.0);
            for (i, test) in self.tests.iter().enumerate() {
                if !test.enough() {
                    continue;
                }
                let t = test.t().abs();
                if t > best.0 {
                    let diff = test.0[0].mean - test.0[1].mean;
                    best = (t, i.checked_sub(1).map(|k| self.percentiles[k]), diff);
                }
            }
            best
        }
    }

    // ---- targets ---------------------------------------------------------

    /// The measured operation on one input slot.
    type OpFn = Box<dyn FnMut(&mut [u8])>;

    /// One thing to measure: an operation of the public API whose secret
    /// input is one slot of `len` bytes.
    struct Target {
        /// What is measured, e.g. `aes-gcm seal`.
        what: &'static str,
        backend: String,
        /// The secret input and its length.
        secret: String,
        /// The deliberately leaky twins, which the test must flag.
        leaky_twin: bool,
        len: usize,
        /// Class 0's input; class 1's is fresh random bytes every time.
        fixed: Vec<u8>,
        op: OpFn,
    }

    /// A 16-byte slot as the array the constructors take.
    fn arr16(slot: &[u8]) -> &[u8; 16] {
        slot.try_into().expect("16-byte slot")
    }

    const NONCE: [u8; 12] = [0x5a; 12];
    const AAD: &[u8] = b"public header, 32 bytes long....";
    /// Message lengths: 1000 bytes runs every path of both AES-GCM kernels
    /// (256-byte VAES chunks, 128-byte chunks, a 104-byte tail); 64 bytes
    /// is open's short path (`tag_short`).
    const LONG: usize = 1000;
    const SHORT: usize = 64;

    fn sha1_targets(out: &mut Vec<Target>) {
        for b in [sha1::Backend::Shani, sha1::Backend::Avx2] {
            let Ok(proto) = Sha1::with_backend(b) else {
                println!("skipped: sha1/{b} (this CPU lacks it)");
                continue;
            };
            out.push(Target {
                what: "sha1 update+finalize",
                backend: b.to_string(),
                secret: "message (256 B)".into(),
                leaky_twin: false,
                len: 256,
                fixed: vec![0; 256],
                op: Box::new(move |msg| {
                    let mut h = proto.clone();
                    h.update(msg);
                    black_box(h.finalize());
                }),
            });
        }
        // HMAC and PBKDF2 with a secret key: the keyed states, the fused
        // HMAC end and the two- and one-chain PBKDF2 kernels (45 bytes:
        // a pair of blocks, then a partial one).
        for b in [sha1::Backend::Shani, sha1::Backend::Avx2] {
            if sha1::HmacSha1::with_backend(b, b"").is_err() {
                println!("skipped: hmac/pbkdf2 sha1/{b} (this CPU lacks it)");
                continue;
            }
            out.push(Target {
                what: "hmac-sha1 new+mac",
                backend: b.to_string(),
                secret: "key (32 B)".into(),
                leaky_twin: false,
                len: 32,
                fixed: vec![0; 32],
                op: Box::new(move |key| {
                    if let Ok(k) = sha1::HmacSha1::with_backend(b, key) {
                        black_box(k.mac(b"public message"));
                    }
                }),
            });
            out.push(Target {
                what: "pbkdf2-sha1 (2 iterations, 45 B)",
                backend: b.to_string(),
                secret: "password (32 B)".into(),
                leaky_twin: false,
                len: 32,
                fixed: vec![0; 32],
                op: Box::new(move |password| {
                    let mut dk = [0u8; 45];
                    if let Ok(k) = sha1::HmacSha1::with_backend(b, password) {
                        black_box(k.pbkdf2(b"public salt", 2, &mut dk).is_ok());
                    }
                    black_box(dk);
                }),
            });
        }
        // Batch PBKDF2 with secret passwords: the lane kernels (16 zmm
        // lanes, 8 ymm lanes) and the SHA-NI chains with per-chain keys.
        for b in [
            sha1::many::Backend::Avx512,
            sha1::many::Backend::Avx2,
            sha1::many::Backend::Shani,
        ] {
            let Ok(m) = sha1::Sha1Many::with_backend(b) else {
                println!("skipped: pbkdf2 batch sha1-many/{b} (this CPU lacks it)");
                continue;
            };
            out.push(Target {
                what: "pbkdf2-sha1 batch (16 passwords, 2 iterations, 20 B)",
                backend: b.to_string(),
                secret: "passwords (16 x 2 B)".into(),
                leaky_twin: false,
                len: 32,
                fixed: vec![0; 32],
                op: Box::new(move |pw| {
                    let passwords: Vec<&[u8]> = pw.chunks(2).collect();
                    let mut dk = [0u8; 16 * 20];
                    black_box(
                        m.pbkdf2_hmac_sha1_into(&passwords, b"public salt", 2, 20, &mut dk)
                            .is_ok(),
                    );
                    black_box(dk);
                }),
            });
        }
    }

    fn ghash_targets(rng: &mut Rng, out: &mut Vec<Target>) {
        for b in [
            ghash::Backend::VpclmulAvx512,
            ghash::Backend::Vpclmul,
            ghash::Backend::Pclmul,
        ] {
            let h: [u8; 16] = rng.array();
            let Ok(mut g) = GHash::with_backend(b, &h) else {
                println!("skipped: ghash/{b} (this CPU lacks it)");
                continue;
            };
            let mut data = vec![0u8; 1024];
            rng.fill(&mut data);
            out.push(Target {
                what: "ghash new+update+finalize",
                backend: b.to_string(),
                secret: "key H".into(),
                leaky_twin: false,
                len: 16,
                fixed: vec![0; 16],
                op: Box::new(move |h| {
                    let mut g = GHash::with_backend(b, arr16(h)).unwrap();
                    g.update_padded(&data);
                    black_box(g.finalize());
                }),
            });
            out.push(Target {
                what: "ghash update+finalize",
                backend: b.to_string(),
                secret: "data (1 KiB)".into(),
                leaky_twin: false,
                len: 1024,
                fixed: vec![0; 1024],
                op: Box::new(move |d| {
                    g.update_padded(d);
                    black_box(g.finalize_reset());
                }),
            });
        }
    }

    /// A tag that differs from `right` only in its last byte: the worst
    /// case for an early-exit compare, and the fixed class of the tag
    /// targets (the random class differs almost always in the first byte).
    fn last_byte_wrong(right: &[u8]) -> Vec<u8> {
        let mut t = right.to_vec();
        t[15] ^= 1;
        t
    }

    fn aes_gcm_targets(rng: &mut Rng, out: &mut Vec<Target>) {
        for b in [
            aes_gcm::Backend::VaesAvx512,
            aes_gcm::Backend::VaesVpclmul,
            aes_gcm::Backend::AesniPclmul,
        ] {
            let key: [u8; 16] = rng.array();
            let Ok(gcm) = Aes128Gcm::with_backend(b, &key) else {
                println!("skipped: aes-gcm/{b} (this CPU lacks it)");
                continue;
            };
            let gcm = std::rc::Rc::new(gcm);
            let mut pt = vec![0u8; LONG];
            rng.fill(&mut pt);

            let msg = pt.clone();
            let mut scratch = vec![0u8; LONG];
            out.push(Target {
                what: "aes-128-gcm new+seal",
                backend: b.to_string(),
                secret: format!("key ({LONG} B message)"),
                leaky_twin: false,
                len: 16,
                fixed: vec![0; 16],
                op: Box::new(move |k| {
                    let c = Aes128Gcm::with_backend(b, arr16(k)).unwrap();
                    scratch.copy_from_slice(&msg);
                    black_box(c.seal_in_place_detached(&NONCE, AAD, &mut scratch).unwrap());
                }),
            });

            let c = gcm.clone();
            out.push(Target {
                what: "aes-128-gcm seal",
                backend: b.to_string(),
                secret: format!("plaintext ({LONG} B)"),
                leaky_twin: false,
                len: LONG,
                fixed: vec![0; LONG],
                op: Box::new(move |p| {
                    black_box(c.seal_in_place_detached(&NONCE, AAD, p).unwrap());
                }),
            });

            for len in [SHORT, LONG] {
                let mut ct = pt[..len].to_vec();
                let right = gcm.seal_in_place_detached(&NONCE, AAD, &mut ct).unwrap();
                let c = gcm.clone();
                let mut scratch = vec![0u8; len];
                out.push(Target {
                    what: "aes-128-gcm open (wrong tag)",
                    backend: b.to_string(),
                    secret: format!("tag ({len} B message)"),
                    leaky_twin: false,
                    len: 16,
                    fixed: last_byte_wrong(right.as_ref()),
                    op: Box::new(move |tag| {
                        scratch.copy_from_slice(&ct);
                        let r = c.open_in_place_detached(&NONCE, AAD, &mut scratch, tag);
                        black_box(r.is_err());
                    }),
                });
            }

            if b == aes_gcm::Backend::VaesVpclmul {
                leaky_twins(rng, b, &gcm, &pt, out);
            }
        }
    }

    /// Byte-by-byte compare that returns at the first difference: the
    /// classic tag-check leak. `black_box` on each byte keeps the compiler
    /// from turning the loop into a constant-time vector compare; not
    /// inlined, so that scripts/ct-static.sh finds it and must flag it.
    #[inline(never)]
    fn early_exit_eq(a: &[u8], b: &[u8]) -> bool {
        for (x, y) in a.iter().zip(b) {
            if black_box(*x) != *y {
                return false;
            }
        }
        a.len() == b.len()
    }

    /// 16 dependent loads from a 4 KiB table (512 u64s), each index a key
    /// byte: a first round of a T-table AES in miniature. Every entry's low
    /// 9 bits are zero, so the chain adds nothing to the index but makes
    /// each load wait for the one before (misses do not overlap). Not
    /// inlined, so that scripts/ct-static.sh finds it and must flag it.
    #[inline(never)]
    fn table_walk(table: &[u64; 512], key: &[u8]) -> u64 {
        let mut acc = 0u64;
        for (i, &k) in key.iter().enumerate() {
            let idx = (usize::from(k) * 2 + (i & 1)) ^ (acc & 0x1ff) as usize;
            acc = acc.wrapping_add(table[idx]);
        }
        acc
    }

    fn leaky_twins(
        rng: &mut Rng,
        b: aes_gcm::Backend,
        gcm: &std::rc::Rc<Aes128Gcm>,
        pt: &[u8],
        out: &mut Vec<Target>,
    ) {
        // Twin of "open (wrong tag), 64 B": the same AES-GCM work (a seal
        // recomputes the tag), then an early-exit compare.
        let msg = pt[..SHORT].to_vec();
        let mut ct = msg.clone();
        let right = gcm.seal_in_place_detached(&NONCE, AAD, &mut ct).unwrap();
        let c = gcm.clone();
        let mut scratch = vec![0u8; SHORT];
        out.push(Target {
            what: "LEAKY TWIN seal + early-exit tag compare",
            backend: b.to_string(),
            secret: format!("tag ({SHORT} B message)"),
            leaky_twin: true,
            len: 16,
            fixed: last_byte_wrong(right.as_ref()),
            op: Box::new(move |tag| {
                scratch.copy_from_slice(&msg);
                let want = c.seal_in_place_detached(&NONCE, AAD, &mut scratch).unwrap();
                black_box(early_exit_eq(want.as_ref(), tag));
            }),
        });

        // Twin of "new+seal, secret key": the same work, plus a walk
        // through a 4 KiB table indexed by the key bytes.
        let mut table = Box::new([0u64; 512]);
        for e in table.iter_mut() {
            *e = rng.next_u64() << 9;
        }
        let msg = pt.to_vec();
        let mut scratch = vec![0u8; LONG];
        out.push(Target {
            what: "LEAKY TWIN new+seal + key-indexed 4 KiB table",
            backend: b.to_string(),
            secret: format!("key ({LONG} B message)"),
            leaky_twin: true,
            len: 16,
            fixed: vec![0; 16],
            op: Box::new(move |k| {
                let c = Aes128Gcm::with_backend(b, arr16(k)).unwrap();
                scratch.copy_from_slice(&msg);
                black_box(c.seal_in_place_detached(&NONCE, AAD, &mut scratch).unwrap());
                black_box(table_walk(black_box(&table), k));
            }),
        });
    }

    // ---- measuring -------------------------------------------------------

    struct Outcome {
        samples: u64,
        max_t: f64,
        crop: Option<f64>,
        /// Fixed minus random mean ticks in the crop of `max_t`.
        diff: f64,
        /// Uncropped mean ticks of the fixed and the random class.
        means: [f64; 2],
        elapsed: Duration,
    }

    /// Reads `buf` with one load per cache line.
    #[inline(never)]
    fn evict(buf: &[u8]) {
        let mut s = 0u8;
        for line in buf.chunks(64) {
            s = s.wrapping_add(line[0]);
        }
        black_box(s);
    }

    fn measure(t: &mut Target, cache: Cache, args: &Args, rng: &mut Rng) -> Outcome {
        let len = t.len;
        let mut slots = vec![0u8; BATCH * len];
        let mut class = [0u8; BATCH];
        let mut ticks = [0u64; BATCH];
        let evict_buf = vec![1u8; EVICT_BYTES];
        let limit = Duration::from_secs_f64(args.seconds);
        let start = Instant::now();
        let mut warmup = Vec::with_capacity(WARMUP_BATCHES * BATCH);
        let mut crops: Option<Crops> = None;
        let mut samples = 0u64;
        while samples < args.samples && start.elapsed() < limit {
            for (c, slot) in class.iter_mut().zip(slots.chunks_exact_mut(len)) {
                *c = (rng.next_u64() >> 63) as u8;
                if *c == 0 {
                    slot.copy_from_slice(&t.fixed);
                } else {
                    rng.fill(slot);
                }
            }
            for (tk, slot) in ticks.iter_mut().zip(slots.chunks_exact_mut(len)) {
                if cache == Cache::Cold {
                    evict(&evict_buf);
                }
                let t0 = ticks_start();
                (t.op)(slot);
                let t1 = ticks_end();
                *tk = t1.wrapping_sub(t0);
            }
            match &mut crops {
                None => {
                    warmup.extend_from_slice(&ticks);
                    if warmup.len() >= WARMUP_BATCHES * BATCH {
                        crops = Some(Crops::new(std::mem::take(&mut warmup)));
                    }
                }
                Some(cr) => {
                    for (&c, &tk) in class.iter().zip(&ticks) {
                        cr.push(usize::from(c), tk);
                    }
                    samples += BATCH as u64;
                }
            }
        }
        let (max_t, crop, diff, means) = match &crops {
            Some(cr) => {
                let (t, crop, diff) = cr.max_t();
                (
                    t,
                    crop,
                    diff,
                    [cr.tests[0].0[0].mean, cr.tests[0].0[1].mean],
                )
            }
            None => (0.0, None, 0.0, [0.0; 2]),
        };
        Outcome {
            samples,
            max_t,
            crop,
            diff,
            means,
            elapsed: start.elapsed(),
        }
    }

    fn cpu_has_rdtscp() -> bool {
        std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| {
            s.lines()
                .find(|l| l.starts_with("flags"))
                .is_some_and(|l| l.split_whitespace().any(|f| f == "rdtscp"))
        })
    }

    pub(super) fn main() -> ExitCode {
        let args = Args::parse();
        if !cpu_has_rdtscp() {
            eprintln!("ct_timing: /proc/cpuinfo does not list rdtscp");
            return ExitCode::from(2);
        }
        let seed = args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
        println!("seed {seed}");
        let mut rng = Rng::new(seed);
        let mut targets = Vec::new();
        sha1_targets(&mut targets);
        ghash_targets(&mut rng, &mut targets);
        aes_gcm_targets(&mut rng, &mut targets);
        if let Some(only) = &args.only {
            targets.retain(|t| t.what.contains(only.as_str()) || t.backend.contains(only.as_str()));
        }
        if args.fixed == FixedArg::Random {
            for t in targets.iter_mut().filter(|t| !t.leaky_twin) {
                if t.fixed.iter().all(|&b| b == 0) {
                    rng.fill(&mut t.fixed);
                }
            }
        }
        println!(
            "fixed class: {}",
            match args.fixed {
                FixedArg::Zero => "zeros",
                FixedArg::Random => "one random value per target",
            }
        );
        let caches: &[Cache] = match args.cache {
            CacheArg::Warm => &[Cache::Warm],
            CacheArg::Cold => &[Cache::Cold],
            CacheArg::Both => &[Cache::Warm, Cache::Cold],
        };

        println!(
            "{:<46} {:<13} {:<24} {:<5} {:>9} {:>8} {:>7} {:>7} {:>9} {:>9} {:>6}  verdict",
            "target",
            "backend",
            "secret",
            "cache",
            "samples",
            "max|t|",
            "crop",
            "diff",
            "fixed",
            "random",
            "secs"
        );
        let mut rows = Vec::new();
        let mut false_alarm = false;
        let mut twin_caught = vec![false; targets.len()];
        for &cache in caches {
            for (i, t) in targets.iter_mut().enumerate() {
                let o = measure(t, cache, &args, &mut rng);
                let mut leak = o.max_t > args.threshold;
                // A real target over the threshold is measured again: on a
                // shared machine one run can be hit by noise that a t-test
                // cannot tell from a leak (dudect's authors also ask for a
                // result to repeat). Only a flag that every rerun repeats
                // counts.
                let mut reruns = Vec::new();
                if leak && !t.leaky_twin {
                    for _ in 0..args.reruns {
                        let r = measure(t, cache, &args, &mut rng);
                        reruns.push(r.max_t);
                        leak &= r.max_t > args.threshold;
                    }
                }
                let rerun_note = if reruns.is_empty() {
                    String::new()
                } else {
                    let list: Vec<String> = reruns.iter().map(|t| format!("{t:.2}")).collect();
                    format!(" (reruns: |t| = {})", list.join(", "))
                };
                let verdict = match (leak, t.leaky_twin, reruns.is_empty()) {
                    (true, false, _) => format!("LEAK{rerun_note}"),
                    (false, false, true) => "no leak found".to_string(),
                    (false, false, false) => format!("flagged once, not repeated{rerun_note}"),
                    (true, true, _) => "leak found (as intended)".to_string(),
                    (false, true, _) => "not detected in this mode".to_string(),
                };
                if t.leaky_twin {
                    twin_caught[i] |= leak;
                } else {
                    false_alarm |= leak;
                }
                let crop = o
                    .crop
                    .map_or_else(|| "none".to_string(), |p| format!("{:.1}%", 100.0 * p));
                println!(
                    "{:<46} {:<13} {:<24} {:<5} {:>9} {:>8.2} {:>7} {:>7.1} {:>9.1} {:>9.1} {:>6.1}  {}",
                    t.what,
                    t.backend,
                    t.secret,
                    cache.name(),
                    o.samples,
                    o.max_t,
                    crop,
                    o.diff,
                    o.means[0],
                    o.means[1],
                    o.elapsed.as_secs_f64(),
                    verdict
                );
                let _ = std::io::stdout().flush();
                rows.push(format!(
                    "| {} | {} | {} | {} | {} | {:.2} | {} | {:.1} | {:.0} / {:.0} | {} |",
                    t.what,
                    t.backend,
                    t.secret,
                    cache.name(),
                    o.samples,
                    o.max_t,
                    crop,
                    o.diff,
                    o.means[0],
                    o.means[1],
                    verdict.replace('|', "\\|")
                ));
            }
        }
        if args.markdown {
            println!();
            println!(
                "| target | backend | secret | cache | samples | max \\|t\\| | at crop | diff at that crop (ticks) | mean ticks fixed / random | verdict |"
            );
            println!("|---|---|---|---|---:|---:|---:|---:|---:|---|");
            for r in &rows {
                println!("{r}");
            }
        }
        let missed: Vec<&str> = targets
            .iter()
            .zip(&twin_caught)
            .filter(|(t, caught)| t.leaky_twin && !**caught)
            .map(|(t, _)| t.what)
            .collect();
        println!();
        if false_alarm {
            println!("ct_timing: a real target exceeded |t| = {}", args.threshold);
        }
        for m in &missed {
            println!("ct_timing: the leaky twin `{m}` was not detected in any mode");
        }
        if false_alarm || !missed.is_empty() {
            ExitCode::from(1)
        } else {
            println!(
                "ct_timing: no real target above |t| = {}; every leaky twin run was detected",
                args.threshold
            );
            ExitCode::SUCCESS
        }
    }
}
