//! How a [`Profile`] reads: its table on a terminal, and the mark beside a hot line in an
//! editor (`31% · 4 100 instructions/op`).

use std::path::Path;

use knotmeter_protocol::{Profile, ProfileTool, ProfiledLine};

use crate::units::{format_duration_ns, group_digits};

/// A cost per operation in the profile's unit: `4 100 instructions/op`, `3.2 instructions/op`
/// below ten (an average over operations need not be whole), `<0.1 …` for less; a time for
/// perf's `ns` (`9.67 µs/op`). The extension's `costText` agrees (tests/fixtures/units.json).
pub fn cost_text(per_op: f64, unit: &str) -> String {
    if unit == "ns" {
        return format!("{}/op", format_duration_ns(per_op));
    }
    format!("{} {unit}/op", cost_number(per_op))
}

/// The number of [`cost_text`]: grouped and whole from ten up, one decimal below.
pub(crate) fn cost_number(per_op: f64) -> String {
    if !per_op.is_finite() || per_op < 0.0 {
        "—".to_owned()
    } else if per_op < 0.05 {
        "<0.1".to_owned()
    } else if per_op < 10.0 {
        format!("{per_op:.1}")
    } else {
        group_digits(per_op.round() as u64)
    }
}

/// A share of the region: `31%`, `4.2%` below ten, `<0.1%`.
pub fn share_text(share: f64) -> String {
    let percent = share * 100.0;
    if percent < 0.05 {
        "<0.1%".to_owned()
    } else if percent < 10.0 {
        format!("{percent:.1}%")
    } else {
        format!("{percent:.0}%")
    }
}

/// The mark at the end of a hot line: its share and its cost per operation (own and calls).
pub fn line_mark(line: &ProfiledLine, unit: &str) -> String {
    format!(
        "{} · {}",
        share_text(line.share),
        cost_text(line.own_per_op + line.calls_per_op, unit)
    )
}

/// `file:line`, relative to `root` when under it.
pub fn place_text(file: &str, line: u32, root: Option<&Path>) -> String {
    let path = Path::new(file);
    let shown = root
        .and_then(|root| path.strip_prefix(root).ok())
        .unwrap_or(path);
    format!("{}:{line}", shown.display())
}

/// What the profile is of and what it counts, in one line.
pub fn heading(profile: &Profile) -> String {
    format!(
        "{}: {} per operation over {} operations; {}",
        profile.id,
        total_text(profile),
        group_digits(profile.operations),
        what_it_counts(profile)
    )
}

/// The region's total per operation: `122 498 instructions`, `9.67 µs`.
pub fn total_text(profile: &Profile) -> String {
    if profile.unit == "ns" {
        format_duration_ns(profile.total_per_op)
    } else {
        format!("{} {}", cost_number(profile.total_per_op), profile.unit)
    }
}

/// What the profiler counted and how far to trust it, in words.
pub fn what_it_counts(profile: &Profile) -> String {
    match profile.tool {
        ProfileTool::Callgrind => "instructions counted by callgrind in the timed region only \
                                   (no cache misses or stalls: a count, not a time)"
            .to_owned(),
        ProfileTool::Perf => {
            let samples = profile.samples.unwrap_or(0);
            format!(
                "{} samples of CPU time taken by perf in the timed region only (sampled: a \
                 share is known to about ±{:.1} points at most)",
                group_digits(samples),
                share_noise(samples) * 100.0
            )
        }
    }
}

/// The widest 95% noise of a share estimated from `samples` samples: a share of a half,
/// ±2·√(¼/n).
pub fn share_noise(samples: u64) -> f64 {
    1.0 / (samples.max(1) as f64).sqrt()
}

/// The terminal's text: the heading, the `top` costliest functions (own cost, then with what
/// they call, and the workspace line each spends most on), then the `top` hottest lines of the
/// workspace.
pub fn profile_text(profile: &Profile, root: Option<&Path>, top: usize) -> String {
    let unit = &profile.unit;
    let mut out = format!(
        "{}\n\nfunctions (own cost; with what it calls)\n",
        heading(profile)
    );
    for f in profile.functions.iter().take(top) {
        let place = f.line.as_ref().map_or(String::new(), |l| {
            format!("  {}", place_text(&l.file, l.line, root))
        });
        out.push_str(&format!(
            "{:>6}  {:>24}  {:>24}  {}{place}\n",
            share_text(f.own_share),
            cost_text(f.own_per_op, unit),
            cost_text(f.inclusive_per_op, unit),
            f.name
        ));
    }
    if profile.functions.is_empty() {
        out.push_str("  (none)\n");
    }
    out.push_str("\nhot lines of the workspace (own code and calls made from the line)\n");
    for l in profile.lines.iter().take(top) {
        out.push_str(&format!(
            "{:>6}  {:>24}  {}\n",
            share_text(l.share),
            cost_text(l.own_per_op + l.calls_per_op, unit),
            place_text(&l.file, l.line, root)
        ));
    }
    if profile.lines.is_empty() {
        out.push_str(
            "  (none: no line of the workspace holds a two-hundredth of the region; its cost is \
             in code it calls, listed above)\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::ProfiledFunction;

    fn line(file: &str, line: u32, own: f64, calls: f64, share: f64) -> ProfiledLine {
        ProfiledLine {
            file: file.into(),
            line,
            own_per_op: own,
            calls_per_op: calls,
            share,
        }
    }

    #[test]
    fn costs_and_shares_read_as_people_count() {
        assert_eq!(cost_text(4100.4, "instructions"), "4 100 instructions/op");
        assert_eq!(cost_text(3.25, "instructions"), "3.2 instructions/op");
        assert_eq!(cost_text(0.01, "instructions"), "<0.1 instructions/op");
        assert_eq!(cost_text(f64::NAN, "instructions"), "— instructions/op");
        assert_eq!(share_text(0.312), "31%");
        assert_eq!(share_text(0.042), "4.2%");
        assert_eq!(share_text(0.0001), "<0.1%");
        let hot = line("/ws/benches/b.rs", 12, 100.0, 4000.0, 0.31);
        assert_eq!(
            line_mark(&hot, "instructions"),
            "31% · 4 100 instructions/op"
        );
        assert_eq!(
            place_text("/ws/benches/b.rs", 12, Some(Path::new("/ws"))),
            "benches/b.rs:12"
        );
        assert_eq!(
            place_text("/elsewhere/x.rs", 3, Some(Path::new("/ws"))),
            "/elsewhere/x.rs:3"
        );
    }

    #[test]
    fn the_table_names_what_it_counts_and_where_each_function_goes() {
        let profile = Profile {
            id: "b::body".into(),
            tool: ProfileTool::Callgrind,
            unit: "instructions".into(),
            operations: 2203,
            total_per_op: 288.0,
            samples: None,
            functions: vec![ProfiledFunction {
                name: "b::helper".into(),
                own_per_op: 254.0,
                own_share: 0.88,
                inclusive_per_op: 254.0,
                line: Some(line("/ws/benches/b.rs", 28, 150.0, 0.0, 0.52)),
            }],
            lines: vec![line("/ws/benches/b.rs", 28, 150.0, 0.0, 0.52)],
            tree: None,
        };
        let text = profile_text(&profile, Some(Path::new("/ws")), 10);
        assert!(
            text.starts_with(
                "b::body: 288 instructions per operation over 2 203 operations; instructions \
                 counted by callgrind in the timed region only"
            ),
            "{text}"
        );
        assert!(text.contains("88%"), "{text}");
        assert!(text.contains("b::helper  benches/b.rs:28"), "{text}");
        assert!(text.contains("52%"), "{text}");
    }

    #[test]
    fn a_sampled_profile_reads_as_time_and_says_how_many_samples() {
        let profile = Profile {
            id: "b::body".into(),
            tool: ProfileTool::Perf,
            unit: "ns".into(),
            operations: 22_881,
            total_per_op: 9_670.2,
            samples: Some(4_000),
            functions: Vec::new(),
            lines: vec![line("/ws/benches/b.rs", 28, 0.0, 9_528.0, 0.99)],
            tree: None,
        };
        let text = profile_text(&profile, Some(Path::new("/ws")), 10);
        assert!(
            text.starts_with(
                "b::body: 9.67 µs per operation over 22 881 operations; 4 000 samples of CPU \
                 time taken by perf in the timed region only (sampled: a share is known to \
                 about ±1.6 points at most)"
            ),
            "{text}"
        );
        assert!(text.contains("9.53 µs/op  benches/b.rs:28"), "{text}");
        assert_eq!(line_mark(&profile.lines[0], "ns"), "99% · 9.53 µs/op");
    }
}
