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

/// Column-wise geometric means over the rows whose every value is
/// positive and finite, if there is such a row. A row with a 0 or an
/// infinite value is left out of *every* column, so that each mean is
/// taken over the same rows and the columns stay comparable (an old and a
/// new mean over different benchmarks would show a change that no
/// benchmark has).
pub fn geomeans<const N: usize>(rows: impl Iterator<Item = [f64; N]>) -> Option<[f64; N]> {
    let (sums, n) = rows
        .filter(|r| r.iter().all(|x| *x > 0.0 && x.is_finite()))
        .fold(([0.0; N], 0usize), |(mut s, n), r| {
            for (a, x) in s.iter_mut().zip(r) {
                *a += x.ln();
            }
            (s, n + 1)
        });
    (n > 0).then(|| sums.map(|s| (s / n as f64).exp()))
}

/// Median and range of one cell's samples (ns/op).
#[derive(Clone, Debug)]
pub struct Stats {
    /// The median sample.
    pub median: f64,
    /// The fastest sample.
    pub min: f64,
    /// The slowest sample.
    pub max: f64,
    /// How many samples.
    pub n: usize,
}

impl Stats {
    /// The statistics of `samples`, or `None` when there are none.
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
    fn geomeans_use_the_same_rows_in_every_column() {
        // Row A has a zero old time: it must leave both columns, not one.
        let rows = [[0.0, 3.0], [4.0, 4.0]];
        assert_eq!(geomeans(rows.into_iter()), Some([4.0, 4.0]));
        let rows = [[f64::INFINITY, 1.0]];
        assert_eq!(geomeans(rows.into_iter()), None);
        let g = geomeans([[2.0, 1.0], [8.0, 1.0]].into_iter()).unwrap();
        assert!((g[0] - 4.0).abs() < 1e-12 && g[1] == 1.0);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[100.0, 110.0, 105.0]), 105.0);
        assert!(median(&[]).is_nan());
    }
}
