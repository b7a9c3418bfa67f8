//! The compact form of a result's raw samples in the store.
//!
//! A stored result is read back for two things: the rank tests of a before/after comparison
//! (Mann–Whitney and the Hodges–Lehmann shift, against the previous run or a named baseline),
//! and the distribution the editor's panel draws. Both use only the *distribution* of the
//! samples: their order in time and the pairing of workload and baseline samples matter only
//! while the run is being analysed, which happens before anything is stored.
//!
//! So each raw vector is stored sorted and, when it holds more values than its limit
//! ([`STORED_WORKLOAD_SAMPLES`], [`STORED_BASELINE_SAMPLES`]), reduced to that many evenly
//! spaced sample quantiles: with `k` kept values, the `i`-th is the quantile at
//! `p = i / (k − 1)` by Hyndman and Fan's definition 7 (the engine's own). The minimum, the
//! median and the maximum are always among them (`k` is odd), so the harness overhead the
//! engine subtracts (the baseline's median) is the one it measured. The result's estimates,
//! quantiles and `samples` count are kept as measured.
//!
//! What this does to a before/after test is written in `docs/measurement.md`: the stored side
//! enters the rank tests as `k` values instead of `n`, which widens the interval and raises the
//! p-value (the test loses power and never gains it: it stays conservative).

/// The most values stored for a result's workload samples: every percentile, 0 to 100.
pub const STORED_WORKLOAD_SAMPLES: usize = 101;

/// The most values stored for a result's baseline (empty-body) samples: every 5th percentile.
/// Only their median is used again (as the overhead to subtract).
pub const STORED_BASELINE_SAMPLES: usize = 21;

/// `samples` sorted ascending, reduced to `count` evenly spaced quantiles when there are more
/// (see the module documentation); all of them, sorted, when there are no more than `count`.
pub fn stored_samples(samples: &[f64], count: usize) -> Vec<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n <= count {
        return sorted;
    }
    if count < 2 {
        return sorted.into_iter().take(count).collect();
    }
    (0..count)
        .map(|i| {
            // Definition 7: h = (n − 1)·p; interpolate between the order statistics around h.
            let h = (n - 1) as f64 * i as f64 / (count - 1) as f64;
            let lo = (h.floor() as usize).min(n - 1);
            let hi = (lo + 1).min(n - 1);
            let frac = h - lo as f64;
            if frac == 0.0 {
                sorted[lo]
            } else {
                sorted[lo] + frac * (sorted[hi] - sorted[lo])
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_vectors_are_kept_whole_and_sorted() {
        assert_eq!(stored_samples(&[3.0, 1.0, 2.0], 3), vec![1.0, 2.0, 3.0]);
        assert_eq!(stored_samples(&[], 3), Vec::<f64>::new());
    }

    #[test]
    fn long_vectors_keep_minimum_median_maximum_and_evenly_spaced_quantiles() {
        // 0, 1, ..., 1000 shuffled: the quantile at p = i/10 is 100·i exactly.
        let mut samples: Vec<f64> = (0..=1000).map(f64::from).collect();
        samples.reverse();
        samples.swap(3, 700);
        let kept = stored_samples(&samples, 11);
        assert_eq!(
            kept,
            (0..=10).map(|i| f64::from(i * 100)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_median_of_an_even_count_is_the_engines_median() {
        // n = 6: the median is halfway between 2 and 3.
        let kept = stored_samples(&[4.0, 1.0, 3.0, 2.0, 10.0, 0.0], 3);
        assert_eq!(kept, vec![0.0, 2.5, 10.0]);
    }

    #[test]
    fn limits_are_odd_so_the_median_is_kept() {
        assert_eq!(STORED_WORKLOAD_SAMPLES % 2, 1);
        assert_eq!(STORED_BASELINE_SAMPLES % 2, 1);
    }
}
