//! Exact order statistics of all pairwise differences aᵢ − bⱼ and of all
//! Walsh averages (xᵢ + xⱼ)/2, i ≤ j, without materialising the n·m (or
//! n(n+1)/2) values.
//!
//! Method: "binary search on the answer", the idea underlying the X + Y
//! selection algorithms of Johnson & Mizoguchi (1978) and Monahan (1984).
//! For a candidate t, the number of pairs ≤ t is counted in O(n + m) with
//! two pointers over the sorted samples (both expressions are monotone in
//! each argument, also under floating-point rounding). Bisecting over the
//! totally ordered bit patterns of f64 between the smallest and largest
//! pair value finds the smallest float t with count(t) ≥ k, which is
//! exactly the k-th smallest computed pair value. At most 64 rounds: time
//! O(64·(n + m)), memory O(1) beyond the inputs. No thinning is needed.

/// Maps an f64 to a u64 whose unsigned order is the IEEE total order.
fn key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Inverse of [`key`].
fn from_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// Smallest f64 t in [lo, hi] with `count_le(t) ≥ k`, by bisection over
/// the ordered bit patterns; requires `count_le(hi) ≥ k`. −0.0 is returned
/// as +0.0.
fn smallest_reaching(lo: f64, hi: f64, k: u64, count_le: impl Fn(f64) -> u64) -> f64 {
    let (mut lo_k, mut hi_k) = (key(lo), key(hi));
    while lo_k < hi_k {
        let mid = lo_k + (hi_k - lo_k) / 2;
        if count_le(from_key(mid)) >= k {
            hi_k = mid;
        } else {
            lo_k = mid + 1;
        }
    }
    from_key(lo_k) + 0.0
}

/// The k-th smallest (1-based, clamped to [1, n·m]) of aᵢ − bⱼ over all
/// pairs, for non-empty ascending-sorted finite `a` and `b`. NaN if either
/// is empty.
pub fn kth_difference(a: &[f64], b: &[f64], k: u64) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let total = a.len() as u64 * b.len() as u64;
    let k = k.clamp(1, total);
    let count_le = |t: f64| -> u64 {
        // For each aᵢ (ascending), the j with aᵢ − bⱼ > t form a prefix of b
        // that only grows with i.
        let mut j = 0;
        let mut count = 0u64;
        for &ai in a {
            while j < b.len() && ai - b[j] > t {
                j += 1;
            }
            count += (b.len() - j) as u64;
        }
        count
    };
    let lo = a[0] - b[b.len() - 1];
    let hi = a[a.len() - 1] - b[0];
    smallest_reaching(lo, hi, k, count_le)
}

/// The k-th smallest (1-based, clamped to [1, n(n+1)/2]) Walsh average
/// (xᵢ + xⱼ)/2, i ≤ j, for non-empty ascending-sorted finite `x`. NaN if
/// `x` is empty.
pub fn kth_walsh(x: &[f64], k: u64) -> f64 {
    let n = x.len();
    if n == 0 {
        return f64::NAN;
    }
    let total = n as u64 * (n as u64 + 1) / 2;
    let k = k.clamp(1, total);
    let walsh = |i: usize, j: usize| (x[i] + x[j]) * 0.5;
    let count_le = |t: f64| -> u64 {
        // p = number of j (over all j) with walsh(i, j) ≤ t; it only
        // shrinks as i grows. Pairs with j ≥ i among those: p − i.
        let mut p = n;
        let mut count = 0u64;
        for i in 0..n {
            while p > 0 && walsh(i, p - 1) > t {
                p -= 1;
            }
            if p <= i {
                break;
            }
            count += (p - i) as u64;
        }
        count
    };
    smallest_reaching(walsh(0, 0), walsh(n - 1, n - 1), k, count_le)
}

/// Median of all pairwise differences aᵢ − bⱼ (mean of the two middle
/// order statistics when n·m is even). NaN if either input is empty.
pub fn median_difference(a: &[f64], b: &[f64]) -> f64 {
    let total = a.len() as u64 * b.len() as u64;
    middle(total, |k| kth_difference(a, b, k))
}

/// Median of all Walsh averages (xᵢ + xⱼ)/2, i ≤ j. NaN if `x` is empty.
pub fn median_walsh(x: &[f64]) -> f64 {
    let n = x.len() as u64;
    middle(n * (n + 1) / 2, |k| kth_walsh(x, k))
}

/// Median of `total` ordered values given their k-th order statistic.
fn middle(total: u64, kth: impl Fn(u64) -> f64) -> f64 {
    if total == 0 {
        return f64::NAN;
    }
    if total % 2 == 1 {
        kth(total.div_ceil(2))
    } else {
        let lo = kth(total / 2);
        let hi = kth(total / 2 + 1);
        lo + (hi - lo) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::sorted;
    use crate::testutil::SplitMix64;

    #[test]
    fn keys_preserve_total_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} vs {}", w[0], w[1]);
        }
        for &x in &xs {
            assert_eq!(from_key(key(x)).to_bits(), x.to_bits());
        }
    }

    fn brute_differences(a: &[f64], b: &[f64]) -> Vec<f64> {
        sorted(
            &a.iter()
                .flat_map(|x| b.iter().map(move |y| x - y))
                .collect::<Vec<_>>(),
        )
    }

    fn brute_walsh(x: &[f64]) -> Vec<f64> {
        let mut w = Vec::new();
        for i in 0..x.len() {
            for j in i..x.len() {
                w.push((x[i] + x[j]) * 0.5);
            }
        }
        sorted(&w)
    }

    #[test]
    fn differences_match_brute_force() {
        let mut rng = SplitMix64::new(3);
        for (n, m) in [(1, 1), (1, 7), (13, 17), (30, 4)] {
            // Rounded values so that ties occur.
            let a = sorted(
                &rng.normals(n)
                    .iter()
                    .map(|v| (v * 4.0).round())
                    .collect::<Vec<_>>(),
            );
            let b = sorted(
                &rng.normals(m)
                    .iter()
                    .map(|v| (v * 4.0).round())
                    .collect::<Vec<_>>(),
            );
            let all = brute_differences(&a, &b);
            for (i, &want) in all.iter().enumerate() {
                assert_eq!(kth_difference(&a, &b, i as u64 + 1), want);
            }
            let mid = if all.len() % 2 == 1 {
                all[all.len() / 2]
            } else {
                all[all.len() / 2 - 1] + (all[all.len() / 2] - all[all.len() / 2 - 1]) / 2.0
            };
            assert_eq!(median_difference(&a, &b), mid);
        }
    }

    #[test]
    fn walsh_averages_match_brute_force() {
        let mut rng = SplitMix64::new(5);
        for n in [1, 2, 9, 40] {
            let x = sorted(
                &rng.normals(n)
                    .iter()
                    .map(|v| (v * 3.0).round())
                    .collect::<Vec<_>>(),
            );
            let all = brute_walsh(&x);
            for (i, &want) in all.iter().enumerate() {
                assert_eq!(kth_walsh(&x, i as u64 + 1), want);
            }
        }
        // 1..=9 is symmetric about 5.
        let x: Vec<f64> = (1..=9).map(f64::from).collect();
        assert_eq!(median_walsh(&x), 5.0);
    }

    #[test]
    fn empty_and_out_of_range_ranks() {
        assert!(kth_difference(&[], &[1.0], 1).is_nan());
        assert!(kth_walsh(&[], 1).is_nan());
        assert!(median_difference(&[1.0], &[]).is_nan());
        assert!(median_walsh(&[]).is_nan());
        assert_eq!(kth_difference(&[1.0, 2.0], &[0.0], 0), 1.0);
        assert_eq!(kth_difference(&[1.0, 2.0], &[0.0], 99), 2.0);
    }
}
