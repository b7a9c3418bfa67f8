//! Which benchmarks a save edited, so that run-on-save measures them first: a benchmark is
//! edited when its code (its tokens: not its comments or layout) differs from what it was at
//! the last run-on-save of its file, or when its file was first discovered. A benchmark added
//! to a file already known is edited too; a file seen for the first time has none.
//!
//! Run-on-save runs a file's edited benchmarks in a bench binary process of their own before
//! the rest (`session::runs`): their results come after their own budget, not after every case
//! of the file (the rounds interleave a run's cases, so each finishes near the run's end).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::discovery::Bench;

/// The code each benchmark had when it last ran on save (or when its file was discovered).
#[derive(Debug, Default)]
pub(super) struct EditedCode {
    /// Files whose benchmarks' code is known.
    known_files: HashSet<PathBuf>,
    /// Benchmark id → its fingerprint then.
    code: HashMap<String, u64>,
}

impl EditedCode {
    /// Takes the code of the benchmarks of every file seen for the first time among `benches`
    /// (the whole tree, after discovery changed it).
    pub(super) fn discovered<'b>(&mut self, benches: impl IntoIterator<Item = &'b Bench>) {
        let mut new_files: HashSet<&PathBuf> = HashSet::new();
        for bench in benches {
            if self.known_files.contains(&bench.file) {
                continue;
            }
            new_files.insert(&bench.file);
            if let Some(code) = bench.fingerprint {
                self.code.insert(bench.id.clone(), code);
            }
        }
        self.known_files.extend(new_files.into_iter().cloned());
    }

    /// The benchmarks among `benches` whose code changed since it was taken, and takes their
    /// code now (they are about to run).
    pub(super) fn take_edited<'b>(&mut self, benches: &[&'b Bench]) -> Vec<&'b Bench> {
        let mut edited = Vec::new();
        for bench in benches {
            let Some(code) = bench.fingerprint else {
                continue;
            };
            if self.code.insert(bench.id.clone(), code) != Some(code) {
                edited.push(*bench);
            }
            self.known_files.insert(bench.file.clone());
        }
        edited
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::TargetRef;
    use knotmeter_protocol::editor::{Position, Range};

    const NOWHERE: Range = Range {
        start: Position {
            line: 0,
            character: 0,
        },
        end: Position {
            line: 0,
            character: 0,
        },
    };

    fn bench(id: &str, file: &str, code: u64) -> Bench {
        Bench {
            id: id.to_owned(),
            name: id.to_owned(),
            target: TargetRef {
                package: "p".into(),
                target: "t".into(),
            },
            file: PathBuf::from(file),
            range: NOWHERE,
            name_range: NOWHERE,
            header_range: NOWHERE,
            cases: Vec::new(),
            group: None,
            line: 1,
            fingerprint: Some(code),
        }
    }

    fn ids(benches: Vec<&Bench>) -> Vec<&str> {
        benches.into_iter().map(|b| b.id.as_str()).collect()
    }

    #[test]
    fn a_changed_or_added_benchmark_is_edited_once_and_a_new_file_has_none() {
        let mut code = EditedCode::default();
        let (a, b) = (bench("a", "f.rs", 1), bench("b", "f.rs", 2));
        // Discovered: nothing edited yet.
        code.discovered([&a, &b]);
        assert!(code.take_edited(&[&a, &b]).is_empty());
        // `a`'s code changed, and `c` was added to the known file.
        let (a2, c) = (bench("a", "f.rs", 10), bench("c", "f.rs", 3));
        code.discovered([&a2, &b, &c]);
        assert_eq!(ids(code.take_edited(&[&a2, &b, &c])), ["a", "c"]);
        // Saved again unchanged: nothing is edited.
        assert!(code.take_edited(&[&a2, &b, &c]).is_empty());
        // A file first seen: its benchmarks are its code as found, none edited.
        let d = bench("d", "g.rs", 4);
        code.discovered([&a2, &b, &c, &d]);
        assert!(code.take_edited(&[&d]).is_empty());
    }

    #[test]
    fn a_benchmark_known_only_from_a_listing_is_never_edited() {
        let mut code = EditedCode::default();
        let mut listed = bench("l", "f.rs", 0);
        listed.fingerprint = None;
        code.discovered([&listed]);
        assert!(code.take_edited(&[&listed]).is_empty());
    }
}
