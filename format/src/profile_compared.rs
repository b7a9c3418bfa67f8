//! How a [`ProfileComparison`] reads (`knotmeter compare --profile`): the region's total on
//! both builds, and the functions whose own cost changed most, as a terminal table or a
//! pull-request comment.

use knotmeter_protocol::{FunctionChange, Profile, ProfileComparison, ProfileTool};

use crate::profile::{cost_text, share_noise, share_text, total_text, what_it_counts};

/// A signed change per operation: `+6 845 instructions/op`, `−1.20 µs/op`, `0 …`.
pub fn signed_cost_text(change: f64, unit: &str) -> String {
    if change == 0.0 {
        return cost_text(0.0, unit).replacen("<0.1", "0", 1);
    }
    let sign = if change > 0.0 { "+" } else { "−" };
    format!("{sign}{}", cost_text(change.abs(), unit))
}

/// A relative change: `+16%`, `−3.2%`, or `new` / `gone` when one side lacks it.
fn relative_text(base: Option<f64>, head: Option<f64>) -> String {
    match (base, head) {
        (Some(b), Some(h)) if b > 0.0 => {
            let percent = (h - b) / b * 100.0;
            let sign = if percent >= 0.0 { "+" } else { "−" };
            let magnitude = percent.abs();
            if magnitude < 10.0 {
                format!("{sign}{magnitude:.1}%")
            } else {
                format!("{sign}{magnitude:.0}%")
            }
        }
        (None, Some(_)) => "new".to_owned(),
        (Some(_), None) => "gone".to_owned(),
        _ => "—".to_owned(),
    }
}

/// A function's own cost on one side, or `—` when that profile does not list it.
fn side_cost(per_op: Option<f64>, unit: &str) -> String {
    per_op.map_or_else(|| "—".to_owned(), |v| cost_text(v, unit))
}

/// A function's share on one side, or `—` when that profile does not list it.
fn side_share(per_op: Option<f64>, share: f64) -> String {
    per_op.map_or_else(|| "—".to_owned(), |_| share_text(share))
}

/// The change of a function's own cost (absent on a side counts as nothing).
fn change_of(change: &FunctionChange) -> f64 {
    change.head_per_op.unwrap_or(0.0) - change.base_per_op.unwrap_or(0.0)
}

/// The heading: the case, the region's total on both builds and its change, which builds,
/// and what was counted.
pub fn comparison_heading(comparison: &ProfileComparison) -> String {
    let (base, head) = (&comparison.base, &comparison.head);
    format!(
        "{}: {} → {} per operation ({}), {} → {}; {}",
        comparison.id,
        total_text(base),
        total_text(head),
        relative_text(Some(base.total_per_op), Some(head.total_per_op)),
        comparison.base_label,
        comparison.head_label,
        what_it_counts(head)
    )
}

/// What a change of the table can be trusted to: a count's is exact; a sample's share moves by
/// up to the noise of both profiles' samples.
fn trust_note(base: &Profile, head: &Profile) -> String {
    match head.tool {
        ProfileTool::Callgrind => "a count, which the machine's load does not move; the \
                                   allocator's and the copies' counts can still move by a few \
                                   instructions with where memory lands"
            .to_owned(),
        ProfileTool::Perf => {
            let noise = share_noise(base.samples.unwrap_or(0))
                .hypot(share_noise(head.samples.unwrap_or(0)));
            format!(
                "sampled: a share that moved by less than about {:.1} points may be noise; each \
                 total is one run's time, which moves with the machine's load, and `knotmeter \
                 compare` measures times",
                noise * 100.0
            )
        }
    }
}

/// The terminal's text: the heading, then the `top` functions whose own cost per operation
/// changed most.
pub fn comparison_text(comparison: &ProfileComparison, top: usize) -> String {
    let unit = &comparison.head.unit;
    let mut out = format!(
        "{}\n\nfunctions whose own cost changed most ({})\n",
        comparison_heading(comparison),
        trust_note(&comparison.base, &comparison.head)
    );
    out.push_str(&format!(
        "{:>26}  {:>7}  {:>22}  {:>22}  {:>15}  function\n",
        "change", "", "base", "head", "share"
    ));
    for change in comparison.changes.iter().take(top) {
        out.push_str(&format!(
            "{:>26}  {:>7}  {:>22}  {:>22}  {:>15}  {}\n",
            signed_cost_text(change_of(change), unit),
            relative_text(change.base_per_op, change.head_per_op),
            side_cost(change.base_per_op, unit),
            side_cost(change.head_per_op, unit),
            format!(
                "{} → {}",
                side_share(change.base_per_op, change.base_share),
                side_share(change.head_per_op, change.head_share)
            ),
            change.name
        ));
    }
    if comparison.changes.is_empty() {
        out.push_str("  (none)\n");
    }
    out
}

/// A pull-request comment: the heading as a paragraph and the `top` changes as a table.
pub fn comparison_markdown(comparison: &ProfileComparison, top: usize) -> String {
    let unit = &comparison.head.unit;
    let (base, head) = (&comparison.base, &comparison.head);
    let mut out = format!(
        "### Profile of `{}`: {} → {}\n\n{} → {} per operation ({}); {}. {}.\n\n",
        comparison.id,
        comparison.base_label,
        comparison.head_label,
        total_text(base),
        total_text(head),
        relative_text(Some(base.total_per_op), Some(head.total_per_op)),
        what_it_counts(head),
        trust_note(base, head)
    );
    out.push_str("| function | change | | base | head | share |\n|---|--:|--:|--:|--:|--:|\n");
    for change in comparison.changes.iter().take(top) {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} → {} |\n",
            change.name.replace('|', "\\|").replace('`', "'"),
            signed_cost_text(change_of(change), unit),
            relative_text(change.base_per_op, change.head_per_op),
            side_cost(change.base_per_op, unit),
            side_cost(change.head_per_op, unit),
            side_share(change.base_per_op, change.base_share),
            side_share(change.head_per_op, change.head_share)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(total: f64, samples: Option<u64>, tool: ProfileTool, unit: &str) -> Profile {
        Profile {
            id: "b::body".into(),
            tool,
            unit: unit.into(),
            operations: 1000,
            total_per_op: total,
            samples,
            functions: Vec::new(),
            lines: Vec::new(),
            tree: None,
        }
    }

    fn comparison(tool: ProfileTool, unit: &str) -> ProfileComparison {
        let samples = (tool == ProfileTool::Perf).then_some(2500);
        ProfileComparison {
            id: "b::body".into(),
            base_label: "main (9f8e7d6c5b)".into(),
            head_label: "working tree".into(),
            base: profile(1000.0, samples, tool, unit),
            head: profile(1200.0, samples, tool, unit),
            changes: vec![
                FunctionChange {
                    name: "b::helper".into(),
                    base_per_op: Some(600.0),
                    head_per_op: Some(800.0),
                    base_share: 0.6,
                    head_share: 0.667,
                },
                FunctionChange {
                    name: "b::new_one".into(),
                    base_per_op: None,
                    head_per_op: Some(50.0),
                    base_share: 0.0,
                    head_share: 0.042,
                },
            ],
        }
    }

    #[test]
    fn a_count_comparison_names_both_builds_and_each_change() {
        let text = comparison_text(&comparison(ProfileTool::Callgrind, "instructions"), 10);
        assert!(
            text.starts_with(
                "b::body: 1 000 instructions → 1 200 instructions per operation (+20%), main \
                 (9f8e7d6c5b) → working tree; instructions counted by callgrind"
            ),
            "{text}"
        );
        assert!(
            text.contains("which the machine's load does not move"),
            "{text}"
        );
        let helper = text.lines().find(|l| l.ends_with("b::helper")).unwrap();
        assert!(helper.contains("+200 instructions/op"), "{helper}");
        assert!(helper.contains("+33%"), "{helper}");
        assert!(helper.contains("60% → 67%"), "{helper}");
        let new = text.lines().find(|l| l.ends_with("b::new_one")).unwrap();
        assert!(new.contains("new") && new.contains("— → 4.2%"), "{new}");
    }

    #[test]
    fn a_sampled_comparison_says_what_is_noise_and_reads_as_time() {
        let cmp = comparison(ProfileTool::Perf, "ns");
        let text = comparison_text(&cmp, 10);
        assert!(text.contains("1.00 µs → 1.20 µs per operation"), "{text}");
        // Two profiles of 2 500 samples: √2 × 2.0 points.
        assert!(
            text.contains("less than about 2.8 points may be noise"),
            "{text}"
        );
        assert!(text.contains("+200 ns/op"), "{text}");
        let markdown = comparison_markdown(&cmp, 10);
        assert!(markdown.starts_with("### Profile of `b::body`: main (9f8e7d6c5b) → working tree"));
        assert!(
            markdown.contains(
                "| `b::helper` | +200 ns/op | +33% | 600 ns/op | 800 ns/op | 60% → 67% |"
            ),
            "{markdown}"
        );
    }

    #[test]
    fn signed_changes_read_with_their_sign() {
        assert_eq!(signed_cost_text(-1200.0, "ns"), "−1.20 µs/op");
        assert_eq!(
            signed_cost_text(6845.0, "instructions"),
            "+6 845 instructions/op"
        );
        assert_eq!(signed_cost_text(0.0, "instructions"), "0 instructions/op");
    }
}
