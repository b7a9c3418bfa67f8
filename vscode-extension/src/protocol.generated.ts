// Generated from the knotmeter-protocol crate (protocol/src). Do not edit by hand:
// run `UPDATE_TS=1 cargo test -p knotmeter-protocol --features typescript`.

/** The `knotmeter/*` method names. */
export const Methods = {
  discover: "knotmeter/discover",
  discovered: "knotmeter/discovered",
  treeChanged: "knotmeter/treeChanged",
  run: "knotmeter/run",
  runState: "knotmeter/runState",
  runStates: "knotmeter/runStates",
  output: "knotmeter/output",
  runEnd: "knotmeter/runEnd",
  cancel: "knotmeter/cancel",
  history: "knotmeter/history",
  stored: "knotmeter/stored",
  samples: "knotmeter/samples",
  compared: "knotmeter/compared",
  profiled: "knotmeter/profiled",
  profileCompared: "knotmeter/profileCompared",
} as const;

/** The command of the "▶ Run" code lens; its argument is a `RunParams`. */
export const RUN_COMMAND = "knotmeter.run";

/**
 * A position in a document: 0-based line and character (UTF-16 code units), as in LSP.
 */
export type Position = { 
/**
 * 0-based line.
 */
line: number, 
/**
 * 0-based character offset in UTF-16 code units.
 */
character: number, };

/**
 * A range in a document, end exclusive, as in LSP.
 */
export type Range = { 
/**
 * The first character.
 */
start: Position, 
/**
 * Just after the last character.
 */
end: Position, };

/**
 * A place in a source file that a message is about.
 */
export type SourceLocation = { 
/**
 * The file: absolute, or relative as Rust printed it (a panic's file is relative to the
 * directory cargo compiled its package from); an editor resolves a relative one against
 * the directories above the item's file.
 */
file: string, 
/**
 * 0-based line.
 */
line: number, 
/**
 * 0-based character offset (a panic's column, counted in characters).
 */
character: number, };

/**
 * The level of an item in the tree.
 */
export type ItemKind = "package" | "target" | "bench" | "case";

/**
 * One node of the tree of benchmarks. Parents come before their children.
 */
export type TestItem = { 
/**
 * Stable id (see `docs/protocol.md`): benchmarks and cases use the engine's ids.
 */
id: string, 
/**
 * What to show: the package, target or function name, or the argument text of a case.
 */
label: string, 
/**
 * The level of the item.
 */
kind: ItemKind, 
/**
 * The id of the parent item; absent for packages.
 */
parent?: string | null, 
/**
 * The `file://` URI of the source: the manifest for a package, the bench file for a
 * target, the defining file for a benchmark or case.
 */
uri?: string | null, 
/**
 * The source range: a benchmark's whole function (attributes included), a case's
 * argument expression.
 */
range?: Range | null, 
/**
 * The comparison group of a benchmark or case, if it has one.
 */
group?: string | null, 
/**
 * A note to show beside the label: for a criterion bench target that was never built,
 * that a build will list its benchmarks (criterion names them at run time).
 */
detail?: string | null, };

/**
 * Params of `knotmeter/discover`: none (send `{}`). Any field is refused.
 */
export type DiscoverParams = Record<symbol, never>;

/**
 * Result of `knotmeter/discover`.
 */
export type DiscoverResult = { 
/**
 * The whole tree, parents before children.
 */
items: Array<TestItem>, 
/**
 * The tree's version: `knotmeter/treeChanged` messages apply to it in turn. Absent from
 * daemons that predate it.
 */
version?: number | null, };

/**
 * Params of `knotmeter/discovered`.
 */
export type DiscoveredParams = { 
/**
 * The whole tree, parents before children.
 */
items: Array<TestItem>, 
/**
 * The tree's version (see [`DiscoverResult::version`]).
 */
version?: number | null, };

/**
 * Params of `knotmeter/treeChanged`: the change from tree version `base` to `version`.
 *
 * A client holding version `base` removes every id in `removed`, then adds or replaces each
 * item of `items` (whole items, parents before children); it then holds `version`. A message
 * whose `version` is not above the client's is old news (a `knotmeter/discover` answer
 * overtook it) and is ignored; one whose `base` is not the client's version means the client
 * missed a change: it asks `knotmeter/discover` for the whole tree. Ids are stable: an item
 * that moves (its range changes) is replaced under the same id.
 */
export type TreeChangedParams = { 
/**
 * The version this change applies to.
 */
base: number, 
/**
 * The version after it.
 */
version: number, 
/**
 * Ids of the items that left the tree: every one of them, descendants included.
 */
removed: Array<string>, 
/**
 * Items that are new or changed, whole, parents before children.
 */
items: Array<TestItem>, };

/**
 * How long each case is measured.
 */
export type RunMode = "quick" | "full";

/**
 * Params of `knotmeter/run` (and the argument of the [`RUN_COMMAND`] command). `{}` runs
 * everything; an unknown field is refused (`-32602` naming it), never ignored.
 */
export type RunParams = { 
/**
 * Item ids to run, at any level (a package runs all its benchmarks). Absent: everything.
 */
include?: Array<string> | null, 
/**
 * Item ids to leave out, at any level.
 */
exclude?: Array<string> | null, 
/**
 * `quick` or `full` (the default).
 */
mode?: RunMode | null, 
/**
 * Compare with another build instead of measuring alone (`knotmeter compare`): the git
 * revision of the base; empty for the default base (`HEAD` when the working tree has
 * uncommitted changes, else the merge base with the upstream branch). Each passed item's
 * `result` is then the working tree's, and its `comparison` (kind `builds`, `against` the
 * base) arrives once every item is measured.
 */
compare?: string | null, 
/**
 * Profile each case instead of measuring it (`knotmeter profile`, docs/profile.md): one
 * after another, each under [`RunParams::profiler`] in a profile build of its own. Each case's profile
 * arrives as `knotmeter/profiled`, then the case ends `passed` without a `result` (a
 * profile is not a measurement, and no verdict); a missing profiler, a build error or a
 * case that fails under it ends it `errored` or `failed` with the reason. With `compare`
 * as well, each case is profiled on both builds and its comparison arrives as
 * `knotmeter/profileCompared` (and as the table in the run's output). In `quick` mode
 * (the editor's profile on save) each case has a shorter budget.
 */
profile?: boolean | null, 
/**
 * The profiler of a profile run: `callgrind` (instructions counted; the default) or
 * `perf` (CPU time sampled).
 */
profiler?: ProfileTool | null, 
/**
 * What to measure: `time` (the default) or `instructions`, each case's instructions
 * counted under Valgrind's callgrind (`--measure instructions`, docs/instructions.md):
 * results in instructions per operation, compared with earlier counts only; with
 * `compare`, the two builds compared by count. Not with `profile` (refused with -32602).
 */
measure?: Measure | null, };

/**
 * Result of `knotmeter/run`.
 */
export type RunResult = { 
/**
 * The new run's id, unique while the daemon lives.
 */
runId: number, };

/**
 * The state of one item in a run. Every item of a run starts `enqueued` and ends in one of
 * `passed`, `failed`, `errored` or `skipped`.
 */
export type ItemState = "enqueued" | "building" | "started" | "passed" | "failed" | "errored" | "skipped";

/**
 * Params of `knotmeter/runState`.
 */
export type RunStateParams = { 
/**
 * The run.
 */
runId: number, 
/**
 * The item (a benchmark without `args`, or a case).
 */
id: string, 
/**
 * Its new state.
 */
state: ItemState, 
/**
 * The measurement, with `passed` (and with `skipped` after a partial measurement).
 */
result?: BenchResult | null, 
/**
 * Why, with `failed`, `errored` and `skipped`: the panic message and location, the
 * rendered compiler error, the signal, the timeout.
 */
message?: string | null, 
/**
 * Where `message` points in the sources, when it is about a place there: a panic's
 * location (`failed`), the first compiler error of the item's package (`errored`). The
 * editor shows the message there rather than at the function.
 */
location?: SourceLocation, 
/**
 * What to show for `result`, decided by the daemon (knotmeter-format): the headline,
 * the verdict, the outcome and every note, the benchmark's included. Present whenever
 * `result` is.
 */
shown?: Shown, 
/**
 * The analysis of the item's benchmark across its `args` cases (complexity, scaling
 * warnings), once all its cases ran; the item is then reported again with it.
 */
bench?: BenchSummary, };

/**
 * Params of `knotmeter/runStates`.
 */
export type RunStatesParams = { 
/**
 * The changes, in the order they happened; each is what one `knotmeter/runState` would
 * carry.
 */
states: Array<RunStateParams>, };

/**
 * Everything shown for one measured case.
 */
export type Shown = { 
/**
 * Passed, warned or partial.
 */
outcome: Outcome, 
/**
 * The median per operation (`12.3 ns`), or `≈ 0 (indistinguishable from empty)` for a
 * body the engine could not tell apart from an empty one.
 */
figure: string, 
/**
 * How far the next run is likely to land: `±1.2% between runs`, or why that is not known
 * yet (`spread between runs not known yet: 2 of 5 runs`); empty with no figure.
 */
spread: string, 
/**
 * The figure with its spread: `12.3 ns ±1.2% between runs`.
 */
headline: string, 
/**
 * The verdict of the comparison, with what it was against: `3.1% faster than run 12`,
 * `1.0% slower than sort_std`, `same as run 12`.
 */
verdict?: string, 
/**
 * Every warning and note, the case's first, then its benchmark's.
 */
notes: Array<ShownNote>, 
/**
 * The complexity of the case's benchmark across its `args` cases, once known: `O(n)`,
 * or the classes the data cannot tell apart (`O(n) or O(n log n) (cannot be told
 * apart)`).
 */
scaling?: string, 
/**
 * One line for a description, an annotation or a lens: the headline, the verdict, the
 * codes of the warnings, and `partial` when cut short.
 */
line: string, 
/**
 * The whole account, several lines: the median with this run's 95% interval, the spread
 * between runs, the comparison, the sampling, the overhead, allocations and every note.
 */
detail: string, };

/**
 * One warning or note as every surface words it.
 */
export type ShownNote = { 
/**
 * `warning` (fails the item) or `info` (worth knowing; never fails anything).
 */
severity: Severity, 
/**
 * The stable code, such as `optimized_away` or `flat_scaling`.
 */
code: string, 
/**
 * The whole line: `⚠ code: message` or `ℹ code: message`.
 */
text: string, 
/**
 * Whether it comes from the benchmark's analysis across its `args` cases rather than from
 * this case alone.
 */
bench: boolean, };

/**
 * How a measured case stands once its warnings (its own and its benchmark's) are counted.
 */
export type Outcome = "passed" | "warned" | "partial";

/**
 * Params of `knotmeter/output`.
 */
export type OutputParams = { 
/**
 * The run.
 */
runId: number, 
/**
 * The item the text is about, if it is about one.
 */
id?: string | null, 
/**
 * The text, with line breaks as `\r\n` (ready for a terminal-like output view).
 */
text: string, };

/**
 * Params of `knotmeter/runEnd`.
 */
export type RunEndParams = { 
/**
 * The run.
 */
runId: number, };

/**
 * Params of `knotmeter/cancel`. An unknown field is refused.
 */
export type CancelParams = { 
/**
 * The run to cancel. Cancelling a finished or unknown run does nothing.
 */
runId: number, };

/**
 * Params of `knotmeter/history`. An unknown field is refused.
 */
export type HistoryParams = { 
/**
 * The case id (a benchmark id for a benchmark without `args`).
 */
id: string, 
/**
 * At most this many points (default 100).
 */
limit?: number | null, };

/**
 * Result of `knotmeter/history`.
 */
export type HistoryResult = { 
/**
 * Newest first. Empty when there is no history (yet).
 */
points: Array<HistoryPoint>, };

/**
 * Params of `knotmeter/stored`.
 */
export type StoredParams = { 
/**
 * The latest complete (not partial) stored result of each case, each with its
 * `stored_at`. Cases never stored are absent.
 */
results: Array<BenchResult>, 
/**
 * What to show for each of `results`, in the same order, decided by the daemon
 * (knotmeter-format) as for `knotmeter/runState`; its line ends with when the result was
 * stored. Absent from daemons before it was sent.
 */
shown?: Array<Shown>, };

/**
 * Params of `knotmeter/samples`. An unknown field is refused.
 */
export type SamplesParams = { 
/**
 * The case id (a benchmark id for a benchmark without `args`).
 */
id: string, };

/**
 * Result of `knotmeter/samples`.
 */
export type SamplesResult = { 
/**
 * The raw samples of the latest result the daemon reported for the case; `null` when it
 * has none for it (not measured, or measured long ago and not found in the history).
 */
raw: RawSamples | null, 
/**
 * Where `raw` comes from, when it is present.
 */
source?: SamplesSource | null, };

/**
 * Where the samples of a `knotmeter/samples` answer come from.
 */
export type SamplesSource = "measured" | "stored";

/**
 * Params of `knotmeter/compared`.
 */
export type ComparedParams = { 
/**
 * The comparison run.
 */
runId: number, 
/**
 * The comparison as every surface shows it (knotmeter-format).
 */
comparison: ShownComparison, };

/**
 * Params of `knotmeter/profiled`.
 */
export type ProfiledParams = { 
/**
 * The run that profiled it; absent for a profile read from the history when the daemon
 * started.
 */
runId?: number, 
/**
 * When it was stored, in seconds since the Unix epoch (absent when it could not be).
 */
storedAt?: number, 
/**
 * The profile.
 */
profile: Profile, 
/**
 * Its hot lines of the workspace as every surface marks them (knotmeter-format), the
 * costliest first: what an editor draws at the end of each line and in its gutter.
 */
marks: Array<HotLine>, };

/**
 * Params of `knotmeter/profileCompared`.
 */
export type ProfileComparedParams = { 
/**
 * The run that profiled both builds.
 */
runId: number, 
/**
 * Both profiles and the functions whose own cost changed most.
 */
comparison: ProfileComparison, 
/**
 * Its heading as every surface words it (knotmeter-format).
 */
heading: string, };

/**
 * A hot line of a profile, as an editor marks it.
 */
export type HotLine = { 
/**
 * The source file, absolute.
 */
file: string, 
/**
 * Where the line is (0-based, as LSP positions): its start.
 */
line: number, 
/**
 * The line's share of the profiled region, from 0 to 1 (own code and calls made from it):
 * how hot its gutter mark is.
 */
share: number, 
/**
 * The mark at the end of the line: `31% · 4 100 instructions/op`.
 */
text: string, 
/**
 * One sentence for a hover: whose profile it is and what it counts.
 */
detail: string, };

/**
 * A comparison of two builds (`knotmeter compare`, the editor's "Compare with base") as every
 * surface shows it: decided once, by the knotmeter-format crate, laid out by each surface (the
 * terminal table, the results panel).
 */
export type ShownComparison = { 
/**
 * Both sides: `working tree (HEAD 1a2b3c4d5e, uncommitted changes) against main
 * (9f8e7d6c5b)`.
 */
heading: string, 
/**
 * What the base is called in verdicts: `main`, `HEAD~1`.
 */
base: string, 
/**
 * Every case, in the order the comparison took them.
 */
rows: Array<ShownComparedCase>, 
/**
 * The counts: `2 compared (1 slower, 0 faster, 1 same), 1 added, 1 removed`.
 */
summary: string, 
/**
 * Cut short by a cancel: the cases not reached are `skipped`.
 */
cancelled: boolean, };

/**
 * One case of a [`ShownComparison`].
 */
export type ShownComparedCase = { 
/**
 * The case id.
 */
id: string, 
/**
 * How the case ended in the comparison.
 */
status: CompareStatus, 
/**
 * The base's median per operation (`2.41 µs`, `≈ 0 (indistinguishable from empty)`), or
 * `—` when the base has no result.
 */
base: string, 
/**
 * The head's, the same way.
 */
head: string, 
/**
 * The change of the head's time over the base's with its 95% interval, `+3.1% [2.6,
 * 3.7]`; empty when not compared.
 */
change: string, 
/**
 * The engine's verdict, with a compared case.
 */
verdict?: Verdict, 
/**
 * The verdict against the base, `slower than main`, or the status: `not compared`,
 * `added`, `removed`, `failed`, `skipped`.
 */
outcome: string, 
/**
 * Why a case was not compared (or failed), and what `added` and `removed` mean here; empty
 * for a compared case.
 */
why: string, };

/**
 * What one side of the connection supports beyond the methods every client and daemon have,
 * exchanged in `initialize` under `capabilities.experimental.knotmeter` (the client's in
 * its request, the daemon's in its result). Absent fields are `false`. Unknown fields are
 * skipped, not refused: they are features of a newer client or daemon, which the other side
 * does without.
 */
export type Features = { 
/**
 * Tree changes as `knotmeter/treeChanged` rather than whole trees.
 */
treeChanged?: boolean | null, 
/**
 * Run states batched in `knotmeter/runStates` rather than one `knotmeter/runState` each.
 */
runStates?: boolean | null, 
/**
 * `knotmeter/samples` (the daemon's side).
 */
samples?: boolean | null, 
/**
 * The client draws profiles from `knotmeter/profiled` itself: the daemon gives it no
 * inlay hints or diagnostics for hot lines. The daemon's side: it runs profiles.
 */
profiles?: boolean | null, };

/**
 * The daemon's settings: the `initializationOptions` of `initialize`, and the `settings`
 * of `workspace/didChangeConfiguration` (either this object itself or `{"knotmeter": ...}`).
 * Absent fields keep their current value. Unknown fields are skipped, not refused: they are
 * settings of a newer extension (or another editor's), and refusing them would drop every
 * setting beside them; a misspelled one leaves its setting as it was, nothing wider.
 */
export type Settings = { 
/**
 * Re-run the benchmarks of a saved file (quick mode) after a build. Default `false`.
 */
runOnSave?: boolean | null, 
/**
 * Seconds a case may stay silent before its first step (the cold call) reports, and the
 * bench binary between cases; after that a case is taken for hung (stopped, `errored`)
 * when it reports no progress for 10 times its longest step so far, and at least 10 s.
 * Above 0, at most 86400. Default 120.
 */
caseTimeoutSecs?: number | null, 
/**
 * Time budget per case of a quick run, in seconds (the engine's `--time`). Default: the
 * engine's quick budget.
 */
quickTimeSecs?: number | null, 
/**
 * Time budget per case of a full run, in seconds. Default: the engine's budget.
 */
fullTimeSecs?: number | null, 
/**
 * How long a cancelled bench binary may take to stop before it is killed, in
 * milliseconds. Default 2000.
 */
cancelGraceMs?: number | null, 
/**
 * Which notes of the last results are published as diagnostics (the Problems view).
 * Default `warnings`. Compiler errors are always published.
 */
problems?: Problems | null, };

/**
 * Which notes of the results become diagnostics.
 */
export type Problems = "warnings" | "all" | "off";

/**
 * The id of one recorded run in the history store (SQLite's row id of the run). Larger ids
 * were recorded later.
 *
 * Not to be confused with the `runId` of the editor methods, which numbers the daemon's runs
 * since it started.
 */
export type HistoryRunId = number;

/**
 * How a recorded run ended. A run is recorded when it starts and each case is stored when it
 * finishes, so a run that never ended still holds the cases it finished.
 */
export type RunStatus = "running" | "complete" | "cancelled" | "interrupted";

/**
 * One case's result in one recorded run, reduced to what a chart or `knotmeter history ID`
 * shows.
 */
export type HistoryPoint = { 
/**
 * The run.
 */
run: HistoryRunId, 
/**
 * The run's start, in seconds since the Unix epoch.
 */
timestamp: number, 
/**
 * The run's git commit, where there was one.
 */
gitCommit: string | null, 
/**
 * The run's machine key: only points with equal keys are comparable.
 */
machineKey: string, 
/**
 * The baseline name the run was saved under, if any.
 */
baseline: string | null, 
/**
 * The median per-operation time, in nanoseconds.
 */
medianNs: number, 
/**
 * Lower bound of the median's 95% confidence interval, in nanoseconds.
 */
lowNs: number, 
/**
 * Upper bound of the median's 95% confidence interval, in nanoseconds.
 */
highNs: number, 
/**
 * The verdict of the comparison made during that run, if one was made.
 */
verdict: Verdict | null, 
/**
 * How the run ended. Absent from daemons of knotmeter 0.1.0, as are the fields below.
 */
status?: RunStatus | null, 
/**
 * The case was cut short by a cancel: never used as a baseline.
 */
partial?: boolean | null, 
/**
 * The run's time budget per case, in milliseconds (100 is `--quick`).
 */
budgetMs?: number | null, 
/**
 * When the result was stored, in seconds since the Unix epoch.
 */
storedAt?: number | null, 
/**
 * The result's warnings and notes in that run (`optimized_away` makes the median
 * meaningless). Absent when there were none, and from daemons before they were sent.
 */
warnings?: Array<Warning>, 
/**
 * The comparison behind `verdict`, with what it was against (an earlier run, a saved
 * baseline, or the group's baseline), so the verdict can say so. Absent when none was
 * made, and from daemons before it was sent.
 */
comparison?: Comparison, };

/**
 * One recorded run, as `knotmeter history` lists it.
 */
export type HistoryRun = { 
/**
 * The run.
 */
run: HistoryRunId, 
/**
 * The run's start, in seconds since the Unix epoch.
 */
timestamp: number, 
/**
 * When the run was closed, in seconds since the Unix epoch; absent while it runs and for a
 * run that never closed.
 */
endedAt: number | null, 
/**
 * How the run ended.
 */
status: RunStatus, 
/**
 * The time budget per case, in milliseconds (100 is `--quick`).
 */
budgetMs: number, 
/**
 * The run's git commit, where there was one.
 */
gitCommit: string | null, 
/**
 * The run's machine key: only runs with equal keys are comparable.
 */
machineKey: string, 
/**
 * The baseline name the run was saved under, if any.
 */
baseline: string | null, 
/**
 * Results stored for the run.
 */
results: number, 
/**
 * Of those, results cut short by a cancel.
 */
partial: number, };

/**
 * Everything measured for one case. The same object appears in `--format json`'s `results`,
 * in the `case_finished` event of `--format jsonl`, in the history store and in the editor.
 */
export type BenchResult = { 
/**
 * Stable id: `target::module::function`, plus `/arg` for a case of an `args` benchmark.
 */
id: string, 
/**
 * The benchmark function's name.
 */
name: string, 
/**
 * The canonical argument text for an `args` case, `null` otherwise.
 */
args: string | null, 
/**
 * The comparison group (`#[bench(group = "..")]`), or `null`.
 */
group: string | null, 
/**
 * Whether this case is its group's baseline.
 */
baseline: boolean, 
/**
 * The source file of the benchmark function, as `file!()` spells it.
 */
file: string, 
/**
 * The 1-based line of the benchmark function's name.
 */
line: number, 
/**
 * What the figures count: `time` (nanoseconds; absent in JSON, as from every engine
 * before counts) or `instructions` (counted by callgrind, `--measure instructions`). Every
 * figure of the result (estimate, quantiles, overhead, cold call, raw samples) is in its
 * measure's unit per operation, whatever its field's name says; results of two measures
 * are never compared.
 */
measure?: Measure, 
/**
 * The per-operation estimate, corrected for the harness overhead, with its 95% interval
 * from the variation between rounds (see [`Rounds`]).
 */
estimate: Estimate, 
/**
 * Spread of the corrected per-operation samples.
 */
quantiles: Quantiles, 
/**
 * Relative half-width of the estimate's 95% interval (0.01 is ±1%): the larger of its two
 * sides, relative to the estimate. The `±` every surface prints beside the figure. `null`
 * when the estimate is zero, where a relative width means nothing, and when too little was
 * measured for an interval.
 */
precision: number | null, 
/**
 * The harness's own cost, measured with an empty body of the same shape.
 */
overhead: Overhead, 
/**
 * The first (cold) call, timed on its own, in nanoseconds.
 */
cold_ns: number, 
/**
 * Operations timed together in one sample.
 */
ops_per_sample: number, 
/**
 * Number of workload samples (the baseline took as many).
 */
samples: number, 
/**
 * Wall time spent on this case, calibration and baseline included, in nanoseconds.
 */
wall_ns: number, 
/**
 * True when the run was cancelled while this case was being measured.
 */
partial: boolean, 
/**
 * Validity and environment warnings, each with a stable code.
 */
warnings: Array<Warning>, 
/**
 * The comparison against a baseline or history; `null` when there is none.
 */
comparison: Comparison | null, 
/**
 * How far this case's median moves between runs on this machine, learnt from the history
 * store: the figure every surface shows as the spread of the headline. `null` when the
 * run kept no history (`--no-history`, an unreadable store) and in results from engines
 * that predate the field.
 */
reproducibility?: Reproducibility | null, 
/**
 * Allocations per operation; `null` unless the bench binary installs
 * `knotmeter::CountingAlloc` as its global allocator.
 */
allocations: Allocations | null, 
/**
 * A count's cache simulation (`--measure instructions --cache-sim`), per operation;
 * absent otherwise.
 */
cache?: CacheSimulation, 
/**
 * The rounds the case was measured in: each round's median, the evidence behind the
 * estimate and its interval. Absent from engines that measured in one stretch, and from
 * results read back from histories they wrote.
 */
rounds?: Rounds, 
/**
 * Raw per-operation timings, before overhead subtraction, in nanoseconds. In a result read
 * back from the history store they are evenly spaced order statistics (see [`RawSamples`]).
 */
raw: RawSamples, 
/**
 * When the result was stored in the history, in seconds since the Unix epoch: set on a
 * result read back from the store (the daemon shows those after a restart), absent on a
 * result just measured.
 */
stored_at?: number | null, 
/**
 * How much work one operation does, as the benchmark declared it (criterion's
 * `Throughput`), with the rate that follows from the estimate; absent when none was
 * declared.
 */
throughput?: Throughput | null, };

/**
 * What a result's figures count.
 */
export type Measure = "time" | "instructions";

/**
 * The per-operation estimate of a case, in nanoseconds.
 */
export type Estimate = { 
/**
 * The estimate per operation: the geometric mean of the rounds' medians (see
 * [`Rounds`]); with one round, that round's median. The name is kept from the formats'
 * first version, in which it was the median of one process's samples.
 */
median_ns: number, 
/**
 * Lower bound of the estimate's 95% interval: Student's t over the rounds' log medians
 * (with one round, the distribution-free interval of its median, which says nothing
 * about another process).
 */
low_ns: number, 
/**
 * Upper bound of the estimate's 95% interval.
 */
high_ns: number, 
/**
 * Mean of the corrected per-operation samples.
 */
mean_ns: number, };

/**
 * Quantiles and spread of the corrected per-operation samples, in nanoseconds.
 */
export type Quantiles = { 
/**
 * Smallest sample.
 */
min_ns: number, 
/**
 * 5th percentile.
 */
p5_ns: number, 
/**
 * First quartile.
 */
q1_ns: number, 
/**
 * Third quartile.
 */
q3_ns: number, 
/**
 * 95th percentile.
 */
p95_ns: number, 
/**
 * Largest sample.
 */
max_ns: number, 
/**
 * Sample standard deviation.
 */
std_dev_ns: number, 
/**
 * Samples outside Tukey's fences (1.5 × IQR beyond the quartiles). Never dropped.
 */
outliers: number, };

/**
 * The harness overhead that was subtracted, per operation.
 */
export type Overhead = { 
/**
 * Median per-operation time of the empty body of the same shape, in nanoseconds.
 */
per_op_ns: number, 
/**
 * Change of the baseline's median between the first and second half of the run,
 * in nanoseconds per operation (positive: the harness got slower); `null` with fewer than
 * two baseline samples, which have no halves to compare.
 */
drift: number | null, 
/**
 * Samples in which the subtraction would have gone below zero and was capped at zero.
 */
capped: number, };

/**
 * Raw per-operation timings in nanoseconds, in the order they were taken. Bounded in size.
 *
 * The history store keeps a compact form: each vector sorted ascending and, when it held more
 * than the store's limit, reduced to that many evenly spaced order statistics (its minimum,
 * its median and its maximum among them). A stored result's `samples` still counts what was
 * measured. See `docs/history.md`.
 */
export type RawSamples = { 
/**
 * The workload's samples divided by the operation count, before subtraction.
 */
workload_ns: Array<number>, 
/**
 * The empty baseline's samples divided by the operation count, interleaved in time with
 * the workload's.
 */
baseline_ns: Array<number>, };

/**
 * Work done per operation and the rate it gives: bytes, bits or elements per second.
 */
export type Throughput = { 
/**
 * What is counted, and in which units a rate is shown.
 */
unit: ThroughputUnit, 
/**
 * Units processed by one operation, as declared.
 */
per_operation: number, 
/**
 * Units per second at the median estimate; `null` when the estimate is zero (a rate
 * from it would be infinite).
 */
per_second: number | null, 
/**
 * Units per second at the slow end of the estimate's 95% interval (its `high_ns`).
 */
per_second_low: number | null, 
/**
 * Units per second at the fast end of the interval (its `low_ns`); `null` when that end
 * is zero.
 */
per_second_high: number | null, };

/**
 * What a [`Throughput`] counts.
 */
export type ThroughputUnit = "bytes" | "bytes_decimal" | "bits" | "elements";

/**
 * A warning attached to a result or a run. `code` is stable; `message` says what to do.
 */
export type Warning = { 
/**
 * Stable machine-readable code such as `debug_build` or `optimized_away`.
 */
code: string, 
/**
 * Human-readable explanation with the action to take.
 */
message: string, 
/**
 * `warning` (the figure may be wrong) or `info` (worth knowing, not a defect).
 */
severity: Severity, };

/**
 * How much a [`Warning`] matters.
 */
export type Severity = "warning" | "info";

/**
 * A comparison of one case against a baseline: another member of its group, or an earlier
 * stored run.
 */
export type Comparison = { 
/**
 * The id of the baseline case, or the history run compared against.
 */
against: string, 
/**
 * This case's time divided by the baseline's (below 1 is faster).
 */
ratio: number, 
/**
 * Lower bound of the ratio's 95% confidence interval.
 */
low: number, 
/**
 * Upper bound of the ratio's 95% confidence interval.
 */
high: number, 
/**
 * Two-sided p-value of the test for a difference (after multiple-testing correction).
 */
p_value: number, 
/**
 * The one verdict every output shows.
 */
verdict: Verdict, 
/**
 * What was compared: a group member with its baseline, a case with the history, or two
 * builds (`knotmeter compare`). Absent from engines that predate the field.
 */
kind?: ComparisonKind | null, 
/**
 * A before/after comparison taken relative to the machine's probe (both runs measured
 * it): the probe's time in this run over its time in the run compared against, 1.05 when
 * the machine ran 5% slower now. `ratio` and its interval are then the case's change
 * less the machine's. Absent otherwise, and from engines that predate the field.
 */
machine?: number | null, };

/**
 * What a [`Comparison`] compares.
 */
export type ComparisonKind = "group" | "history" | "builds";

/**
 * Whether a case got faster, slower or stayed the same. Computed once, shown everywhere.
 */
export type Verdict = "faster" | "slower" | "same";

/**
 * How reproducible a case's median is from one run to the next on this machine.
 *
 * The engine learns it from the case's earlier comparable runs in the history store (same
 * machine, build profile and time budget): three times the 75th percentile of the relative
 * changes between consecutive stored medians. It is also the noise floor below which a
 * before/after comparison calls a change `same`. Until enough runs are stored, `spread` is
 * `null`: the within-run interval of the median says nothing about the next run. Only steps
 * between runs of the same code are used once enough of them are stored
 * ([`SpreadSource::SameCode`]): a user who alternates between two branches would otherwise
 * take the difference between them for noise.
 */
export type Reproducibility = { 
/**
 * The next run's median is likely within ±`spread` of this one (0.01 is ±1%); `null`
 * until `runs` reaches `runs_needed`.
 */
spread: number | null, 
/**
 * Comparable earlier runs of this case found in the history (at most 20 are read).
 */
runs: number, 
/**
 * Comparable earlier runs needed before `spread` is known.
 */
runs_needed: number, 
/**
 * Which earlier runs `spread` was learnt from; absent while it is not known (and from a
 * knotmeter that did not say).
 */
learnt_from?: SpreadSource | null, };

/**
 * The rounds of a case: the unit of evidence behind its estimate, its interval and every
 * comparison of it.
 *
 * A run is a schedule of short slots, round by round, the cases of each round in a shuffled
 * order, each round in a fresh process of the bench binary: the state a process is born with
 * (where its memory landed, the CPU it runs on, what the machine does meanwhile) holds for
 * its whole life and moves its figures by more than any number of its own samples can show.
 * The samples of one slot are not independent evidence; the rounds are. Each round gives one
 * median per operation (its samples less the median of its own empty body), and the estimate
 * is their geometric mean with a Student's t interval over their logarithms.
 */
export type Rounds = { 
/**
 * Each round's median per operation, overhead subtracted, in nanoseconds, in the order the
 * rounds ran.
 */
medians_ns: Array<number>, 
/**
 * How many separate processes the rounds ran in: one per round, or 1 when they all ran in
 * the bench binary's own process (`--in-process`), whose interval then cannot see what
 * differs between processes.
 */
processes: number, 
/**
 * The interval was widened to how far this case's estimate moves between runs on this
 * machine, learnt from the history ([`Reproducibility`]): a machine whose speed drifts
 * over minutes moves a whole run, and no run's own rounds can see that.
 */
widened: boolean, 
/**
 * How far the machine's speed moves between whole runs, learnt from the probes of the
 * earlier runs stored on this machine (five at least): the standard deviation of one run's
 * log figure, which the interval holds beside what the case's own run strays from it.
 * Absent while it is assumed (no history, or too few runs with a probe: docs/measurement.md,
 * §7), and from engines that predate the field.
 */
machine_sd?: number, };

/**
 * Which earlier runs the spread between runs was learnt from.
 */
export type SpreadSource = "same_code" | "any_code";

/**
 * Heap allocations made by one operation, counted outside the timed samples.
 */
export type Allocations = { 
/**
 * Allocations (including reallocations) per operation.
 */
per_op: number, 
/**
 * Bytes requested per operation.
 */
bytes_per_op: number, };

/**
 * What callgrind's cache simulation (`--cache-sim=yes`) saw per operation of a counted case,
 * the empty body's subtracted as for the instructions: each memory access (instruction
 * fetches, data reads and writes) served by the first-level caches, the last-level cache, or
 * main memory; and the cycles those suggest, by gungraun's (formerly iai's) formula
 * `L1 hits + 5 × LL hits + 35 × RAM hits`. An estimate from a simulated cache, not a
 * measured time.
 */
export type CacheSimulation = { 
/**
 * Accesses served by the first-level caches.
 */
l1_hits: number, 
/**
 * Accesses that missed the first level and were served by the last-level cache.
 */
ll_hits: number, 
/**
 * Accesses that missed every cache.
 */
ram_hits: number, 
/**
 * `l1_hits + 5 × ll_hits + 35 × ram_hits`.
 */
estimated_cycles: number, };

/**
 * Where and how a run was measured: enough to judge whether two runs can be compared.
 */
export type Manifest = { 
/**
 * Version of the knotmeter engine that measured.
 */
knotmeter_version: string, 
/**
 * `rustc --version` of the compiler that built the engine.
 */
rustc: string, 
/**
 * Cargo profile the engine was built with (`release` for `cargo bench`).
 */
profile: string, 
/**
 * Optimisation level (`0`..`3`, `s`, `z`).
 */
opt_level: string, 
/**
 * Whether debug assertions were on in the bench target.
 */
debug_assertions: boolean, 
/**
 * Target triple.
 */
target: string, 
/**
 * CPU model name, where the OS tells it.
 */
cpu: string, 
/**
 * Logical cores available to the process.
 */
cores: number, 
/**
 * The clock used for timing.
 */
timer: TimerInfo, 
/**
 * `git rev-parse HEAD` of the working directory, where there is one.
 */
git_commit: string | null, 
/**
 * Whether the working directory had uncommitted changes to tracked files (`git status`),
 * so that the code measured may differ from `git_commit`; absent where that is not known
 * (no git, or a knotmeter that did not record it).
 */
git_dirty?: boolean | null, 
/**
 * Seconds since the Unix epoch when the run started.
 */
timestamp: number, 
/**
 * Seed of the random sample-length jitter.
 */
seed: number, 
/**
 * Time budget per case, in milliseconds (1000 by default, 100 with `--quick`).
 */
budget_ms: number, 
/**
 * The stopping rule's target for the median's relative half-width (0.01 = ±1%).
 */
target_precision: number, 
/**
 * What the run measured: `time` (absent, as from every engine before counts) or
 * `instructions` (`--measure instructions`).
 */
measure?: Measure, 
/**
 * Environment warnings (debug build, frequency scaling), each with a stable code.
 */
warnings: Array<Warning>, };

/**
 * The calibrated timer.
 */
export type TimerInfo = { 
/**
 * `instant` (the OS monotonic clock) or `tsc` (the x86_64 time-stamp counter).
 */
kind: string, 
/**
 * Smallest non-zero difference observed between two reads, in nanoseconds.
 */
precision_ns: number, 
/**
 * Cost of one read of the timer, in nanoseconds.
 */
read_cost_ns: number, };

/**
 * The document printed by `--list --format json`.
 */
export type ListDocument = { 
/**
 * Always [`crate::VERSION`].
 */
version: number, 
/**
 * Every case the binary would run with the same filters, in run order.
 */
cases: Array<ListEntry>, };

/**
 * One runnable case.
 */
export type ListEntry = { 
/**
 * The case id (see [`crate::case_id`]).
 */
id: string, 
/**
 * The id of the benchmark function the case belongs to.
 */
bench_id: string, 
/**
 * The benchmark function's name.
 */
name: string, 
/**
 * The canonical argument text, or `null`.
 */
args: string | null, 
/**
 * The comparison group, or `null`.
 */
group: string | null, 
/**
 * Whether the case is its group's baseline.
 */
baseline: boolean, 
/**
 * Source file as `file!()` spells it.
 */
file: string, 
/**
 * 1-based line of the function's name.
 */
line: number, };

/**
 * One line of `--format jsonl`. The `event` field names the variant.
 */
export type Event = { "event": "run_started", 
/**
 * Always [`crate::VERSION`].
 */
version: number, 
/**
 * Where and how the run is measured.
 */
manifest: Manifest, 
/**
 * The cases that will run.
 */
cases: Array<ListEntry>, } | { "event": "case_started", 
/**
 * The case id.
 */
id: string, } | { "event": "progress", 
/**
 * The case id.
 */
id: string, 
/**
 * Workload samples taken so far.
 */
samples: number, 
/**
 * Fraction of the case's time budget spent, 0 to 1.
 */
fraction: number, 
/**
 * The longest single step of this case so far, in nanoseconds: the cold call, one
 * warm-up or tuning batch, or one sample. A consumer that has heard nothing for much
 * longer than this (and than its own floor) may take the case for hung; a slow case
 * is told from a hang this way, not by a fixed wall time. `null` before the first
 * step ends, and from engines that predate the field.
 */
longest_step_ns: number | null, } | { "event": "case_finished", 
/**
 * The result, the same object as in `--format json`.
 */
result: BenchResult, } | { "event": "case_failed" } & CaseFailure | { "event": "bench_finished" } & BenchSummary | { "event": "case_compared", 
/**
 * The case id.
 */
id: string, 
/**
 * The comparison and its verdict.
 */
comparison: Comparison, } | { "event": "run_finished" } & RunSummary;

/**
 * Why a case produced no result.
 */
export type CaseFailure = { 
/**
 * The case id.
 */
id: string, 
/**
 * What went wrong.
 */
kind: FailureKind, 
/**
 * The panic message or error text.
 */
message: string, 
/**
 * `file:line:column` of the panic, where known.
 */
location: string | null, };

/**
 * The kind of a case failure.
 */
export type FailureKind = "panic" | "cancelled" | "misuse" | "crashed" | "hung";

/**
 * Totals at the end of a run.
 */
export type RunSummary = { 
/**
 * Cases that produced a complete result.
 */
passed: number, 
/**
 * Cases that failed (a panic, or a benchmark declared wrongly).
 */
failed: number, 
/**
 * Cases the cancel cut short: a partial result, or none when the case had not taken a
 * sample yet (`case_failed` with kind `cancelled`). Counted in neither `passed` nor
 * `failed`; 0 from engines that predate the field, which counted partial results as passed.
 */
partial: number, 
/**
 * True when the run was cancelled before every case finished.
 */
cancelled: boolean, 
/**
 * Wall time of the whole run in nanoseconds.
 */
wall_ns: number, 
/**
 * The machine's probe: a fixed chain the engine measured in every round of the run, whose
 * code is the same in every build made by the same engine and compiler (absent from
 * engines that predate it, and from a run that measured nothing).
 */
probe?: MachineProbe | null, };

/**
 * How fast the machine ran a fixed chain of arithmetic during a run, measured in a slot of
 * every round beside the cases: what moves every case of a run at once shows in it too.
 */
export type MachineProbe = { 
/**
 * Nanoseconds per step of the chain: the geometric mean of the rounds' medians.
 */
ns_per_step: number, 
/**
 * The lower end of its 95% interval, made as a case's is (where a rerun's probe should
 * land).
 */
low_ns: number, 
/**
 * Its upper end.
 */
high_ns: number, 
/**
 * Each round's median, nanoseconds per operation (a thousand steps).
 */
rounds: Rounds, 
/**
 * What compiled the chain: the engine's version, the compiler and the optimisation level
 * (`knotmeter 0.1.0, rustc 1.91.0 (…), opt-level 3`). Two runs' probes measure the same
 * code only when this is the same; a comparison or a learnt spread never puts two
 * different ones side by side. Empty from engines that predate it.
 */
build: string, };

/**
 * The analysis of one benchmark function across its `args` cases.
 */
export type BenchSummary = { 
/**
 * The benchmark's id (its cases' ids without `/arg`).
 */
id: string, 
/**
 * The function's name.
 */
name: string, 
/**
 * The fitted complexity, with three or more numeric arguments; `null` otherwise.
 */
complexity: ComplexityFit | null, 
/**
 * Scaling warnings such as `flat_scaling`, each with a stable code.
 */
warnings: Array<Warning>, 
/**
 * The cases with a numeric argument the analysis used, by increasing argument (absent
 * from engines that predate the field).
 */
points?: Array<ScalingPoint>, };

/**
 * One case of a scaling analysis: its numeric argument and its median.
 */
export type ScalingPoint = { 
/**
 * The case id.
 */
id: string, 
/**
 * The argument's value (`1<<10` is 1024).
 */
n: number, 
/**
 * The case's median per operation, in nanoseconds.
 */
median_ns: number, 
/**
 * Lower bound of the median's 95% interval, in nanoseconds.
 */
low_ns: number, 
/**
 * Upper bound of the median's 95% interval, in nanoseconds.
 */
high_ns: number, };

/**
 * Complexity classes fitted to the medians of an `args` benchmark, ranked by AICc (plain AIC
 * with four points or fewer).
 */
export type ComplexityFit = { 
/**
 * The class reported: the simplest of the classes that fit about equally well, and
 * `O(1)` for a benchmark whose cost does not grow (`flat_scaling`). E.g. `O(n)`.
 */
best: string, 
/**
 * The best-ranked class other than `best`, where one could be fitted.
 */
runner_up: string | null, 
/**
 * Whether the best beats every other class by the criterion's margin (AICc 2, or plain
 * AIC 10 with too few points for AICc).
 */
distinguishable: boolean, 
/**
 * Every class within that margin of the best-fitting one, simplest first: the classes
 * the data cannot tell apart. `best` is the simplest of them (just `best` when it is
 * distinguishable; absent from engines that predate the field).
 */
candidates?: Array<string>, 
/**
 * Every class, best first.
 */
fits: Array<ClassFit>, };

/**
 * One fitted class: time ≈ intercept + coefficient · g(n).
 */
export type ClassFit = { 
/**
 * The class, e.g. `O(n log n)`.
 */
class: string, 
/**
 * Nanoseconds per unit of g(n).
 */
coefficient_ns: number, 
/**
 * Nanoseconds independent of n.
 */
intercept_ns: number, 
/**
 * The small-sample corrected Akaike criterion; `null` where it is undefined (too few
 * points for the model, or g(n) overflows).
 */
aicc: number | null, };

/**
 * The document printed by `--format json`: everything one run of a bench binary measured.
 */
export type Report = { 
/**
 * Always [`VERSION`] for documents written by this crate.
 */
version: number, 
/**
 * Where and how the run was measured.
 */
manifest: Manifest, 
/**
 * One entry per measured case, in run order.
 */
results: Array<BenchResult>, 
/**
 * Cases that did not produce a result (a panic), in run order.
 */
failures: Array<CaseFailure>, 
/**
 * Per-function analyses across `args` cases (complexity, scaling warnings).
 */
benches: Array<BenchSummary>, 
/**
 * The machine's probe over the run (as in `run_finished`), when it was measured.
 */
probe?: MachineProbe | null, };

/**
 * A profile of one case's timed region.
 */
export type Profile = { 
/**
 * The case profiled.
 */
id: string, 
/**
 * The profiler.
 */
tool: ProfileTool, 
/**
 * What the costs count: `instructions` (callgrind) or `ns` of CPU time (perf).
 */
unit: string, 
/**
 * The operations the region held: the costs per operation are the totals over this.
 */
operations: number, 
/**
 * The region's total, per operation.
 */
totalPerOp: number, 
/**
 * The samples the costs come from (perf): a share of `s` from `n` samples is known to
 * about ±2·√(s(1−s)/n). Absent from a count (callgrind), which is exact.
 */
samples?: number, 
/**
 * The functions with a cost, the costliest (own) first.
 */
functions: Array<ProfiledFunction>, 
/**
 * The workspace's own source lines with a cost, the costliest first: the lines an editor
 * marks.
 */
lines: Array<ProfiledLine>, 
/**
 * How the region's costs nest, for a flame graph: its entry's frame and everything below
 * it. Absent from profiles made before it was (docs/profile.md, "The call tree").
 */
tree?: CallFrame, };

/**
 * One frame of a profile's call tree: a function, or a recursive cycle of functions folded
 * into one (`cycle: a ⇄ b`).
 */
export type CallFrame = { 
/**
 * The function's name, demangled (callgrind's recursion level `'2` taken off).
 */
name: string, 
/**
 * What it and everything below it cost, per operation: the frame's width.
 */
valuePerOp: number, 
/**
 * What it cost itself, per operation (callees too narrow to draw included).
 */
ownPerOp: number, 
/**
 * Its width is an estimate: it or a frame above it is called from several places, and a
 * count of calls does not say how their costs split (docs/profile.md).
 */
estimated?: boolean, 
/**
 * The workspace source line it spends most on, to go to.
 */
line?: ProfiledLine, 
/**
 * Its callees, the widest first.
 */
children?: Array<CallFrame>, };

/**
 * The profiler a profile comes from.
 */
export type ProfileTool = "callgrind" | "perf";

/**
 * One function's share of a profile.
 */
export type ProfiledFunction = { 
/**
 * The function's name, demangled.
 */
name: string, 
/**
 * What it cost itself (code inlined into it included), per operation, in the profile's
 * unit.
 */
ownPerOp: number, 
/**
 * Its share of the region's total, from 0 to 1.
 */
ownShare: number, 
/**
 * What it and everything it called cost, per operation.
 */
inclusivePerOp: number, 
/**
 * The workspace source line it spends most on, when it has one: where to go from it.
 */
line?: ProfiledLine, };

/**
 * One source line's share of a profile.
 */
export type ProfiledLine = { 
/**
 * The source file, absolute.
 */
file: string, 
/**
 * The line, from 1.
 */
line: number, 
/**
 * What the line's own code cost, per operation (in whichever function it was inlined
 * into).
 */
ownPerOp: number, 
/**
 * What the calls made from the line cost, per operation (the callees and all they called).
 */
callsPerOp: number, 
/**
 * The line's share of the region's total, own and calls together, from 0 to 1.
 */
share: number, };

/**
 * One case profiled on two builds (`knotmeter compare --profile`): both profiles, and the
 * functions whose own cost changed most.
 */
export type ProfileComparison = { 
/**
 * The case.
 */
id: string, 
/**
 * The base as results name it (`main (9f8e7d6c5b)`).
 */
baseLabel: string, 
/**
 * The head as results name it (`working tree`).
 */
headLabel: string, 
/**
 * The base's profile.
 */
base: Profile, 
/**
 * The head's profile.
 */
head: Profile, 
/**
 * Every function in either profile, the largest change of own cost per operation first.
 */
changes: Array<FunctionChange>, };

/**
 * How one function's own cost differs between the two profiles of a [`ProfileComparison`].
 */
export type FunctionChange = { 
/**
 * The function's name, demangled.
 */
name: string, 
/**
 * Its own cost per operation in the base; absent when the base's profile does not list
 * it (it ran under a thousandth of the region there, or not at all).
 */
basePerOp?: number, 
/**
 * Its own cost per operation in the head; absent as for the base.
 */
headPerOp?: number, 
/**
 * Its share of the base's region, 0 when absent.
 */
baseShare: number, 
/**
 * Its share of the head's region, 0 when absent.
 */
headShare: number, };

/**
 * The document `knotmeter compare --format json` prints, and what the history stores of a
 * comparison: two builds of the same benchmarks, case by case.
 */
export type CompareReport = { 
/**
 * [`crate::VERSION`].
 */
version: number, 
/**
 * The build compared against.
 */
base: CompareSide, 
/**
 * The build under test (the working tree, or `--head REV`).
 */
head: CompareSide, 
/**
 * Every case of either side, in the head's order (removed cases last).
 */
cases: Array<ComparedCase>, 
/**
 * The run was cancelled before every case was compared.
 */
cancelled: boolean, 
/**
 * The comparison's id in the history, when it was stored.
 */
stored?: number | null, };

/**
 * One side of a comparison.
 */
export type CompareSide = { 
/**
 * What the user named it: `main`, `HEAD`, `working tree`.
 */
label: string, 
/**
 * Its commit (the head's `HEAD` commit for a working tree), when in a git repository.
 */
commit: string | null, 
/**
 * The working tree had uncommitted changes (head only).
 */
dirty: boolean, 
/**
 * The manifest of a bench binary of this side (the first one started).
 */
manifest: Manifest | null, };

/**
 * One case of a comparison.
 */
export type ComparedCase = { 
/**
 * The case id.
 */
id: string, 
/**
 * What became of it.
 */
status: CompareStatus, 
/**
 * The base side's result.
 */
base: BenchResult | null, 
/**
 * The head side's result.
 */
head: BenchResult | null, 
/**
 * The paired comparison and its verdict (`status` is `compared`).
 */
comparison: Comparison | null, 
/**
 * Why it was not compared, or how it failed.
 */
note: string | null, 
/**
 * Where the head build's failure points in the sources (a panic's place), when the head
 * failed; not stored in the history.
 */
location?: SourceLocation, };

/**
 * What became of one case of a comparison.
 */
export type CompareStatus = "compared" | "not_compared" | "added" | "removed" | "failed" | "skipped";
