//! False-discovery-rate control for many simultaneous comparisons
//! (Benjamini & Hochberg 1995, "Controlling the false discovery rate",
//! JRSS B 57, 289–300), computed as R's `p.adjust(p, method = "BH")`.

/// Benjamini–Hochberg adjusted p-values (q-values), in the input order.
/// With the m finite p-values sorted ascending, q₍ᵢ₎ = min over j ≥ i of
/// m·p₍ⱼ₎/j, capped at 1 — monotone in p. Declaring every q ≤ α significant
/// controls the FDR at α for independent or positively dependent tests.
/// Like R, NaN entries stay NaN and do not count towards m; O(m log m).
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_unstable_by(|&i, &j| p[i].total_cmp(&p[j]));
    let m = order.len() as f64;
    let mut q = vec![f64::NAN; p.len()];
    let mut running_min = f64::INFINITY;
    for (rank, &i) in order.iter().enumerate().rev() {
        let adjusted = p[i] * m / (rank + 1) as f64;
        running_min = running_min.min(adjusted);
        q[i] = running_min.min(1.0);
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn textbook_example() {
        // Sorted 0.005, 0.01, 0.03, 0.04 → 0.02, 0.02, 0.04, 0.04.
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005]);
        assert!(close(&q, &[0.02, 0.04, 0.04, 0.02]), "{q:?}");
    }

    #[test]
    fn matches_r_p_adjust() {
        // R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.9), "BH")
        //  -> 0.07 0.07 0.07 0.07 0.07 0.5833333 0.9
        // (m = 7; m·p/i = 0.07 ×5, 0.5833, 0.9, already monotone).
        let q = benjamini_hochberg(&[0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.9]);
        let want = [0.07, 0.07, 0.07, 0.07, 0.07, 0.5 * 7.0 / 6.0, 0.9];
        assert!(close(&q, &want), "{q:?}");
        // Sorted 0.6, 0.9, 0.95 → 1.8, 1.35, 0.95; the running minimum
        // from the top enforces monotonicity (and the cap at 1).
        let q = benjamini_hochberg(&[0.9, 0.6, 0.95]);
        assert!(close(&q, &[0.95, 0.95, 0.95]), "{q:?}");
        let q = benjamini_hochberg(&[0.6]);
        assert!(close(&q, &[0.6]));
    }

    #[test]
    fn nan_and_empty() {
        assert!(benjamini_hochberg(&[]).is_empty());
        let q = benjamini_hochberg(&[0.01, f64::NAN, 0.04]);
        assert!((q[0] - 0.02).abs() < 1e-12 && q[1].is_nan() && (q[2] - 0.04).abs() < 1e-12);
    }
}
