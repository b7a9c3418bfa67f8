// How results and the extension read in VS Code: the one module that holds every sentence the
// extension shows. What a result, a verdict or a warning says is decided by the daemon (the
// knotmeter-format crate) and arrives as `Shown` with every result; here it is only laid out: the
// description of a Test Explorer row, the messages of a warned case, the annotation of an `args`
// benchmark, the status bar's counts, the extension's own lines in Test Results
// (`terminalLine`). The few numbers drawn here (chart axes, the panel's table) use `formatNs`,
// which prints durations exactly as the Rust side does (checked against the shared fixtures in
// format/tests/fixtures). The extension's own words (run labels, the daemon's absence, the status
// bar, commands, the results panel's page) are the second half: the other modules call them and
// write none of their own. Pure (no `vscode`), shared with the webview bundle.

import type { Measure, Outcome, RunMode, Shown, ShownNote, Verdict } from "./wire";

/** What the extension keeps of a measured case: the daemon's presentation of it. */
export interface Presented {
  /** The case's argument text, for a case of an `args` benchmark. */
  args: string | null;
  /** The verdict of its comparison, if it was compared. */
  verdict: Verdict | null;
  shown: Shown;
}

/** Shown in place of a number that does not exist. */
export const MISSING = "—";

/**
 * A duration in nanoseconds with three significant digits and a unit, as knotmeter-format's
 * `format_duration_ns`: `0.31 ns`, `12.3 ns`, `1.23 µs`, `45.6 ms`, `1.20 s`, `1 234 s`.
 */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return MISSING;
  if (ns === 0) return "0 ns";
  const sign = ns < 0 ? "-" : "";
  let value = Math.abs(ns);
  if (value < 1) {
    const text = value.toFixed(2);
    if (text !== "1.00") return `${sign}${text} ns`;
  }
  const units = ["ns", "µs", "ms", "s"];
  for (let i = 0; i < units.length; i++) {
    const text = threeSignificant(value);
    if (text !== undefined) return `${sign}${text} ${units[i]}`;
    if (i + 1 < units.length) value /= 1000;
  }
  return `${sign}${groupDigits(Math.round(value))} s`;
}

/**
 * A count of instructions, as knotmeter-format's `format_instructions`: whole and grouped below a
 * million (`5 515 instr`, one decimal below ten: `2.5 instr`), then three significant digits
 * (`1.23 M instr`, `45.6 G instr`).
 */
export function formatCount(count: number): string {
  if (!Number.isFinite(count) || count < 0) return MISSING;
  if (count < 10 && !Number.isInteger(count)) return `${count.toFixed(1)} instr`;
  if (count < 999_999.5) return `${groupDigits(Math.round(count))} instr`;
  let value = count / 1e6;
  for (const unit of ["M", "G", "T"]) {
    const text = threeSignificant(value);
    if (text !== undefined) return `${text} ${unit} instr`;
    value /= 1000;
  }
  return `${groupDigits(Math.round(value * 1000))} T instr`;
}

/** A figure of `measure`: a duration in nanoseconds, or a count of instructions. */
export function formatMeasure(value: number, measure: Measure | null | undefined): string {
  return measure === "instructions" ? formatCount(value) : formatNs(value);
}

/** Whether a stored run counted instructions: its machine key ends with `|instructions` (docs/instructions.md). */
export function countedKey(machineKey: string): boolean {
  return machineKey.endsWith("|instructions");
}

/** `value` (at least about 1) with three significant digits, or undefined when it rounds to 1000. */
function threeSignificant(value: number): string | undefined {
  for (const [decimals, limit] of [
    [2, 10],
    [1, 100],
    [0, 1000],
  ] as const) {
    const text = value.toFixed(decimals);
    if (Number(text) < limit) return text;
  }
  return undefined;
}

/** `n` with a space between groups of three digits: `12 345 678`. */
export function groupDigits(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** A ratio of times as the tables print it: `0.599×`, `—` when there is none. */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(3)}×` : MISSING;
}

/**
 * A run's measuring mode from its time budget per case, as knotmeter-format's `mode_label`:
 * `quick` (100 ms), `full` (1 s), `2.50 s per case`, `—` when unknown.
 */
export function modeLabel(budgetMs: number | null | undefined): string {
  if (budgetMs === null || budgetMs === undefined) return MISSING;
  if (budgetMs === 100) return "quick";
  if (budgetMs === 1000) return "full";
  return `${formatNs(budgetMs * 1e6)} per case`;
}

/** Whether a note says the figure may be wrong (`warning`) or is only worth knowing (`info`). */
export function isDefect(note: Pick<ShownNote, "severity">): boolean {
  return note.severity !== "info";
}

/**
 * The label of a Test Explorer row: its name, then its result. VS Code names a row by its
 * description when it has one, so the result goes in the label and a screen reader hears the
 * benchmark's name first.
 */
export function rowLabel(name: string, line: string | undefined): string {
  return line ? `${name} · ${line}` : name;
}

/**
 * A line of the extension's own text as `TestRun.appendOutput` wants it: Test Results is a
 * terminal, where a line ends with `\r\n` (a bare `\n` moves down without going back to the
 * start of the line), so every line break in `text` becomes one and one ends it. The daemon's
 * `knotmeter/output` comes with `\r\n` already (the protocol's) and is written as it came.
 */
export function terminalLine(text: string): string {
  return `${text.replace(/\r?\n/g, "\r\n")}\r\n`;
}

/**
 * The messages of a case that is not a pass: one per warning (its own or its benchmark's),
 * each followed by the whole account; a partial result says so.
 */
export function failureMessages(shown: Shown): string[] {
  const defects = shown.notes.filter((n) => isDefect(n) && n.code !== "partial");
  if (shown.outcome === "partial") {
    return [`partial: the run was cancelled while this case was measured\n\n${shown.detail}`];
  }
  return defects.map((n) => `${n.text.replace(/^⚠ /, "")}\n\n${shown.detail}`);
}

/**
 * The annotation after a benchmark's signature: its line when it has one case; for `args`
 * cases each case's figure, then how many got faster or slower, then how many are warned.
 */
export function annotationText(cases: readonly Presented[]): string | undefined {
  if (cases.length === 0) return undefined;
  if (cases.length === 1 && cases[0]!.args === null) return cases[0]!.shown.line;
  const figures = cases.map((c) => `${c.args ?? "·"}: ${c.shown.figure}`);
  const verdicts = cases.map((c) => c.verdict).filter((v) => v === "faster" || v === "slower");
  let text = figures.join(" · ");
  if (verdicts.length > 0) {
    const faster = verdicts.filter((v) => v === "faster").length;
    const slower = verdicts.length - faster;
    text += ` · ${[faster ? `${faster} faster` : "", slower ? `${slower} slower` : ""].filter(Boolean).join(", ")}`;
  }
  const warned = cases.filter((c) => c.shown.outcome !== "passed").length;
  if (warned > 0) text += ` · ⚠ ${warned} warned`;
  const notes = [...new Set(cases.flatMap((c) => c.shown.notes.filter((n) => n.bench && isDefect(n)).map((n) => n.code)))];
  if (notes.length > 0) text += ` (${notes.join(", ")})`;
  return text;
}

/** How the items of a run ended, warned items apart from passed ones. */
export interface Tally {
  passed: number;
  warned: number;
  partial: number;
  failed: number;
  errored: number;
  skipped: number;
}

export function emptyTally(): Tally {
  return { passed: 0, warned: 0, partial: 0, failed: 0, errored: 0, skipped: 0 };
}

/** Counts a measured item by its outcome. */
export function countOutcome(tally: Tally, outcome: Outcome): void {
  tally[outcome]++;
}

/** The counts as knotmeter-format's `Tally::text` words them: `6 passed, 2 warned, 10 skipped`. */
export function tallyText(tally: Tally): string {
  const words = (["passed", "warned", "partial", "failed", "errored", "skipped"] as const)
    .filter((k) => tally[k] > 0)
    .map((k) => `${tally[k]} ${k}`);
  return words.length > 0 ? words.join(", ") : "nothing ran";
}

/**
 * Axis labels for duration ticks (or, with `measure` `instructions`, count ticks): one unit for
 * the axis (from its largest tick) and as many decimals as the tick spacing needs, so
 * neighbouring labels never read the same.
 */
export function axisNs(ticks: readonly number[], measure: Measure = "time"): string[] {
  const finite = ticks.filter((t) => Number.isFinite(t));
  if (finite.length === 0) return ticks.map(() => "");
  const max = Math.max(...finite.map(Math.abs));
  const [scale, unit] =
    measure === "instructions"
      ? max >= 1e9
        ? [1e9, "G instr"]
        : max >= 1e6
          ? [1e6, "M instr"]
          : [1, "instr"]
      : max >= 1e9
        ? [1e9, "s"]
        : max >= 1e6
          ? [1e6, "ms"]
          : max >= 1e3
            ? [1e3, "µs"]
            : [1, "ns"];
  let step = Infinity;
  for (let i = 1; i < finite.length; i++) step = Math.min(step, Math.abs(finite[i]! - finite[i - 1]!));
  const decimals = Number.isFinite(step) && step > 0 ? Math.min(6, Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9))) : 2;
  return ticks.map((t) => (Number.isFinite(t) ? `${(t / scale).toFixed(decimals)} ${unit}` : ""));
}

// ---------------------------------------------------------------------------------------------
// The extension's own words: what it shows that is not a result.

/** The output channel of the runs, and the one of the daemon's own log. */
export const OUTPUT_CHANNEL = "knotmeter";
export const DAEMON_CHANNEL = "knotmeter daemon";

/** The Test Explorer's name for the benchmarks. */
export const CONTROLLER_LABEL = "knotmeter benchmarks";

/** The label of a run the daemon started by itself (run-on-save), and of one not named yet. */
export const ON_SAVE = "on save";

/**
 * A run's label, also its profile's name: `Run`, `Run (quick)`, `on save` for a run on save,
 * `Compare with main` for a comparison with `base` (`Compare with base` for the default, empty).
 */
export function runLabel(mode: RunMode, background: boolean, base?: string, profile = false, count = false): string {
  if (profile) return base !== undefined ? `Compare profiles with ${base || "base"}` : "Profile";
  if (count) return "Count instructions";
  if (base !== undefined) return `Compare with ${base || "base"}`;
  if (background) return ON_SAVE;
  return mode === "quick" ? "Run (quick)" : "Run";
}

/** The title of a run in Test Results: `knotmeter Run`, or `knotmeter (on save)` for one the daemon started. */
export function runTitle(label: string, byDaemon = false): string {
  return byDaemon ? `knotmeter (${label})` : `knotmeter ${label}`;
}

/** The title of a run refused because the workspace is not trusted. */
export const UNTRUSTED_RUN_TITLE = "knotmeter (workspace not trusted)";

/** The output channel's line before a run's output: `━━ knotmeter Run · run 3 · 10:42:07 ━━`. */
export function runHeader(label: string, runId: number, time: string): string {
  return `━━ knotmeter ${label} · run ${runId} · ${time} ━━`;
}

/** The output channel's line after a run's output; `why` when the daemon did not end it itself. */
export function runFooter(runId: number, why?: string): string {
  return why ? `━━ run ${runId} ended: ${why} ━━` : `━━ run ${runId} ended ━━`;
}

/** Why an item failed or errored when the daemon did not say. */
export const BENCH_FAILED = "the benchmark failed";
export const BENCH_NOT_RUN = "the benchmark could not be built or run";

/** The annotation while a benchmark is measured, with its last result when it has one. */
export function measuringText(last: string | undefined): string {
  return last ? `⏱ measuring… · last ${last}` : "⏱ measuring…";
}

/** The annotation of a benchmark whose file was edited after its result. */
export function editedSince(text: string): string {
  return `${text} (edited since)`;
}

/** How to get a daemon, for the messages shown when none is found. */
export const INSTALL_HINT =
  "Install it from the knotmeter repository with `cargo install --path server` (it installs the " +
  "`knotmeter` binary on PATH), or build it with `cargo build -p knotmeter-server` and set " +
  "`knotmeter.server.path` to target/debug/knotmeter.";

/** The buttons of the messages about a missing daemon. */
export const OPEN_SETTINGS = "Open Settings";
export const COPY_INSTALL_COMMAND = "Copy install command";

/** The `knotmeter: Install Help` command's message. */
export const INSTALL_HELP = `knotmeter: ${INSTALL_HINT}`;

/** Why no daemon was found: a setting that names no executable. */
export function settingNotExecutable(setting: string): string {
  return `knotmeter.server.path is set to "${setting}", which is not an executable file`;
}

/** Why no daemon was found after looking on PATH (and, when trusted, in the target dirs). */
export function daemonNotFound(trusted: boolean): string {
  return trusted
    ? "the knotmeter daemon was not found"
    : "the knotmeter daemon is not on PATH (in an untrusted workspace, binaries inside the workspace are not started)";
}

/** The error shown when no daemon was found: why, then how to get one. */
export function noDaemon(reason: string): string {
  return `knotmeter: ${reason}. ${INSTALL_HINT}`;
}

/** The error shown when the daemon at `command` did not start. */
export function daemonFailed(command: string, e: unknown): string {
  return `knotmeter: the daemon ${command} did not start: ${String(e)}`;
}

/** On each item of a run asked for while no daemon runs, and in Test Results (`seeOutput`). */
export function daemonDown(seeOutput = false): string {
  return seeOutput ? "The knotmeter daemon is not running: see the knotmeter output channel." : "The knotmeter daemon is not running.";
}

/** In Test Results, ending the runs of a daemon that went away. */
export const DAEMON_STOPPED = "the daemon stopped";

/** On each item of a run the daemon refused: `knotmeter/run failed: …`. */
export function requestFailed(method: string, e: unknown): string {
  return `${method} failed: ${String(e)}`;
}

/** Why nothing runs in an untrusted workspace. */
export const UNTRUSTED =
  "knotmeter does not build or run benchmarks in an untrusted workspace: building and running " +
  "execute the workspace's code (build scripts, procedural macros, the benchmarks themselves). " +
  "Benchmarks are still discovered. Trust the workspace to run them.";

/** The button that opens Workspace Trust. */
export const MANAGE_TRUST = "Manage Workspace Trust";

/** Where a run command found nothing to run. */
export function noBenchmarks(where: "file" | "cursor"): string {
  return where === "file" ? "knotmeter: no benchmarks in this file." : "knotmeter: no benchmark at the cursor.";
}

/** The placeholder of the pick that asks which benchmark's results to show. */
export const PICK_BENCH = "Show the results of which benchmark?";

/** The "Results" code lens beside the daemon's "▶ Run". */
export const RESULTS_LENS = { title: "$(graph) Results", tooltip: "Open the knotmeter results panel for this benchmark" } as const;

/** What the status bar shows: the newest run in progress, or the last run's tally. */
export type StatusView =
  | { kind: "running"; label: string; done: number; total: number; what: string }
  | { kind: "idle"; last: string | undefined };

/** A status bar item's text and tooltip. */
export interface StatusText {
  text: string;
  tooltip: string;
}

/** The status bar's name in its context menu. */
export const STATUS_NAME = "knotmeter";

/** What a run in progress is doing: `building`, the case it measures, or `starting`. */
export function runActivity(building: boolean, current: string | undefined): string {
  return building ? "building" : current || "starting";
}

/** The status bar: `⟳ knotmeter 3/9 · chain_n/1000` (a click cancels), or `knotmeter · 6 passed`. */
export function statusText(view: StatusView): StatusText {
  if (view.kind === "running") {
    return {
      text: `$(loading~spin) knotmeter ${view.done}/${view.total} · ${view.what}`,
      tooltip: `knotmeter ${view.label}: ${view.done} of ${view.total} done. Click to cancel.`,
    };
  }
  return { text: `$(dashboard) knotmeter${view.last ? ` · ${view.last}` : ""}`, tooltip: "knotmeter: show the results panel" };
}

/** The status bar's word on why nothing can run: no daemon, or a workspace it may not build in. */
export function statusProblem(problem: "noDaemon" | "untrusted"): StatusText {
  return problem === "noDaemon"
    ? { text: "$(warning) knotmeter: no daemon", tooltip: `${daemonDown()} ${INSTALL_HINT}` }
    : {
        text: "$(workspace-untrusted) knotmeter: discover only",
        tooltip: "The workspace is not trusted: knotmeter discovers benchmarks but does not build or run them.",
      };
}

// ---------------------------------------------------------------------------------------------
// The results panel's words (its host, panel/data.ts and its page, panel/webview).

/** The panel's title before a benchmark is chosen, and with one. */
export const PANEL_TITLE = "knotmeter results";
export function panelTitle(bench: string): string {
  return `knotmeter: ${bench}`;
}

/** The page before any benchmark is chosen. */
export const NOTHING_SELECTED =
  "Select a benchmark: the code lens “Show results”, the Test Explorer's context menu, or the command “knotmeter: Show Results”.";

/** Why a benchmark has nothing to show yet, with what to do. */
export function noResultYet(trusted: boolean): string {
  return trusted
    ? "No result yet in this session: run the benchmark (the Run button, the gutter, or the Test Explorer)."
    : "This workspace is not trusted, so knotmeter does not run its benchmarks.";
}

/** The page's run button and the name of its case picker. */
export const RUN_BUTTON = "Run";
export const CASE_PICKER = "case";

/** The line above a case's charts: its label, then the daemon's line. */
export function caseSummary(label: string, line: string): string {
  return `${label}: ${line}`;
}

/** A chart's caption: its title and a note. */
export interface Caption {
  title: string;
  note: string;
}

/** The histogram's caption: how many samples, or none for a body indistinguishable from empty. */
export function distributionCaption(measured: boolean, samples: number): Caption {
  const note = measured ? `${samples} samples, after overhead subtraction` : "indistinguishable from empty";
  return { title: "Distribution of per-operation times", note };
}

/** The history chart's caption: how many stored runs. */
export function historyCaption(runs: number): Caption {
  const note = runs ? `${runs} runs; quick and full runs apart, as they are never compared` : "no stored history yet";
  return { title: "Estimate over past runs", note };
}

/** The scaling chart's caption, naming the fitted class when there is one. */
export function scalingCaption(fitted: string | undefined): Caption {
  const note = fitted ? `points: each case's median with its interval; line: the fitted ${fitted}` : "each case's median with its interval";
  return { title: "Median against n (log axes)", note };
}

/** The heading of an `args` benchmark's scaling. */
export function scalingHeading(complexity: string): string {
  return `Scaling: ${complexity}`;
}

/** The scaling's complexity when the engine fitted none. */
export const NO_FIT = "no complexity fit";

/** The summary line of a case the panel shows only for its profile: it has no result in this session. */
export const PROFILED_NOT_MEASURED = "Profiled, not measured in this session: run it for its time.";

/** In place of a chart: nothing measurable, no samples, no stored run, no stored median. */
export const NOTHING_TO_DRAW = "The body cannot be told apart from an empty one: there is no time to draw.";
export const NO_SAMPLES = "No samples.";
export const NO_HISTORY = "Run the benchmark again to see its history.";
export const NO_MEDIAN = "No stored run has a median to draw (indistinguishable from empty).";

/** The label at the estimate's line on the histogram. */
export function estimateLabel(median: number, measure: Measure = "time"): string {
  return `estimate ${formatMeasure(median, measure)}`;
}

/** Under the histogram: how many outlying samples it leaves out, or undefined when none. */
export function offChart(above: number, below: number): string | undefined {
  const off = [above ? `${above} slow` : "", below ? `${below} fast` : ""].filter(Boolean).join(" and ");
  return off ? `${off} outlying samples are off the chart (they are kept in the statistics).` : undefined;
}

/** A history series of stored runs from one of several machines: `full (machine 2)`. */
export function machineSeries(mode: string, nth: number): string {
  return `${mode} (machine ${nth})`;
}

/** What a screen reader hears of the history chart: its series. */
export function historyAria(series: readonly string[]): string {
  return `estimate over past runs: ${series.join(", ")}`;
}

/** What a screen reader hears of the scaling chart: each n's median, then the complexity. */
export function scalingAria(points: ReadonlyArray<{ label: string; median: number }>, complexity: string): string {
  return `median against n: ${points.map((p) => `n = ${p.label}: ${formatNs(p.median)}`).join("; ")}; ${complexity}`;
}

/** The columns of a comparison run's table, the base named. */
export function comparisonColumns(base: string): readonly [string, string, string, string, string] {
  return ["case", `base (${base})`, "head", "change [95% interval]", "verdict"];
}

/** The heading of a comparison run's table and its line of counts (the whole run's). */
export function comparisonHeading(heading: string): string {
  return `Compared: ${heading}`;
}
export function comparisonCounts(summary: string, cancelled: boolean): string {
  return `The whole run: ${cancelled ? `${summary} (cancelled)` : summary}`;
}

/** The columns of a comparison group's table. */
export const GROUP_COLUMNS = ["member", "estimate", "ratio", "against the baseline (1× in the middle)", "verdict"] as const;

/** The heading of a comparison group's table. */
export function groupHeading(name: string): string {
  return `Group “${name}”`;
}

/** A member of a group, the baseline marked. */
export function memberName(name: string, baseline: boolean): string {
  return baseline ? `${name} (baseline)` : name;
}

/** The verdict column of the group's baseline. */
export const BASELINE = "baseline";

/** The verdict column of a member the engine did not pair with the baseline: the ratio of medians. */
export function unpairedRatio(ratio: number): string {
  return `${formatRatio(ratio)} the baseline's median (not paired)`;
}

/** The flame graph's heading: what its widths are (a count's unit, or CPU time for perf's `ns`). */
export function flameHeading(unit: string): string {
  return unit === "ns"
    ? "Where the time goes: the call tree of the last profile (width: CPU time per operation, sampled, with what each frame calls)"
    : `Where the ${unit} go: the call tree of the last profile (width: ${unit} per operation, with what each frame calls)`;
}

/**
 * A cost per operation as `knotmeter profile` prints it (format/src/profile.rs's cost_text; the
 * shared table format/tests/fixtures/units.json pins both): a time for perf's `ns`, else the
 * count grouped and whole from ten up, one decimal below.
 */
export function costText(perOp: number, unit: string): string {
  if (unit === "ns") return `${formatNs(perOp)}/op`;
  const n = !Number.isFinite(perOp) || perOp < 0 ? "—" : perOp < 0.05 ? "<0.1" : perOp < 10 ? perOp.toFixed(1) : groupDigits(Math.round(perOp));
  return `${n} ${unit}/op`;
}

/** A signed change per operation as `knotmeter compare --profile` prints it: `+6 845 instructions/op`, `−1.20 µs/op`. */
export function signedCostText(change: number, unit: string): string {
  if (change === 0) return costText(0, unit).replace("<0.1", "0");
  return `${change > 0 ? "+" : "−"}${costText(Math.abs(change), unit)}`;
}

/** A frame's tooltip in the differential flame graph: the base's cost there, the head's, and the change. */
export function flameDiffLabel(name: string, base: number, head: number, unit: string): string {
  return `${name}: ${costText(base, unit)} → ${costText(head, unit)} with what it calls (${signedCostText(head - base, unit)})`;
}

/** The caption under the differential flame graph: how to read its colours. */
export const FLAME_DIFF_CAPTION = "The head's call tree, each frame as wide as in the head: red where it costs more than in the base, blue where less, grey where the same. A frame only the base has is not drawn; the functions whose own cost changed are in the run's output.";

/** A frame's tooltip in the flame graph: its name, its cost with what it calls and its own, and whether the split is an estimate. */
export function flameLabel(name: string, value: number, own: number, unit: string, estimated: boolean): string {
  const split = estimated ? " (an estimate: a caller above it is called from several places)" : "";
  return `${name}: ${costText(value, unit)} with what it calls, ${costText(own, unit)} itself${split}`;
}
