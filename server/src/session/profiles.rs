//! Profiles as the session keeps and shows them: the last profile of each case (from a profile
//! run, or the newest stored one when the daemon starts), its hot lines marked as every surface
//! marks them (knotmeter-format's `line_mark`), sent to the client as `knotmeter/profiled`,
//! and, for a client that does not draw them itself (the feature `profiles`), as inlay hints at
//! the end of each hot line and information diagnostics.
//!
//! A file's marks are of one profile: the newest that has a hot line in it, so two profiles
//! that reach the same helper never put two marks on one line.

use std::collections::HashMap;
use std::path::Path;

use knotmeter_format::profile::{heading, line_mark, share_text};

use super::out::Out;
use super::Session;
use knotmeter_protocol::editor::{HotLine, ProfiledParams};
use knotmeter_protocol::Profile;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticSeverity, InlayHint, InlayHintLabel, InlayHintTooltip, NumberOrString,
    Position, Range,
};

/// The most hot lines of one profile an editor marks: the costliest first.
pub const MARKED_LINES: usize = 20;

/// The diagnostics' source, and the code a client can filter them by.
const SOURCE: &str = "knotmeter profile";

/// The last profile of each case, with the order they arrived in.
#[derive(Debug, Default)]
pub struct Profiles {
    by_case: HashMap<String, Kept>,
    next: u64,
}

#[derive(Debug)]
struct Kept {
    params: ProfiledParams,
    order: u64,
}

impl Profiles {
    /// Keeps `params` as its case's profile; returns the files whose marks may change (the
    /// files of this profile's hot lines and of the one it replaces).
    pub fn keep(&mut self, params: ProfiledParams) -> Vec<String> {
        let mut files: Vec<String> = params.marks.iter().map(|m| m.file.clone()).collect();
        self.next += 1;
        let id = params.profile.id.clone();
        if let Some(old) = self.by_case.insert(
            id,
            Kept {
                params,
                order: self.next,
            },
        ) {
            files.extend(old.params.marks.into_iter().map(|m| m.file));
        }
        files.sort();
        files.dedup();
        files
    }

    /// The marks in `file`: those of the newest profile with a hot line there.
    pub fn marks_in(&self, file: &Path) -> Vec<&HotLine> {
        let in_file = |m: &&HotLine| Path::new(&m.file) == file;
        self.by_case
            .values()
            .filter(|k| k.params.marks.iter().any(|m| in_file(&m)))
            .max_by_key(|k| k.order)
            .map(|k| k.params.marks.iter().filter(in_file).collect())
            .unwrap_or_default()
    }
}

impl Session {
    /// A profile arrived (a profile run's, or the newest stored one of its case): kept, sent
    /// as `knotmeter/profiled`, and the marks of the files it touches shown again.
    pub(super) fn profiled(
        &mut self,
        run_id: Option<u32>,
        stored_at: Option<i64>,
        profile: Profile,
    ) {
        let params = profiled(run_id, stored_at, profile);
        self.out.push(Out::Profiled(Box::new(params.clone())));
        let files = self.profiles.keep(params);
        if self.caps.features.profiles == Some(true) {
            return;
        }
        for file in files {
            self.publish(Path::new(&file));
        }
        if self.caps.inlay_hint_refresh {
            self.out.push(Out::Refresh {
                lenses: false,
                hints: true,
            });
        }
    }

    /// `file`'s marks made by `make` (inlay hints or diagnostics), for a client that does not
    /// draw profiles itself; the file is read for where its lines end.
    pub(super) fn profile_marks<T>(
        &self,
        file: &Path,
        make: fn(&Profiles, &Path, &str) -> Vec<T>,
    ) -> Vec<T> {
        if self.caps.features.profiles == Some(true) || self.profiles.marks_in(file).is_empty() {
            return Vec::new();
        }
        match std::fs::read_to_string(file) {
            Ok(text) => make(&self.profiles, file, &text),
            Err(e) => {
                tracing::debug!("{} cannot be read for its hot lines: {e}", file.display());
                Vec::new()
            }
        }
    }
}

/// What `knotmeter/profiled` says of `profile`: its hot lines marked.
pub fn profiled(run_id: Option<u32>, stored_at: Option<i64>, profile: Profile) -> ProfiledParams {
    let about = heading(&profile);
    let marks = profile
        .lines
        .iter()
        .take(MARKED_LINES)
        .map(|line| HotLine {
            file: line.file.clone(),
            line: line.line.saturating_sub(1),
            share: line.share,
            text: line_mark(line, &profile.unit),
            detail: format!("{} of {about}", share_text(line.share)),
        })
        .collect();
    ProfiledParams {
        run_id,
        stored_at,
        profile,
        marks,
    }
}

/// The marks of `file` as inlay hints at the end of their lines (`text`, the file's text, says
/// where each line ends; a line past its end is left out).
pub fn inlay_hints(profiles: &Profiles, file: &Path, text: &str) -> Vec<InlayHint> {
    profiles
        .marks_in(file)
        .into_iter()
        .filter_map(|mark| {
            let end = line_end(text, mark.line)?;
            Some(InlayHint {
                position: end,
                label: InlayHintLabel::String(format!("◔ {}", mark.text)),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::String(mark.detail.clone())),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
        })
        .collect()
}

/// The marks of `file` as information diagnostics over their lines.
pub fn diagnostics(profiles: &Profiles, file: &Path, text: &str) -> Vec<Diagnostic> {
    profiles
        .marks_in(file)
        .into_iter()
        .filter_map(|mark| {
            let end = line_end(text, mark.line)?;
            Some(Diagnostic {
                range: Range {
                    start: Position {
                        line: mark.line,
                        character: 0,
                    },
                    end,
                },
                severity: Some(DiagnosticSeverity::INFORMATION),
                code: Some(NumberOrString::String("hot_line".into())),
                source: Some(SOURCE.into()),
                message: format!("{} ({})", mark.text, mark.detail),
                ..Diagnostic::default()
            })
        })
        .collect()
}

/// The end of line `line` (0-based) of `text`, in UTF-16 code units as LSP counts them.
fn line_end(text: &str, line: u32) -> Option<Position> {
    let content = text.lines().nth(line as usize)?;
    let character = content.encode_utf16().count();
    Some(Position {
        line,
        character: u32::try_from(character).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::{ProfileTool, ProfiledLine};

    fn profile(id: &str, lines: &[(&str, u32, f64)]) -> Profile {
        Profile {
            id: id.to_owned(),
            tool: ProfileTool::Callgrind,
            unit: "instructions".to_owned(),
            operations: 1000,
            total_per_op: 4100.0,
            samples: None,
            functions: Vec::new(),
            lines: lines
                .iter()
                .map(|&(file, line, share)| ProfiledLine {
                    file: file.to_owned(),
                    line,
                    own_per_op: 4100.0 * share,
                    calls_per_op: 0.0,
                    share,
                })
                .collect(),
            tree: None,
        }
    }

    #[test]
    fn hot_lines_are_marked_as_the_terminal_marks_them_at_the_end_of_their_lines() {
        let params = profiled(
            Some(3),
            None,
            profile("q::a", &[("/w/b.rs", 2, 0.31), ("/w/b.rs", 9, 0.02)]),
        );
        assert_eq!(params.marks[0].line, 1, "0-based");
        assert_eq!(params.marks[0].text, "31% · 1 271 instructions/op");
        let mut profiles = Profiles::default();
        profiles.keep(params);
        let text = "fn a() {\n    let x = é(1);\n}\n";
        let hints = inlay_hints(&profiles, Path::new("/w/b.rs"), text);
        assert_eq!(hints.len(), 1, "line 9 is past the text's end");
        assert_eq!(
            hints[0].position,
            Position {
                line: 1,
                character: 17
            }
        );
        assert!(matches!(
            &hints[0].label,
            InlayHintLabel::String(label) if label == "◔ 31% · 1 271 instructions/op"
        ));
        let diagnostics = diagnostics(&profiles, Path::new("/w/b.rs"), text);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(
            diagnostics[0].severity,
            Some(DiagnosticSeverity::INFORMATION)
        );
        assert!(diagnostics[0].message.starts_with(
            "31% · 1 271 instructions/op (31% of q::a: 4 100 instructions per operation"
        ));
        assert!(inlay_hints(&profiles, Path::new("/w/other.rs"), text).is_empty());
    }

    #[test]
    fn a_file_shows_the_newest_profile_that_reaches_it_and_a_replaced_profile_clears() {
        let mut profiles = Profiles::default();
        profiles.keep(profiled(
            None,
            None,
            profile("q::a", &[("/w/h.rs", 1, 0.5)]),
        ));
        profiles.keep(profiled(
            None,
            None,
            profile("q::b", &[("/w/h.rs", 1, 0.2)]),
        ));
        let marks: Vec<&str> = profiles
            .marks_in(Path::new("/w/h.rs"))
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(marks, ["20% · 820 instructions/op"]);
        // q::b profiled again, now elsewhere: h.rs must be published again and shows q::a.
        let touched = profiles.keep(profiled(
            None,
            None,
            profile("q::b", &[("/w/o.rs", 1, 0.9)]),
        ));
        assert_eq!(touched, ["/w/h.rs", "/w/o.rs"]);
        let marks: Vec<&str> = profiles
            .marks_in(Path::new("/w/h.rs"))
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(marks, ["50% · 2 050 instructions/op"]);
    }
}
