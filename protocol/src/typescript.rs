//! Generation of the extension's TypeScript types, `vscode-extension/src/protocol.generated.ts`.
//!
//! `cargo test -p knotmeter-protocol --features typescript` regenerates the file in memory and
//! fails when the committed copy differs; `UPDATE_TS=1` in the environment rewrites it. Large
//! integers (`u64`, `i64`) become `number`: JSON carries them as numbers, and the counts and
//! timestamps they hold stay far below 2^53.

use std::path::PathBuf;

use ts_rs::{Config, TS};

use crate::editor::{self, Notification, Request};
use crate::*;

/// The generated file, relative to the repository root.
const GENERATED: &str = "vscode-extension/src/protocol.generated.ts";

/// Declares each type, in dependency order where it helps the reader.
macro_rules! declarations {
    ($cfg:expr, $out:expr, $($ty:ty),* $(,)?) => {
        $(
            if let Some(docs) = <$ty as TS>::docs() {
                $out.push_str(&docs);
            }
            $out.push_str("export ");
            $out.push_str(&<$ty as TS>::decl($cfg));
            $out.push_str("\n\n");
        )*
    };
}

fn method<R: Request>(name: &str, out: &mut String) {
    out.push_str(&format!("  {name}: \"{}\",\n", R::METHOD));
}

fn notification<N: Notification>(name: &str, out: &mut String) {
    out.push_str(&format!("  {name}: \"{}\",\n", N::METHOD));
}

/// The whole generated file: a header saying where it comes from, the method names, then
/// every type's declaration, ending in a single newline.
fn generate() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the knotmeter-protocol crate (protocol/src). Do not edit by hand:\n\
         // run `UPDATE_TS=1 cargo test -p knotmeter-protocol --features typescript`.\n\n",
    );
    method_names(&mut out);
    editor_declarations(&cfg, &mut out);
    wire_declarations(&cfg, &mut out);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// The constants the extension sends and matches on: `Methods`, each `knotmeter/*` request
/// and notification by the name the extension uses for it, and the code lens's
/// `RUN_COMMAND`.
fn method_names(out: &mut String) {
    out.push_str("/** The `knotmeter/*` method names. */\nexport const Methods = {\n");
    method::<editor::DiscoverRequest>("discover", out);
    notification::<editor::DiscoveredNotification>("discovered", out);
    notification::<editor::TreeChangedNotification>("treeChanged", out);
    method::<editor::RunRequest>("run", out);
    notification::<editor::RunStateNotification>("runState", out);
    notification::<editor::RunStatesNotification>("runStates", out);
    notification::<editor::OutputNotification>("output", out);
    notification::<editor::RunEndNotification>("runEnd", out);
    method::<editor::CancelRequest>("cancel", out);
    method::<editor::HistoryRequest>("history", out);
    notification::<editor::StoredNotification>("stored", out);
    method::<editor::SamplesRequest>("samples", out);
    notification::<editor::ComparedNotification>("compared", out);
    notification::<editor::ProfiledNotification>("profiled", out);
    notification::<editor::ProfileComparedNotification>("profileCompared", out);
    out.push_str("} as const;\n\n");
    out.push_str(&format!(
        "/** The command of the \"▶ Run\" code lens; its argument is a `RunParams`. */\n\
         export const RUN_COMMAND = \"{}\";\n\n",
        editor::RUN_COMMAND
    ));
}

/// The declarations of the editor protocol's messages: the parameters and results of each
/// method, with the shown forms they carry, and the extension's settings.
fn editor_declarations(cfg: &Config, out: &mut String) {
    declarations!(
        cfg,
        out,
        editor::Position,
        editor::Range,
        editor::SourceLocation,
        editor::ItemKind,
        editor::TestItem,
        editor::DiscoverParams,
        editor::DiscoverResult,
        editor::DiscoveredParams,
        editor::TreeChangedParams,
        editor::RunMode,
        editor::RunParams,
        editor::RunResult,
        editor::ItemState,
        editor::RunStateParams,
        editor::RunStatesParams,
        Shown,
        ShownNote,
        Outcome,
        editor::OutputParams,
        editor::RunEndParams,
        editor::CancelParams,
        editor::HistoryParams,
        editor::HistoryResult,
        editor::StoredParams,
        editor::SamplesParams,
        editor::SamplesResult,
        editor::SamplesSource,
        editor::ComparedParams,
        editor::ProfiledParams,
        editor::ProfileComparedParams,
        editor::HotLine,
        ShownComparison,
        ShownComparedCase,
        editor::Features,
        editor::Settings,
        editor::Problems,
    );
}

/// The declarations of the wire types the engine, the daemon and the history share: results,
/// comparisons, history runs, the machine-readable events, reports and summaries.
fn wire_declarations(cfg: &Config, out: &mut String) {
    declarations!(
        cfg,
        out,
        HistoryRunId,
        RunStatus,
        HistoryPoint,
        HistoryRun,
        BenchResult,
        Measure,
        Estimate,
        Quantiles,
        Overhead,
        RawSamples,
        Throughput,
        ThroughputUnit,
        Warning,
        Severity,
        Comparison,
        ComparisonKind,
        Verdict,
        Reproducibility,
        Rounds,
        SpreadSource,
        Allocations,
        CacheSimulation,
        Manifest,
        TimerInfo,
        ListDocument,
        ListEntry,
        Event,
        CaseFailure,
        FailureKind,
        RunSummary,
        MachineProbe,
        BenchSummary,
        ScalingPoint,
        ComplexityFit,
        ClassFit,
        Report,
        Profile,
        CallFrame,
        ProfileTool,
        ProfiledFunction,
        ProfiledLine,
        ProfileComparison,
        FunctionChange,
        CompareReport,
        CompareSide,
        ComparedCase,
        CompareStatus,
    );
}

#[test]
fn generated_typescript_is_up_to_date() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(GENERATED);
    let fresh = generate();
    if std::env::var_os("UPDATE_TS").is_some_and(|v| !v.is_empty()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{GENERATED} is stale: run `UPDATE_TS=1 cargo test -p knotmeter-protocol --features \
         typescript` to regenerate it"
    );
}
