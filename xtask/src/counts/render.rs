//! The markdown of `cargo xtask counts`'s section.

use std::fmt::Write as _;

use knotmeter_protocol::Verdict;

use super::{CountsRun, Suite};
pub(super) use crate::docs::Sitting;

/// A count per operation, grouped: `5 515`, or with one decimal when it has a fraction.
pub(super) fn count(value: f64) -> String {
    if value.fract() != 0.0 || value.abs() >= 1e15 {
        return format!("{value:.1}");
    }
    let digits = (value as i64).to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// How many of `runs` gave `verdict` at `pick`, as `10 of 10`.
fn tally(
    runs: &[CountsRun],
    pick: impl Fn(&CountsRun) -> (Verdict, f64),
    verdict: Verdict,
) -> String {
    let n = runs.iter().filter(|r| pick(r).0 == verdict).count();
    format!("{n} of {}", runs.len())
}

/// The smallest and largest of `values`, as `a – b` (one value when they are equal, `—` when
/// there is none).
pub(super) fn range(values: impl Iterator<Item = f64>, show: impl Fn(f64) -> String) -> String {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !low.is_finite() {
        "—".to_owned()
    } else if low == high {
        show(low)
    } else {
        format!("{} – {}", show(low), show(high))
    }
}

/// The section between its markers (without them).
pub(super) fn section(
    sitting: &Sitting,
    runs: &[CountsRun],
    quickstart: &[Suite],
    criterion: &Suite,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}, with Debian's valgrind. {} fresh runs of `examples/counts`'s bench binary with \
         `--measure instructions --no-history`, one core kept busy by a spinning shell the \
         whole time.\n",
        sitting.measured_with(&format!("cargo xtask counts --runs {}", sitting.runs)),
        sitting.runs,
    );
    let distinct = {
        let mut counts: Vec<f64> = runs.iter().map(|r| r.chain.0).collect();
        counts.sort_by(f64::total_cmp);
        counts.dedup();
        counts.len()
    };
    let exact = runs.iter().filter(|r| r.chain.1 == r.chain.2).count();
    let ratio = |pick: fn(&CountsRun) -> (Verdict, f64)| {
        range(runs.iter().map(|r| pick(r).1), |v| format!("{v:.4}"))
    };
    let _ = writeln!(s, "| what | asked for | measured |");
    let _ = writeln!(s, "|---|---|---|");
    let _ = writeln!(
        s,
        "| seed 001's `chain(1000)`, instructions per operation | the same count in every run | \
         {} in {} runs ({} distinct value{}; exact, every repetition equal, in {} of {}) |",
        range(runs.iter().map(|r| r.chain.0), count),
        runs.len(),
        distinct,
        if distinct == 1 { "" } else { "s" },
        exact,
        runs.len(),
    );
    let _ = writeln!(
        s,
        "| the same code at two addresses (`there` against `here`) | `same` in every run | `same` \
         in {} (ratio {}) |",
        tally(runs, |r| r.address, Verdict::Same),
        ratio(|r| r.address),
    );
    let _ = writeln!(
        s,
        "| `chain(2020)` against `chain(2000)`: 1% more work | `slower` in every run | `slower` in \
         {} (ratio {}) |",
        tally(runs, |r| r.work, Verdict::Slower),
        ratio(|r| r.work),
    );
    let _ = writeln!(
        s,
        "| a whole run of `examples/counts` ({} cases) | — | {} s; its slowest case {} s |",
        runs.first().map_or(0, |r| r.cases),
        range(runs.iter().map(|r| r.seconds), |v| format!("{v:.2}")),
        range(runs.iter().map(|r| r.slowest_case), |v| format!("{v:.2}")),
    );
    let cases = quickstart.first().map_or(0, |q| q.cases);
    let _ =
        writeln!(
        s,
        "| the quickstart's whole bench binary counted ({cases} cases, bodies up to 10 µs), {} \
         runs | under 30 s; at most 2 s a case | {} s; its slowest case {} s; exact: {} of \
         {cases} |",
        quickstart.len(),
        range(quickstart.iter().map(|q| q.seconds), |v| format!("{v:.2}")),
        range(quickstart.iter().map(|q| q.slowest_case), |v| format!("{v:.2}")),
        range(quickstart.iter().map(|q| q.exact as f64), |v| format!("{v:.0}")),
    );
    let _ = writeln!(
        s,
        "| the criterion suite of `compat/criterion-fixture` (knotmeter-criterion) | it runs | {} \
         cases, {} failed, {} exact, in {:.2} s; its slowest case {:.2} s |",
        criterion.cases,
        criterion.failed,
        criterion.exact,
        criterion.seconds,
        criterion.slowest_case,
    );
    s
}
