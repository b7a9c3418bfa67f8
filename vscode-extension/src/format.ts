// How results read in VS Code: the one module that turns results into text. What a result, a
// verdict or a warning says is decided by the daemon (the knotmeter-format crate) and arrives
// as `Shown` with every result; here it is only laid out: the description of a Test Explorer
// row, the messages of a warned case, the annotation of an `args` benchmark, the status bar's
// counts, the extension's own lines in Test Results (`terminalLine`). The few numbers drawn
// here (chart axes, the panel's table) use `formatNs`, which prints durations exactly as the
// Rust side does (checked against the shared fixtures in format/tests/fixtures). Pure (no
// `vscode`), shared with the webview bundle.

import type { Outcome, Shown, ShownNote, Verdict } from "./wire";

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
 * Axis labels for duration ticks: one unit for the axis (from its largest tick) and as many
 * decimals as the tick spacing needs, so neighbouring labels never read the same.
 */
export function axisNs(ticks: readonly number[]): string[] {
  const finite = ticks.filter((t) => Number.isFinite(t));
  if (finite.length === 0) return ticks.map(() => "");
  const max = Math.max(...finite.map(Math.abs));
  const [scale, unit] = max >= 1e9 ? [1e9, "s"] : max >= 1e6 ? [1e6, "ms"] : max >= 1e3 ? [1e3, "µs"] : [1, "ns"];
  let step = Infinity;
  for (let i = 1; i < finite.length; i++) step = Math.min(step, Math.abs(finite[i]! - finite[i - 1]!));
  const decimals = Number.isFinite(step) && step > 0 ? Math.min(6, Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9))) : 2;
  return ticks.map((t) => (Number.isFinite(t) ? `${(t / scale).toFixed(decimals)} ${unit}` : ""));
}
