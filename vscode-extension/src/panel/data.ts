// What the results panel shows, computed from the wire types: the message the extension host
// posts to the webview, and the pure computations both sides need (corrected samples,
// histogram bins, the group table). Pure (no `vscode`, no DOM) and unit-tested.

import { formatNs, formatVerdict, summary } from "../format";
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

/** Histogram bins of the samples between their minimum and 99th percentile. */
export interface Histogram {
  /** Left edges of the bins, in nanoseconds. */
  edges: number[];
  width: number;
  counts: number[];
  /** Samples above the last bin (beyond the 99th percentile), counted but not drawn. */
  above: number;
}

export function histogram(samples: readonly number[], maxBins = 60): Histogram {
  const sorted = [...samples].filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { edges: [], width: 0, counts: [], above: 0 };
  const lo = sorted[0]!;
  const hi = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
  const q1 = sorted[Math.floor(sorted.length * 0.25)]!;
  const q3 = sorted[Math.floor(sorted.length * 0.75)]!;
  // Freedman–Diaconis, bounded so that the chart stays readable.
  const fd = (2 * (q3 - q1)) / Math.cbrt(sorted.length);
  let bins = fd > 0 ? Math.ceil((hi - lo) / fd) : 1;
  bins = Math.max(Math.min(bins, maxBins), Math.min(10, sorted.length));
  const width = hi > lo ? (hi - lo) / bins : Math.max(Math.abs(lo) * 0.01, 1e-3);
  const counts = new Array<number>(bins).fill(0);
  let above = 0;
  for (const x of sorted) {
    if (x > hi) {
      above++;
      continue;
    }
    const i = Math.min(bins - 1, Math.floor((x - lo) / width));
    counts[i]!++;
  }
  return { edges: counts.map((_, i) => lo + i * width), width, counts, above };
}

/** Axis label of a duration value. */
export function axisNs(ns: number): string {
  return formatNs(ns);
}
