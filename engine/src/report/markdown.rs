//! `--format markdown`: a GitHub-flavoured summary to paste into a pull request, written
//! when the run finishes. The document is `knotmeter_format::markdown`'s, shared with
//! `knotmeter run --format markdown`: the manifest line, run warnings as quotes, a table row
//! per measured case (its figure, the spread between runs, this run's interval, the verdict
//! against what it was compared with), each benchmark's complexity and notes, the warnings,
//! the cases without a result, and the totals.

use std::io::{self, Write};

use knotmeter_format::markdown::{document, Run};

use super::collect::{Collected, Finish};

/// Writes the collected run (see [`super::collect::AtEnd`]) as one Markdown document.
pub(crate) struct Markdown {
    /// Where the document goes.
    out: Box<dyn Write + Send>,
}

impl Markdown {
    /// A reporter writing its document to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self { out }
    }
}

impl Finish for Markdown {
    fn finish(&mut self, run: Collected) -> io::Result<()> {
        let rows = run.rows();
        let text = document(&Run {
            manifest: &run.report.manifest,
            rows: &rows,
            benches: &run.report.benches,
            wall_ns: run.summary.wall_ns,
            cancelled: run.summary.cancelled,
        });
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::collect::AtEnd;
    use super::super::{fixtures, Format, Reporter};
    use super::*;

    /// The sample run as a pull-request comment.
    const EXPECTED: &str = "\
knotmeter 0.1.0 · rustc 1.95.0 · release (opt-level 3) · x86_64-unknown-linux-gnu · Test \
CPU @ 3.0GHz × 8 cores · timer instant (precision 20.0 ns, read 19.0 ns) · git 0123456789

> **Warning** `debug_build`: the bench target was built without optimisations: run `cargo bench`

| benchmark | estimate | ± | 95% interval | ops/s | samples | allocations | change | verdict |
| :-- | --: | --: | --: | --: | --: | --: | :-- | :-- |
| `chain_n/1000` | 12.2 ns | ±0.4% | 12.2 ns – 12.3 ns | 81 632 653 | 1 200 × 4 096 | — | \
0.81× [0.75, 0.88] | 18.8% faster than run 12 |
| ⚠ `pair/(1,\"x\\|y\")` | ≈ 0 (indistinguishable from empty) | — | — | — | 1 200 × 4 096 | \
3 allocs/op (96 B) | 1.00× [0.97, 1.03] | same as run 12 |
| `sort_std` | 1.23 µs | ±? | 1.22 µs – 1.24 µs | 815 661 | 1 200 × 4 096 | — | baseline | — |
| ⚠ `sort_radix` | 1.27 µs | ±0.4% | 1.26 µs – 1.28 µs | 788 644 | 1 200 × 4 096 | — | \
1.03× [1.01, 1.05] | 3.4% slower than sort_std |

**Scaling**

- `chain_n`: O(n) or O(n log n) (cannot be told apart)
  - ℹ `sublinear_scaling`: the cost grows as n^0.42 between n = 10 and n = 1000

**Warnings**

- `pair/(1,\"x|y\")` ⚠ `optimized_away`: the body cannot be told apart from an empty one | \
return the result
- `sort_radix` ⚠ `high_noise`: the middle half of the samples spans 25% of the median | \
close other programs

**Not measured**

- `boom` (failed): panicked at src/lib.rs:3:5: boom, with a comma

**2 passed, 2 warned, 1 failed in 8.40 s**
";

    #[test]
    fn prints_the_sample_run() {
        let text = fixtures::run(Format::Markdown, false);
        assert_eq!(text, EXPECTED, "\n{text}");
    }

    #[test]
    fn writes_nothing_until_the_run_finishes_and_drops_empty_sections() {
        let buf = fixtures::SharedBuf::default();
        let mut markdown = AtEnd::new(Markdown::new(Box::new(buf.clone())));
        markdown.run_started(&fixtures::manifest(), &[]).unwrap();
        let mut result = fixtures::results()[0].clone();
        result.estimate.median_ns = 0.0;
        markdown.case_finished(&result).unwrap();
        assert_eq!(buf.text(), "");
        markdown.run_finished(&fixtures::summary()).unwrap();
        let text = buf.text();
        assert!(!text.contains("allocations"));
        assert!(!text.contains("**Not measured**"));
        assert!(!text.contains("**Scaling**"));
        assert!(
            text.contains("| `chain_n/1000` | 0 ns | ±0.4% | 12.2 ns – 12.3 ns | — |"),
            "{text}"
        );
    }

    #[test]
    fn info_notes_in_the_manifest_are_not_warnings() {
        let buf = fixtures::SharedBuf::default();
        let mut markdown = AtEnd::new(Markdown::new(Box::new(buf.clone())));
        let mut manifest = fixtures::manifest();
        manifest.warnings = vec![knotmeter_protocol::Warning::info("tsc", "timer is the TSC")];
        markdown.run_started(&manifest, &[]).unwrap();
        markdown.run_finished(&fixtures::summary()).unwrap();
        assert!(buf
            .text()
            .contains("\n\n> **Note** `tsc`: timer is the TSC\n\n"));
    }
}
