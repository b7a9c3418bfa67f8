// What the results panel shows, computed from the wire types: the message the extension host
// posts to the webview, and the pure computations both sides need (corrected samples,
// histogram bins, history series by mode, the group table and its ratio scale, the scaling
// view). Every text about a result is the daemon's `Shown`; numbers and the panel's own words
// (labels, the baseline's column) come from format.ts.
// Pure (no `vscode`, no DOM) and unit-tested.

import { BASELINE, NO_FIT, PROFILED_NOT_MEASURED, countedKey, machineSeries, modeLabel, unpairedRatio } from "../format";
import type { BenchResult, BenchSummary, CallFrame, HistoryPoint, Measure, Outcome, ProfileComparedParams, ProfiledParams, Severity, Shown, ShownComparedCase, ShownComparison, Verdict } from "../wire";

/** A note as the panel lists it: its mark and words are the daemon's. */
export interface PanelNote {
  severity: Severity;
  text: string;
}

/** The stored runs of a case measured in one mode on one machine: only these compare. */
export interface HistorySeries {
  /** `full`, `quick`, or the budget (`2.50 s per case`), with the machine when several. */
  label: string;
  /** Oldest first. */
  points: HistoryPoint[];
}

/** One case of the selected benchmark. */
export interface PanelCase {
  id: string;
  /** The `args` value, or the function name. */
  label: string;
  /** The daemon's one line: the figure with its ± (the interval over rounds), the verdict, warnings. */
  line: string;
  outcome: Outcome;
  /** What its figures are: times in nanoseconds, or instructions counted. */
  measure: Measure;
  median: number;
  low: number;
  high: number;
  /** False for a body indistinguishable from empty: its samples are not drawn as a figure. */
  measured: boolean;
  /** Per-operation samples after overhead subtraction, capped at zero, in time order. */
  samples: number[];
  notes: PanelNote[];
  /** Past runs of this case (`knotmeter/history`), one series per mode and machine. */
  history: HistorySeries[];
  /** Its last profile's call tree, for the flame graph. */
  flame?: FlameView;
  /** Its last profiles of two builds, for the differential flame graph. */
  flameDiff?: FlameDiffView;
  /** Shown for its profile alone: no result in this session, so no charts of times. */
  profiledOnly?: boolean;
}

/** A frame of the flame graph, as d3-flame-graph takes it (`name`, `value`, `children`). */
export interface FlameNode {
  name: string;
  /** What it and all below it cost per operation: its width. */
  value: number;
  /** What it cost itself per operation. */
  own: number;
  /** Its width is an estimate (a caller above it is called from several places). */
  estimated: boolean;
  /** The workspace line it spends most on, to open on a click. */
  file?: string;
  line?: number;
  children: FlameNode[];
}

/** A case's call tree as the panel draws it. */
export interface FlameView {
  /** What the profile counts, per operation: `instructions`. */
  unit: string;
  root: FlameNode;
}

/** The flame graph of a case's last profile, when it has a call tree. */
export function flameView(p: ProfiledParams | undefined): FlameView | undefined {
  const tree = p?.profile.tree;
  if (!p || !tree) return undefined;
  return { unit: p.profile.unit, root: flameNode(tree) };
}

function flameNode(f: CallFrame): FlameNode {
  const node: FlameNode = {
    name: f.name,
    value: f.valuePerOp,
    own: f.ownPerOp,
    estimated: f.estimated === true,
    children: (f.children ?? []).map(flameNode),
  };
  if (f.line) {
    node.file = f.line.file;
    node.line = f.line.line;
  }
  return node;
}

/**
 * A case with a profile but no result in this session (profiled, never run since the daemon
 * started): its flame graphs alone, and a line saying it was not measured, never a figure.
 */
export function profiledOnlyCase(id: string, label: string, flame: FlameView | undefined, flameDiff: FlameDiffView | undefined): PanelCase | undefined {
  if (!flame && !flameDiff) return undefined;
  return {
    id,
    label,
    line: PROFILED_NOT_MEASURED,
    outcome: "partial",
    measure: "time",
    median: Number.NaN,
    low: Number.NaN,
    high: Number.NaN,
    measured: false,
    samples: [],
    notes: [],
    history: [],
    profiledOnly: true,
    ...(flame ? { flame } : {}),
    ...(flameDiff ? { flameDiff } : {}),
  };
}

/** A frame of the differential flame graph: the head's frame, and what the base spent there. */
export interface FlameDiffNode extends FlameNode {
  /** The same path's cost per operation in the base (0 when the base has no such frame). */
  base: number;
  /** `value − base`: positive where the head costs more. */
  delta: number;
  children: FlameDiffNode[];
}

/** A case's profiles of two builds as the panel draws them: the head's tree, coloured by change. */
export interface FlameDiffView {
  /** What the profiles count, per operation: `instructions`, or `ns` of CPU time. */
  unit: string;
  /** The daemon's heading of the comparison (the totals, both builds, what was counted). */
  heading: string;
  /** The head's entry frame (the engine's timed loop). */
  root: FlameDiffNode;
}

/**
 * The differential flame graph of a comparison of profiles, when both have a call tree: the
 * head's tree (frames are as wide as in the head), each frame matched with the base's frame at
 * the same path of names. A frame only the base has is not drawn (the table of changes lists
 * it).
 */
export function flameDiffView(p: ProfileComparedParams | undefined): FlameDiffView | undefined {
  const head = p?.comparison.head.tree;
  if (!p || !head) return undefined;
  const base = p.comparison.base.tree;
  return { unit: p.comparison.head.unit, heading: p.heading, root: diffNode(head, base && base.name === head.name ? base : undefined) };
}

function diffNode(head: CallFrame, base: CallFrame | undefined): FlameDiffNode {
  const before = base?.valuePerOp ?? 0;
  const node: FlameDiffNode = {
    ...flameNode({ ...head, children: [] }),
    base: before,
    delta: head.valuePerOp - before,
    children: (head.children ?? []).map((c) => diffNode(c, base?.children?.find((b) => b.name === c.name))),
  };
  return node;
}

/**
 * A differential frame's colour: red as the head costs more than the base, blue as it costs
 * less, grey when the same, the strength the change's share of the frame (Brendan Gregg's
 * differential flame graphs; d3-flame-graph's differentialColorMapper).
 */
export function diffColor(value: number, delta: number): string {
  const size = Math.max(Math.abs(value), Math.abs(delta));
  const strength = size > 0 ? Math.min(1, Math.abs(delta) / size) : 0;
  const faded = Math.round(220 * (1 - strength));
  if (delta > 0) return `rgb(230, ${faded}, ${faded})`;
  if (delta < 0) return `rgb(${faded}, ${faded}, 230)`;
  return "rgb(220, 220, 220)";
}

/** One row of a comparison group's table. */
export interface GroupRow {
  id: string;
  name: string;
  baseline: boolean;
  /** The daemon's figure: the median, or `≈ 0 (indistinguishable from empty)`. */
  figure: string;
  /** Time relative to the baseline (below 1 is faster), with its interval where the engine paired them. */
  ratio: number;
  low?: number;
  high?: number;
  verdict?: Verdict;
  /** The daemon's verdict (`1.0% slower than sort_stable`), `baseline`, or a plain ratio of medians. */
  text: string;
}

/** The scaling of an `args` benchmark: median against n, and the fitted class. */
export interface ScalingView {
  /** The daemon's complexity text: `O(n)`, or the classes it cannot tell apart. */
  complexity: string;
  /** The reported class, for the fitted curve. */
  class?: string;
  points: Array<{ n: number; label: string; median: number; low: number; high: number }>;
  /** The fitted curve (intercept + coefficient · g(n)) at points spread over the range. */
  curve: Array<{ n: number; ns: number }>;
  notes: PanelNote[];
  /** A warning (`flat_scaling`) says the scaling is suspect. */
  warned: boolean;
  /** What the points are: times in nanoseconds, or instructions counted. */
  measure: Measure;
}

export interface PanelData {
  benchId: string;
  title: string;
  /** Set when there is nothing to show yet, with what to do. */
  empty?: string;
  cases: PanelCase[];
  group?: { name: string; rows: GroupRow[] };
  scaling?: ScalingView;
  /** The latest comparison run ("Compare with base") that took this benchmark's cases. */
  comparison?: ComparisonView;
}

/**
 * A comparison run's table for the panel: the daemon's words and figures (knotmeter-format),
 * laid out here. Only the selected benchmark's rows; the heading and counts are the run's.
 */
export interface ComparisonView {
  /** `working tree (HEAD 1a2b3c4d5e) against main (9f8e7d6c5b)`. */
  heading: string;
  /** The base's label: `main`. */
  base: string;
  /** The whole run's counts: `2 compared (1 slower, 0 faster, 1 same), 1 added`. */
  summary: string;
  cancelled: boolean;
  /** Compared cases first, in the run's order, then the rest (not compared, added, removed, failed, skipped). */
  rows: ShownComparedCase[];
}

export type ToWebview = { type: "data"; data: PanelData };
export type FromWebview = { type: "ready" } | { type: "run"; benchId: string } | { type: "open"; file: string; line: number };

/** The corrected per-operation samples: raw workload minus the overhead, capped at zero. */
export function correctedSamples(r: BenchResult): number[] {
  const o = r.overhead.per_op_ns;
  return r.raw.workload_ns.map((x) => Math.max(0, x - o));
}

/** A case for the panel from its result, the daemon's presentation, and its stored runs. */
export function panelCase(r: BenchResult, shown: Shown, history: HistoryPoint[]): PanelCase {
  const measured = !r.warnings.some((w) => w.code === "optimized_away");
  return {
    id: r.id,
    label: r.args ?? r.name,
    line: shown.line,
    outcome: shown.outcome,
    measure: r.measure ?? "time",
    median: r.estimate.median_ns,
    low: r.estimate.low_ns,
    high: r.estimate.high_ns,
    measured,
    samples: measured ? correctedSamples(r) : [],
    notes: shown.notes.map((n) => ({ severity: n.severity, text: n.text })),
    // Counts are drawn with counts and times with times, never on one axis.
    history: historySeries(history.filter((p) => countedKey(p.machineKey) === (r.measure === "instructions"))),
  };
}

/**
 * Stored runs split by what makes them comparable: the machine key, which holds the time
 * budget (a `--quick` run is never mixed with a full one). Each series oldest first, named by
 * its mode; the series with the newest run comes first.
 */
export function historySeries(points: readonly HistoryPoint[]): HistorySeries[] {
  const byKey = new Map<string, HistoryPoint[]>();
  for (const p of points) {
    const list = byKey.get(p.machineKey) ?? [];
    list.push(p);
    byKey.set(p.machineKey, list);
  }
  const series = [...byKey.values()].map((list) => list.sort((a, b) => Number(a.run) - Number(b.run)));
  series.sort((a, b) => Number(b[b.length - 1]!.run) - Number(a[a.length - 1]!.run));
  const labels = series.map((list) => modeLabel(list[0]!.budgetMs));
  return series.map((list, i) => {
    const same = labels.filter((l) => l === labels[i]).length;
    const nth = labels.slice(0, i + 1).filter((l) => l === labels[i]).length;
    return { label: same > 1 ? machineSeries(labels[i]!, nth) : labels[i]!, points: list };
  });
}

/** A member of a group as the table needs it. */
export interface Member {
  result: BenchResult;
  shown: Shown;
}

/**
 * The comparison table of a group: each member against the baseline. The engine's paired
 * comparison (ratio with interval and verdict, worded by the daemon) is used where it is
 * against the baseline; otherwise the ratio of the medians, without an interval or verdict.
 */
export function groupRows(members: readonly Member[]): GroupRow[] {
  const base = members.find((m) => m.result.baseline) ?? members[0];
  if (!base) return [];
  const baseMedian = base.result.estimate.median_ns;
  return members.map(({ result: m, shown }) => {
    const isBase = m.id === base.result.id;
    const row: GroupRow = {
      id: m.id,
      name: m.args ? `${m.name}/${m.args}` : m.name,
      baseline: isBase,
      figure: shown.figure,
      ratio: baseMedian > 0 ? m.estimate.median_ns / baseMedian : NaN,
      text: isBase ? BASELINE : "",
    };
    const c = m.comparison;
    if (!isBase && c && c.against === base.result.id) {
      row.ratio = c.ratio;
      row.low = c.low;
      row.high = c.high;
      row.verdict = c.verdict;
      row.text = shown.verdict ?? "";
    } else if (!isBase && Number.isFinite(row.ratio)) {
      row.text = unpairedRatio(row.ratio);
    }
    return row;
  });
}

/**
 * The scale of the ratio bars: centred on 1 (the baseline), reaching a little past the
 * farthest ratio or interval end, so that 1.000× and 1.010× look different. Returns the
 * position of a ratio on the bar, 0 to 100.
 */
export function ratioScale(rows: readonly GroupRow[]): (ratio: number) => number {
  let reach = 0.005;
  for (const r of rows) {
    for (const x of [r.ratio, r.low, r.high]) {
      if (x !== undefined && Number.isFinite(x)) reach = Math.max(reach, Math.abs(x - 1));
    }
  }
  reach *= 1.15;
  return (ratio) => Math.min(100, Math.max(0, ((ratio - (1 - reach)) / (2 * reach)) * 100));
}

/** g(n) of a complexity class, as the engine fits it (natural log). */
export function basis(cls: string, n: number): number | undefined {
  switch (cls) {
    case "O(1)":
      return 1;
    case "O(log n)":
      return Math.log(n);
    case "O(n)":
      return n;
    case "O(n log n)":
      return n * Math.log(n);
    case "O(n²)":
      return n * n;
    case "O(n³)":
      return n * n * n;
    case "O(2ⁿ)":
      return 2 ** n;
    default:
      return undefined;
  }
}

/**
 * The scaling view of an `args` benchmark from its analysis (the points and the fit) and the
 * daemon's presentation of one of its cases (the complexity's words and the benchmark's notes).
 */
export function scalingView(summary: BenchSummary, shown: Shown, labels: ReadonlyMap<string, string>, measure: Measure = "time"): ScalingView | undefined {
  const points = (summary.points ?? []).filter((p) => p.n > 0 && Number.isFinite(p.median_ns));
  if (points.length < 2) return undefined;
  const notes = shown.notes.filter((n) => n.bench);
  const view: ScalingView = {
    complexity: shown.scaling ?? NO_FIT,
    points: points.map((p) => ({ n: p.n, label: labels.get(p.id) ?? String(p.n), median: p.median_ns, low: p.low_ns, high: p.high_ns })),
    curve: [],
    notes: notes.map((n) => ({ severity: n.severity, text: n.text })),
    warned: notes.some((n) => n.severity !== "info"),
    measure,
  };
  const fit = summary.complexity?.fits.find((f) => f.class === summary.complexity?.best);
  if (fit) {
    view.class = fit.class;
    const lo = Math.log(points[0]!.n);
    const hi = Math.log(points[points.length - 1]!.n);
    for (let i = 0; i <= 40; i++) {
      const n = Math.exp(lo + ((hi - lo) * i) / 40);
      const g = basis(fit.class, n);
      if (g !== undefined && Number.isFinite(g)) view.curve.push({ n, ns: fit.intercept_ns + fit.coefficient_ns * g });
    }
  }
  return view;
}

/**
 * Histogram bins of the body of the samples: from the minimum (or the lower far fence) to the
 * 99th percentile or the upper far fence (Q3 + 3 IQR), whichever is lower, so that a few slow
 * outliers do not squeeze the distribution into one bar. Samples outside are counted.
 */
export interface Histogram {
  /** Left edges of the bins, in nanoseconds. */
  edges: number[];
  width: number;
  counts: number[];
  /** Samples above the last bin, counted but not drawn. */
  above: number;
  /** Samples below the first bin (far low outliers), counted but not drawn. */
  below: number;
}

export function histogram(samples: readonly number[], maxBins = 60): Histogram {
  const sorted = [...samples].filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { edges: [], width: 0, counts: [], above: 0, below: 0 };
  const q1 = sorted[Math.floor(sorted.length * 0.25)]!;
  const q3 = sorted[Math.floor(sorted.length * 0.75)]!;
  const iqr = q3 - q1;
  const lo = iqr > 0 ? Math.max(sorted[0]!, q1 - 3 * iqr) : sorted[0]!;
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
  const hi = iqr > 0 ? Math.min(p99, q3 + 3 * iqr) : p99;
  // Freedman–Diaconis, bounded so that the chart stays readable.
  const fd = (2 * (q3 - q1)) / Math.cbrt(sorted.length);
  let bins = fd > 0 ? Math.ceil((hi - lo) / fd) : 1;
  bins = Math.max(Math.min(bins, maxBins), Math.min(10, sorted.length));
  const width = hi > lo ? (hi - lo) / bins : Math.max(Math.abs(lo) * 0.01, 1e-3);
  const counts = new Array<number>(bins).fill(0);
  let above = 0;
  let below = 0;
  for (const x of sorted) {
    if (x > hi) {
      above++;
      continue;
    }
    if (x < lo) {
      below++;
      continue;
    }
    const i = Math.min(bins - 1, Math.floor((x - lo) / width));
    counts[i]!++;
  }
  return { edges: counts.map((_, i) => lo + i * width), width, counts, above, below };
}

/** Whether a case id (`pkg::bench/args`) or benchmark id belongs to the benchmark `benchId`. */
function ofBench(id: string, benchId: string): boolean {
  return id === benchId || id.startsWith(`${benchId}/`);
}

/**
 * The comparison table of `benchId` from a comparison run, or `undefined` when the run took
 * none of its cases. Nothing is reworded: a row is the daemon's.
 */
export function comparisonView(shown: ShownComparison, benchId: string): ComparisonView | undefined {
  const mine = shown.rows.filter((r) => ofBench(r.id, benchId));
  if (mine.length === 0) return undefined;
  const compared = mine.filter((r) => r.status === "compared");
  const rest = mine.filter((r) => r.status !== "compared");
  return { heading: shown.heading, base: shown.base, summary: shown.summary, cancelled: shown.cancelled, rows: [...compared, ...rest] };
}
