//! "Did you mean": how far a name the user typed is from the names that exist (baselines,
//! git revisions), so an error can suggest the nearest.

/// Levenshtein distance between `a` and `b`, in characters: insertions, deletions and
/// substitutions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("main", "main"), 0);
        assert_eq!(edit_distance("mian", "main"), 2);
        assert_eq!(edit_distance("mai", "main"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("nightly", "main"), 7);
    }
}
