//! `--format json`: one pretty-printed [`knotmeter_protocol::Report`] written when the run
//! finishes.
//!
//! The run is collected by [`super::collect::AtEnd`]: results as `case_finished` delivers them,
//! their `comparison` filled in by `case_compared`, and `benches` from `bench_finished`.

use std::io::{self, Write};

use super::collect::{Collected, Finish};

/// Writes the collected run as one document (see [`super::collect::AtEnd`]).
pub(crate) struct Json {
    /// Where the document goes.
    out: Box<dyn Write + Send>,
}

impl Json {
    /// A format writing its document to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self { out }
    }
}

impl Finish for Json {
    fn finish(&mut self, run: Collected) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, &run.report)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::collect::AtEnd;
    use super::super::{fixtures, Format, Reporter};
    use super::*;
    use knotmeter_protocol::{Report, VERSION};

    #[test]
    fn writes_one_report_with_every_result_and_failure() {
        let text = fixtures::run(Format::Json, false);
        let report: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(
            report,
            Report {
                version: VERSION,
                manifest: fixtures::manifest(),
                results: fixtures::compared_results(),
                failures: vec![fixtures::failure("q::boom")],
                benches: fixtures::summaries(),
                probe: None,
            }
        );
        assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    }

    #[test]
    fn comparisons_patch_their_result_and_analyses_land_in_benches() {
        let text = fixtures::run(Format::Json, false);
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let results = report["results"].as_array().unwrap();
        assert!(results[2]["comparison"].is_null());
        assert_eq!(results[3]["comparison"]["against"], "q::sort_std");
        assert_eq!(results[3]["comparison"]["verdict"], "slower");
        assert_eq!(results[0]["comparison"]["verdict"], "faster");
        assert_eq!(
            report["benches"][0]["complexity"]["runner_up"],
            "O(n log n)"
        );
        assert!(report["benches"][0]["complexity"]["fits"][2]["aicc"].is_null());
    }

    #[test]
    fn a_comparison_for_an_unknown_case_is_ignored() {
        let buf = fixtures::SharedBuf::default();
        let mut reporter = AtEnd::new(Json::new(Box::new(buf.clone())));
        reporter.run_started(&fixtures::manifest(), &[]).unwrap();
        reporter.case_finished(&fixtures::results()[0]).unwrap();
        let (_, comparison) = &fixtures::comparisons()[0];
        reporter.case_compared("q::nope", comparison).unwrap();
        reporter.run_finished(&fixtures::summary()).unwrap();
        let report: Report = serde_json::from_str(&buf.text()).unwrap();
        assert_eq!(report.results, vec![fixtures::results()[0].clone()]);
        assert!(report.benches.is_empty());
    }

    #[test]
    fn writes_nothing_before_the_run_finishes() {
        let buf = fixtures::SharedBuf::default();
        let mut reporter = AtEnd::new(Json::new(Box::new(buf.clone())));
        reporter.run_started(&fixtures::manifest(), &[]).unwrap();
        reporter.case_finished(&fixtures::results()[0]).unwrap();
        assert_eq!(buf.text(), "");
    }

    #[test]
    fn finishing_without_a_start_is_an_error() {
        let mut reporter = AtEnd::new(Json::new(Box::new(fixtures::SharedBuf::default())));
        assert!(reporter.run_finished(&fixtures::summary()).is_err());
    }
}
