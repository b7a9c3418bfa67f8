//! Bounding the raw samples kept per result.
//!
//! A long run can take hundreds of thousands of samples; storing them all would make the
//! history grow by megabytes per run. Each raw sample vector (`raw.workload_ns` and
//! `raw.baseline_ns`) is therefore cut to at most [`MAX_STORED_SAMPLES`] values by *even
//! thinning*: from `n > cap` samples, the ones at indices `floor(i * n / cap)` for
//! `i = 0..cap` are kept. That keeps the first sample, keeps time order, spaces the kept
//! samples evenly over the whole run (so drift stays visible), and — because both vectors
//! are thinned by the same rule — keeps the workload and baseline samples paired when they
//! have the same length. The estimates, quantiles and `samples` count of the result are left
//! as measured, so a stored `raw` may be shorter than `samples`.

/// The most raw samples stored per vector of a result.
pub const MAX_STORED_SAMPLES: usize = 10_000;

/// At most `cap` of `samples`, evenly spaced in order, starting with the first; all of them
/// when there are no more than `cap`.
pub fn thin_samples(samples: &[f64], cap: usize) -> Vec<f64> {
    let n = samples.len();
    if n <= cap {
        return samples.to_vec();
    }
    (0..cap)
        .map(|i| {
            // u128: `i * n` cannot overflow whatever the lengths.
            let index = (i as u128 * n as u128 / cap as u128) as usize;
            samples[index]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_vectors_are_kept_whole() {
        assert_eq!(thin_samples(&[1.0, 2.0, 3.0], 3), vec![1.0, 2.0, 3.0]);
        assert_eq!(thin_samples(&[], 3), Vec::<f64>::new());
    }

    #[test]
    fn long_vectors_keep_evenly_spaced_samples() {
        let samples: Vec<f64> = (0..10).map(f64::from).collect();
        assert_eq!(thin_samples(&samples, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(thin_samples(&samples, 3), vec![0.0, 3.0, 6.0]);
        assert_eq!(thin_samples(&samples, 0), Vec::<f64>::new());
    }
}
