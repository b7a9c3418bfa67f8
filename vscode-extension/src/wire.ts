// The wire types the extension speaks: re-exported from `protocol.generated.ts`, which is
// generated from the Rust protocol crate (protocol/src/editor.rs) and checked for staleness by
// `cargo test -p knotmeter-protocol --features typescript`. Nothing here redeclares a shape.
// Pure: no `vscode` import, so the unit tests load everything that depends on it.

export type {
  BenchResult,
  BenchSummary,
  CallFrame,
  CancelParams,
  Comparison,
  ComparedParams,
  CompareStatus,
  DiscoveredParams,
  DiscoverParams,
  DiscoverResult,
  Features,
  HistoryParams,
  HistoryPoint,
  HistoryResult,
  HotLine,
  ItemKind,
  ItemState,
  OutputParams,
  Outcome,
  Problems,
  Profile,
  ProfiledParams,
  Range,
  RawSamples,
  RunEndParams,
  RunMode,
  RunParams,
  RunResult,
  RunStateParams,
  RunStatesParams,
  SamplesParams,
  SamplesResult,
  ScalingPoint,
  Settings,
  Severity,
  Shown,
  ShownComparedCase,
  ShownComparison,
  ShownNote,
  SourceLocation,
  StoredParams,
  TestItem,
  TimerInfo,
  TreeChangedParams,
  Verdict,
  Warning,
} from "./protocol.generated";
export { Methods, RUN_COMMAND } from "./protocol.generated";

/** The `knotmeter.runOnSave` setting (a client setting, not a wire type). */
export type RunOnSave = "off" | "quick" | "full";
