//! Where a span of parsed source is, as LSP says it: the positions of discovery's functions,
//! criterion calls and arguments (`parse`, `criterion`).

use knotmeter_protocol::editor::{Position, Range};
use proc_macro2::LineColumn;

/// Turns proc-macro2 line/column pairs (1-based lines, columns in characters) into LSP
/// positions (0-based lines, columns in UTF-16 code units).
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes the lines of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, starts }
    }

    fn line_text(&self, line: usize) -> &'a str {
        let start = self.starts.get(line).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        &self.text[start..end]
    }

    /// The LSP position of a proc-macro2 line/column.
    pub fn position(&self, at: LineColumn) -> Position {
        let line = at.line.saturating_sub(1);
        let text = self.line_text(line);
        let character = if text.is_ascii() {
            at.column
        } else {
            text.chars().take(at.column).map(char::len_utf16).sum()
        };
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    /// The LSP range of a span.
    pub fn range(&self, span: proc_macro2::Span) -> Range {
        Range {
            start: self.position(span.start()),
            end: self.position(span.end()),
        }
    }
}
