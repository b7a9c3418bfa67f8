//! The figures, computed from what was measured, and the section of `docs/comparison.md` that
//! shows them: a table per group of figures, then the findings (every row where knotmeter is not
//! the best).

use std::fmt::Write as _;

use super::harness::{Harness, SingleReport, Verdict, CASES, HARNESSES};
use super::process::Outcome;
use super::Measured;
use crate::stats::median;

const SECTION_BEGIN: &str = "<!-- xtask compare: begin -->";
const SECTION_END: &str = "<!-- xtask compare: end -->";
/// The markers of the section this command owns in docs/comparison.md.
pub(crate) const SECTION_MARKERS: (&str, &str) = (SECTION_BEGIN, SECTION_END);

/// Which way a row is better.
#[derive(Clone, Copy)]
enum Better {
    /// Smaller absolute value.
    Lower,
    Higher,
}

/// One cell: the number that ranks it (`None`: nothing to rank) and its text.
struct Cell {
    value: Option<f64>,
    text: String,
}

impl Cell {
    fn ranked(value: f64, text: String) -> Cell {
        Cell {
            value: Some(value),
            text,
        }
    }
    fn text(text: impl Into<String>) -> Cell {
        Cell {
            value: None,
            text: text.into(),
        }
    }
}

struct Row {
    figure: String,
    better: Better,
    cells: Vec<Cell>,
}

/// The section, between its markers.
pub(crate) fn render(m: &Measured) -> String {
    let mut s = String::new();
    let machine = &m.machine;
    let _ = writeln!(s, "{SECTION_BEGIN}");
    let _ = writeln!(s, "## Results\n");
    let versions: Vec<String> = std::iter::once(format!("knotmeter {}", env!("CARGO_PKG_VERSION")))
        .chain(machine.versions.iter().map(|(n, v)| format!("{n} {v}")))
        .collect();
    let _ = writeln!(
        s,
        "Measured by `cargo xtask compare --rounds {} --comparisons {}` on {} (UTC), {} × {} \
         cores, {}, git {}. Harnesses: {}. Load average (1, 5, 15 min) {} at the start and {} at \
         the end; the whole command took {:.1} min.\n",
        m.rounds,
        m.comparisons,
        machine.date,
        machine.cpu,
        machine.cores,
        machine.rustc,
        machine.git,
        versions.join(", "),
        machine.load_start,
        machine.load_end,
        machine.total_s / 60.0
    );
    // The least disturbed of all reference runs, per line.
    let reference = |key: &str| {
        m.reference
            .iter()
            .filter_map(|r| r.get(key).copied())
            .fold(f64::INFINITY, f64::min)
    };
    let groups = [
        ("Does it notice when nothing is measured?", validity_rows(m)),
        (
            "Is the number right, and the same next time?",
            accuracy_rows(m, &reference),
        ),
        ("Does its comparison tell the truth?", comparison_rows(m)),
        ("What does an answer cost?", cost_rows(m)),
    ];
    let mut findings = Vec::new();
    for (title, rows) in &groups {
        let _ = writeln!(s, "### {title}\n");
        let _ = writeln!(
            s,
            "| figure | {} |",
            HARNESSES.map(|h| h.name()).join(" | ")
        );
        let _ = writeln!(s, "|---|{}", "---|".repeat(HARNESSES.len()));
        for row in rows {
            let best = best_of(row);
            let cells: Vec<String> = row
                .cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if best.contains(&i) && ranked_count(row) > 1 {
                        format!("**{}**", c.text)
                    } else {
                        c.text.clone()
                    }
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", row.figure, cells.join(" | "));
            if let Some(finding) = finding(row, &best) {
                findings.push(finding);
            }
        }
        let _ = writeln!(s);
    }
    let spreads: Vec<String> = ["loop 100", "loop 1000", "loop 10000", "single"]
        .iter()
        .map(|key| {
            let values: Vec<f64> = m
                .reference
                .iter()
                .filter_map(|r| r.get(*key).copied())
                .collect();
            format!(
                "{key}: {:.4} ns per step (spread over runs {:.1}%)",
                reference(key),
                spread(&values) * 100.0
            )
        })
        .collect();
    let _ = writeln!(
        s,
        "Bold marks the best of the harnesses that have the feature. The harness-free reference \
         ({} runs; the least disturbed of each): {}.\n",
        m.reference.len(),
        spreads.join("; ")
    );
    let _ = writeln!(s, "### Findings: rows where knotmeter is not the best\n");
    if findings.is_empty() {
        let _ = writeln!(
            s,
            "None: knotmeter is at least as good as the best of the three on every row."
        );
    }
    for f in &findings {
        let _ = writeln!(s, "- {f}");
    }
    let _ = writeln!(s, "\n### The invocations\n");
    for harness in HARNESSES {
        for (kind, quick) in [("default", false), ("quick", true)] {
            let command = m
                .commands
                .iter()
                .find(|(h, k, _)| *h == harness && *k == kind)
                .map_or(String::new(), |(_, _, c)| {
                    format!(": `{}`", c.replace('|', "\\|"))
                });
            let _ = writeln!(
                s,
                "- {} {kind}, {}{command}",
                harness.name(),
                harness.settings(quick)
            );
        }
        if let Some((_, _, c)) = m
            .commands
            .iter()
            .find(|(h, k, _)| *h == harness && *k == "comparison")
        {
            let _ = writeln!(
                s,
                "- {} comparison: `{}`",
                harness.name(),
                c.replace('|', "\\|")
            );
        }
    }
    let _ = writeln!(s, "{SECTION_END}");
    s
}

fn validity_rows(m: &Measured) -> Vec<Row> {
    let mut rows = Vec::new();
    for (case, label) in [
        ("empty", "empty body: reported estimate, flagged"),
        (
            "discarded_loop_1000",
            "discarded-result loop: reported estimate, flagged",
        ),
    ] {
        let cells = HARNESSES
            .map(|h| {
                let Some(runs) = m.single.get(&h) else {
                    return Cell::text("not run");
                };
                let ns: Vec<f64> = runs.iter().map(|(r, _)| r.estimates[case].ns).collect();
                let flags: Vec<bool> = runs
                    .iter()
                    .filter_map(|(r, _)| r.estimates[case].flagged)
                    .collect();
                let estimate = format!("{:.3} ns", median(&ns));
                if flags.len() < runs.len() {
                    Cell::text(format!("{estimate}; no such check"))
                } else {
                    let flagged = flags.iter().filter(|f| **f).count();
                    Cell::ranked(
                        flagged as f64 / runs.len() as f64,
                        format!("{estimate}; flagged {flagged}/{}", runs.len()),
                    )
                }
            })
            .into();
        rows.push(Row {
            figure: label.to_owned(),
            better: Better::Higher,
            cells,
        });
    }
    rows
}

fn accuracy_rows(m: &Measured, reference: &dyn Fn(&str) -> f64) -> Vec<Row> {
    let mut rows = Vec::new();
    for n in [100.0, 1_000.0, 10_000.0] {
        let case = format!("chain_n/{n}");
        let reference = reference(&format!("loop {n}"));
        let cells = HARNESSES
            .map(|h| {
                let Some(runs) = m.single.get(&h) else {
                    return Cell::text("not run");
                };
                let deviation = median(
                    &runs
                        .iter()
                        .map(|(r, _)| r.estimates[&case].ns / n / reference - 1.0)
                        .collect::<Vec<_>>(),
                );
                let text = format!("{:+.2}%", deviation * 100.0);
                match display_step(runs, &case) {
                    // Half a printed step above 0.5% of the figure: too coarse to rank.
                    Some(step) if step / 2.0 > 0.005 => {
                        Cell::text(format!("{text} (printed to ±{:.1}%)", step / 2.0 * 100.0))
                    }
                    _ => Cell::ranked(deviation, text),
                }
            })
            .into();
        rows.push(Row {
            figure: format!("`chain({n})`: deviation from the harness-free loop"),
            better: Better::Lower,
            cells,
        });
    }
    for case in ["chain_n/1000", "sort_1000"] {
        let cells = HARNESSES
            .map(|h| {
                let Some(runs) = m.single.get(&h) else {
                    return Cell::text("not run");
                };
                let medians: Vec<f64> = runs.iter().map(|(r, _)| r.estimates[case].ns).collect();
                let sp = spread(&medians);
                match display_step(runs, case) {
                    Some(step) if sp <= step * 1.01 => Cell::text(format!(
                        "{:.2}%: within one printed step ({:.1}%)",
                        sp * 100.0,
                        step * 100.0
                    )),
                    _ => Cell::ranked(sp, format!("{:.2}%", sp * 100.0)),
                }
            })
            .into();
        rows.push(Row {
            figure: format!(
                "run-to-run spread of the estimate, `{}` ({} runs)",
                case.replace("chain_n/", "chain("),
                m.rounds
            )
            .replace("chain(1000`", "chain(1000)`"),
            better: Better::Lower,
            cells,
        });
    }
    rows
}

/// The printed step of a case's figure relative to its median, where the harness prints coarsely.
fn display_step(runs: &[(SingleReport, Outcome)], case: &str) -> Option<f64> {
    let steps: Vec<f64> = runs
        .iter()
        .filter_map(|(r, _)| r.estimates[case].step_ns)
        .collect();
    let values: Vec<f64> = runs.iter().map(|(r, _)| r.estimates[case].ns).collect();
    (!steps.is_empty()).then(|| steps.iter().copied().fold(0.0, f64::max) / median(&values))
}

fn comparison_rows(m: &Measured) -> Vec<Row> {
    let mut rows = Vec::new();
    for (pair, label, better) in [
        (
            "aa",
            "A/A pair: false-positive rate of its own comparison",
            Better::Lower,
        ),
        ("ab1", "1% more work: detection rate", Better::Higher),
        ("ab5", "5% more work: detection rate", Better::Higher),
    ] {
        let cells = HARNESSES
            .map(|h| {
                let Some(verdicts) = m.verdicts.get(&h) else {
                    return Cell::text("no comparison feature");
                };
                let of_pair: Vec<_> = verdicts.iter().filter(|(p, _, _)| *p == pair).collect();
                let hits = if pair == "aa" {
                    of_pair
                        .iter()
                        .filter(|(_, v, _)| *v != Verdict::Same)
                        .count()
                } else {
                    of_pair.iter().filter(|(_, v, want)| v == want).count()
                };
                let rate = hits as f64 / of_pair.len().max(1) as f64;
                Cell::ranked(
                    rate,
                    format!("{hits}/{} ({:.0}%)", of_pair.len(), rate * 100.0),
                )
            })
            .into();
        rows.push(Row {
            figure: label.to_owned(),
            better,
            cells,
        });
    }
    let cells = HARNESSES
        .map(|h| {
            let Some(runs) = m.single.get(&h) else {
                return Cell::text("not run");
            };
            let verdicts: Vec<Verdict> = runs
                .iter()
                .flat_map(|(r, _)| r.before_after.iter().copied())
                .collect();
            if verdicts.is_empty() {
                return Cell::text("no before/after comparison");
            }
            let changed = verdicts.iter().filter(|v| **v != Verdict::Same).count();
            let rate = changed as f64 / verdicts.len() as f64;
            Cell::ranked(
                rate,
                format!("{changed}/{} ({:.0}%)", verdicts.len(), rate * 100.0),
            )
        })
        .into();
    rows.push(Row {
        figure: "unchanged code against its previous run: share called faster or slower".into(),
        better: Better::Lower,
        cells,
    });
    rows
}

fn cost_rows(m: &Measured) -> Vec<Row> {
    let cases = CASES.len() as f64;
    let per_case = |h: Harness, quick: bool| -> Option<f64> {
        let runs = if quick {
            m.quick.get(&h).or_else(|| m.single.get(&h))
        } else {
            m.single.get(&h)
        }?;
        Some(median(
            &runs
                .iter()
                .map(|(_, o)| o.wall_s / cases)
                .collect::<Vec<_>>(),
        ))
    };
    let mut rows = Vec::new();
    for quick in [false, true] {
        let km = per_case(Harness::Knotmeter, quick);
        let cells = HARNESSES
            .map(|h| match per_case(h, quick) {
                Some(s) => {
                    let same = if quick && !m.quick.contains_key(&h) {
                        " (= default)"
                    } else {
                        ""
                    };
                    let ratio = km.map_or(String::new(), |k| format!(", ×{:.2}", s / k));
                    Cell::ranked(s, format!("{}{ratio}{same}", seconds(s)))
                }
                None => Cell::text("not run"),
            })
            .into();
        rows.push(Row {
            figure: format!(
                "wall time per case, {} settings (× knotmeter's)",
                if quick {
                    "quickest reasonable"
                } else {
                    "default"
                }
            ),
            better: Better::Lower,
            cells,
        });
    }
    let cells = HARNESSES
        .map(|h| {
            let Some(runs) = m.single.get(&h) else {
                return Cell::text("not run");
            };
            let firsts: Vec<f64> = runs.iter().filter_map(|(_, o)| o.first_result_s).collect();
            if firsts.is_empty() {
                return Cell::text("no result line seen");
            }
            let s = median(&firsts);
            Cell::ranked(s, seconds(s))
        })
        .into();
    rows.push(Row {
        figure: "time to the first result, default settings".into(),
        better: Better::Lower,
        cells,
    });
    let cells = HARNESSES
        .map(|h| {
            let Some(runs) = m.comparison_runs.get(&h) else {
                return Cell::text("no comparison feature");
            };
            let per: Vec<f64> = runs
                .iter()
                .filter(|(_, verdicts)| *verdicts > 0)
                .map(|(o, verdicts)| o.wall_s / *verdicts as f64)
                .collect();
            let s = median(&per);
            Cell::ranked(s, seconds(s))
        })
        .into();
    rows.push(Row {
        figure: "wall time per comparison verdict, default settings".into(),
        better: Better::Lower,
        cells,
    });
    let cells = HARNESSES
        .map(|h| {
            let single = m
                .single
                .get(&h)
                .map(|runs| runs.iter().map(|(_, o)| o.max_rss_kib).max().unwrap_or(0));
            let compare = m
                .comparison_runs
                .get(&h)
                .map(|runs| runs.iter().map(|(o, _)| o.max_rss_kib).max().unwrap_or(0));
            let peak = single.into_iter().chain(compare).max().unwrap_or(0);
            let mib = peak as f64 / 1024.0;
            Cell::ranked(mib, format!("{mib:.1} MiB"))
        })
        .into();
    rows.push(Row {
        figure: "peak memory (largest process, any run)".into(),
        better: Better::Lower,
        cells,
    });
    rows
}

fn ranked_count(row: &Row) -> usize {
    row.cells.iter().filter(|c| c.value.is_some()).count()
}

/// Indexes of the best cells of a row.
fn best_of(row: &Row) -> Vec<usize> {
    let key = |v: f64| match row.better {
        Better::Lower => v.abs(),
        Better::Higher => -v,
    };
    let best = row
        .cells
        .iter()
        .filter_map(|c| c.value.map(key))
        .fold(f64::INFINITY, f64::min);
    row.cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.value.map(key) == Some(best))
        .map(|(i, _)| i)
        .collect()
}

/// A finding when knotmeter (the first column) has a figure and is not among the best.
fn finding(row: &Row, best: &[usize]) -> Option<String> {
    let knotmeter = &row.cells[0];
    knotmeter.value?;
    if best.contains(&0) {
        return None;
    }
    let winners: Vec<String> = best
        .iter()
        .map(|&i| format!("{} {}", HARNESSES[i].name(), row.cells[i].text))
        .collect();
    Some(format!(
        "**{}**: knotmeter {}; best: {}.",
        row.figure,
        knotmeter.text,
        winners.join(", ")
    ))
}

fn seconds(s: f64) -> String {
    if s < 0.1 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// (max − min) / mean.
fn spread(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    (max - min) / mean
}
