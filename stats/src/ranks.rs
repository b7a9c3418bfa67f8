//! Tie groups and midranks for rank statistics (Mann–Whitney, Wilcoxon
//! signed-rank). Tied observations share the average of the ranks they
//! occupy ("midranks"; Hollander, Wolfe & Chicken, 3rd ed., §4.1 and §3.1),
//! and each tie group of size t contributes t³ − t to the variance
//! correction.

/// Iterator over maximal runs of equal values in ascending-sorted data,
/// yielding `(start, end, midrank)` with `end` exclusive and the 1-based
/// midrank (start + 1 + end) / 2 shared by the run.
pub struct TieGroups<'a> {
    /// The sorted values.
    values: &'a [f64],
    /// Start of the next run.
    pos: usize,
}

/// Tie groups of ascending-sorted `values` (see [`TieGroups`]). Equality is
/// exact `==`; callers should filter NaN beforehand (each NaN forms its own
/// group).
pub fn tie_groups(values: &[f64]) -> TieGroups<'_> {
    TieGroups { values, pos: 0 }
}

impl Iterator for TieGroups<'_> {
    type Item = (usize, usize, f64);

    /// The next run of equal values as (start, end, midrank).
    fn next(&mut self) -> Option<Self::Item> {
        let start = self.pos;
        let first = *self.values.get(start)?;
        // The first element always belongs to its run (even a NaN, which
        // equals nothing), so the iterator always advances.
        let rest = self.values[start + 1..]
            .iter()
            .take_while(|&&v| v == first)
            .count();
        let end = start + 1 + rest;
        self.pos = end;
        Some((start, end, (start + 1 + end) as f64 / 2.0))
    }
}

/// Σ (t³ − t) over the tie groups of ascending-sorted `values`: the tie
/// correction term of the rank-statistic variances.
pub fn tie_term(values: &[f64]) -> f64 {
    tie_groups(values)
        .map(|(s, e, _)| {
            let t = (e - s) as f64;
            t * t * t - t
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midranks_and_tie_term() {
        let v = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 7.0];
        let groups: Vec<_> = tie_groups(&v).collect();
        assert_eq!(
            groups,
            vec![(0, 1, 1.0), (1, 3, 2.5), (3, 6, 5.0), (6, 7, 7.0)]
        );
        // Groups of 2 and 3: (8 − 2) + (27 − 3) = 30.
        assert_eq!(tie_term(&v), 30.0);
        assert_eq!(tie_term(&[1.0, 2.0, 3.0]), 0.0);
        assert_eq!(tie_groups(&[]).count(), 0);
        // NaN equals nothing but must not stall the iterator.
        assert_eq!(tie_groups(&[1.0, f64::NAN, f64::NAN]).count(), 3);
    }
}
