//! The statistics every report shares: one median, the summary of a set of
//! samples, and the geometric mean of benchcmp's closing rows.

/// The median, `NaN` for no values (a cell that was never measured).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Smallest and largest value.
pub fn range(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// The geometric mean of the positive, finite values, if there are any.
pub fn geomean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = v
        .filter(|x| *x > 0.0 && x.is_finite())
        .fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

/// Median and range of one cell's samples (ns/op).
#[derive(Clone, Debug)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Stats {
    pub fn of(samples: &[f64]) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        let (min, max) = range(samples);
        Some(Stats {
            median: median(samples),
            min,
            max,
            n: samples.len(),
        })
    }

    /// Throughput in MB/s (10^6 bytes per second); `None` for size 0.
    pub fn mb_s(&self, size: usize) -> Option<f64> {
        (size > 0 && self.median > 0.0).then(|| size as f64 * 1e3 / self.median)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[100.0, 110.0, 105.0]), 105.0);
        assert!(median(&[]).is_nan());
    }
}
