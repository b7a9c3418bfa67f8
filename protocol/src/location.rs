//! A place in a source file: where a panic happened, where a compiler error is. Below every
//! other module of the protocol (a comparison's case and an editor's message both carry one).

use serde::{Deserialize, Serialize};

/// A place in a source file that a message is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SourceLocation {
    /// The file: absolute, or relative as Rust printed it (a panic's file is relative to the
    /// directory cargo compiled its package from); an editor resolves a relative one against
    /// the directories above the item's file.
    pub file: String,
    /// 0-based line.
    pub line: u32,
    /// 0-based character offset (a panic's column, counted in characters).
    pub character: u32,
}

impl SourceLocation {
    /// `file:line:column` as Rust prints a panic's location, or `file:line` (the engine's
    /// place of a misuse), 1-based; `None` for anything else.
    pub fn parse(text: &str) -> Option<SourceLocation> {
        let (rest, last) = text.trim().rsplit_once(':')?;
        let last = last.parse::<u32>().ok()?;
        let (file, line, column) = match rest.rsplit_once(':') {
            Some((file, line)) if !file.is_empty() && line.parse::<u32>().is_ok() => {
                (file, line.parse::<u32>().ok()?, last)
            }
            _ => (rest, last, 1),
        };
        (!file.is_empty()).then(|| SourceLocation {
            file: file.to_owned(),
            line: line.saturating_sub(1),
            character: column.saturating_sub(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic's `file:line:column` (1-based, as Rust prints it) becomes a 0-based place, a
    /// misuse's `file:line` one at the line's start; a Windows path keeps its drive; anything
    /// else is no place.
    #[test]
    fn a_panic_location_is_read_as_rust_prints_it() {
        assert_eq!(
            SourceLocation::parse("benches/two.rs:12:5"),
            Some(SourceLocation {
                file: "benches/two.rs".into(),
                line: 11,
                character: 4
            })
        );
        assert_eq!(
            SourceLocation::parse(r"C:\src\lib.rs:3:1").map(|l| l.file),
            Some(r"C:\src\lib.rs".to_owned())
        );
        assert_eq!(
            SourceLocation::parse("benches/two.rs:7"),
            Some(SourceLocation {
                file: "benches/two.rs".into(),
                line: 6,
                character: 0
            })
        );
        for text in ["", "lib.rs", ":3", "lib.rs:x", "lib.rs:3:x"] {
            assert_eq!(SourceLocation::parse(text), None, "{text}");
        }
    }
}
