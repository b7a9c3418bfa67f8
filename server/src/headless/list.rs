//! `knotmeter list [PATH]`: the discovered tree, as text or JSON.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use knotmeter_protocol::editor::{DiscoverResult, ItemKind};

use crate::cli::{ListArgs, ListFormat};
use crate::discovery::{workspace, Discovery};

/// `knotmeter list [PATH]`.
pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    let workspace = workspace::load(&path)?;
    let mut discovery = Discovery::new(workspace);
    let tree = discovery.tree();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.format == ListFormat::Json {
        serde_json::to_writer_pretty(
            &mut out,
            &DiscoverResult {
                items: tree.items().cloned().collect(),
                version: None,
            },
        )?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if tree.items().next().is_none() {
        writeln!(
            out,
            "no benchmarks in {} (bench targets of packages that depend on knotmeter, with #[bench] functions, or on knotmeter-criterion)",
            discovery.workspace().root.display()
        )?;
    }
    let root = discovery.workspace().root.clone();
    for item in tree.items() {
        let (indent, extra) = match item.kind {
            ItemKind::Package => (0, String::new()),
            ItemKind::Target => (
                1,
                item.detail
                    .as_ref()
                    .map_or(String::new(), |d| format!("  ({d})")),
            ),
            ItemKind::Bench => {
                let at = tree
                    .benches()
                    .find(|b| b.id == item.id)
                    .map(|b| {
                        let file = b.file.strip_prefix(&root).unwrap_or(&b.file);
                        format!("  {}:{}", file.display(), b.line)
                    })
                    .unwrap_or_default();
                (2, at)
            }
            ItemKind::Case => (3, String::new()),
        };
        let shown = match item.kind {
            ItemKind::Bench | ItemKind::Case => &item.id,
            _ => &item.label,
        };
        let group = item
            .group
            .as_ref()
            .filter(|_| item.kind == ItemKind::Bench)
            .map_or(String::new(), |g| format!("  (group {g})"));
        writeln!(out, "{}{shown}{extra}{group}", "  ".repeat(indent))?;
    }
    for (file, error) in &tree.errors {
        eprintln!("warning: {} does not parse: {error}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}
