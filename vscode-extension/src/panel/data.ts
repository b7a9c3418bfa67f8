// What the results panel shows, computed from the wire types: the message the extension host
// posts to the webview, and the pure computations both sides need (corrected samples,
// histogram bins, the group table). Pure (no `vscode`, no DOM) and unit-tested.

import { formatVerdict, summary } from "../format";
import type { BenchResult, HistoryPoint, Verdict } from "../wire";

/** One case of the selected benchmark. */
export interface PanelCase {
  id: string;
  /** The `args` value, or the function name. */
  label: string;
  summary: string;
  median: number;
  low: number;
  high: number;
  /** Per-operation samples after overhead subtraction, capped at zero, in time order. */
  samples: number[];
  warnings: Array<{ code: string; message: string }>;
  /** Past runs of this case, oldest first (`knotmeter/history`). */
  history: HistoryPoint[];
}

/** One row of a comparison group's table. */
export interface GroupRow {
  id: string;
  name: string;
  baseline: boolean;
  median: number;
  /** Time relative to the baseline (below 1 is faster), with its interval where the engine paired them. */
  ratio: number;
  low?: number;
  high?: number;
  verdict?: Verdict;
  text: string;
}

export interface PanelData {
  benchId: string;
  title: string;
  /** Set when there is nothing to show yet, with what to do. */
  empty?: string;
  cases: PanelCase[];
  group?: { name: string; rows: GroupRow[] };
}

export type ToWebview = { type: "data"; data: PanelData };
export type FromWebview = { type: "ready" } | { type: "run"; benchId: string };

/** The corrected per-operation samples: raw workload minus the overhead, capped at zero. */
export function correctedSamples(r: BenchResult): number[] {
  const o = r.overhead.per_op_ns;
  return r.raw.workload_ns.map((x) => Math.max(0, x - o));
}

export function panelCase(r: BenchResult, history: HistoryPoint[]): PanelCase {
  return {
    id: r.id,
    label: r.args ?? r.name,
    summary: summary(r),
    median: r.estimate.median_ns,
    low: r.estimate.low_ns,
    high: r.estimate.high_ns,
    samples: correctedSamples(r),
    warnings: r.warnings.map((w) => ({ code: w.code, message: w.message })),
    history: [...history].sort((a, b) => Number(a.timestamp) - Number(b.timestamp) || Number(a.run) - Number(b.run)),
  };
}

/**
 * The comparison table of a group: each member against the baseline. The engine's paired
 * comparison (ratio with interval and verdict) is used where it is against the baseline;
 * otherwise the ratio of the medians, without an interval.
 */
export function groupRows(members: readonly BenchResult[]): GroupRow[] {
  const base = members.find((m) => m.baseline) ?? members[0];
  if (!base) return [];
  return members.map((m) => {
    const row: GroupRow = {
      id: m.id,
      name: m.args ? `${m.name}/${m.args}` : m.name,
      baseline: m.id === base.id,
      median: m.estimate.median_ns,
      ratio: base.estimate.median_ns > 0 ? m.estimate.median_ns / base.estimate.median_ns : NaN,
      text: m.id === base.id ? "baseline" : "",
    };
    const c = m.comparison;
    if (m.id !== base.id && c && c.against === base.id) {
      row.ratio = c.ratio;
      row.low = c.low;
      row.high = c.high;
      row.verdict = c.verdict;
      row.text = formatVerdict(c);
    } else if (m.id !== base.id && Number.isFinite(row.ratio)) {
      row.text = `${row.ratio.toFixed(2)}× the baseline's median`;
    }
    return row;
  });
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
