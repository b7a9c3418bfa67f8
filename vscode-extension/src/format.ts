// How a result reads: the one place that turns nanoseconds, intervals and verdicts into text,
// so the Test Explorer, the inline annotations, the output channel and the results panel
// cannot disagree. Pure (no `vscode`), shared with the webview bundle.

import type { BenchResult, Comparison, Warning } from "./wire";

/** A duration in nanoseconds with three significant digits and a human unit. */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return "–";
  const abs = Math.abs(ns);
  const units: Array<[number, string]> = [
    [1e9, "s"],
    [1e6, "ms"],
    [1e3, "µs"],
    [1, "ns"],
  ];
  for (const [scale, unit] of units) {
    if (abs >= scale) return `${sig3(ns / scale)} ${unit}`;
  }
  if (abs === 0) return "0 ns";
  return `${sig3(ns)} ns`;
}

/** Three significant digits, without exponent notation for the ranges durations take. */
export function sig3(x: number): string {
  const abs = Math.abs(x);
  if (abs >= 100) return x.toFixed(0);
  if (abs >= 10) return x.toFixed(1);
  if (abs >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}

/** Operations per second at the given time per operation: "81.3 M/s". */
export function formatOpsPerSec(nsPerOp: number): string {
  if (!(nsPerOp > 0)) return "–";
  const ops = 1e9 / nsPerOp;
  const units: Array<[number, string]> = [
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ];
  for (const [scale, unit] of units) {
    if (ops >= scale) return `${sig3(ops / scale)} ${unit}ops/s`;
  }
  return `${sig3(ops)} ops/s`;
}

/** The median's interval as a relative half-width: "±0.4%". */
export function formatPrecision(precision: number | null | undefined): string {
  if (precision === null || precision === undefined || !Number.isFinite(precision)) return "";
  const pct = precision * 100;
  if (pct < 0.01) return "±<0.01%";
  return `±${pct >= 10 ? pct.toFixed(0) : pct >= 0.1 ? pct.toFixed(1) : pct.toFixed(2)}%`;
}

/** Whether a warning says the figure may be wrong (`warning`) or is only worth knowing (`info`). */
export function isDefect(w: Warning): boolean {
  return w.severity !== "info";
}

/** The verdict in the words every output uses: "3.1% faster", "2.4× slower", "same". */
export function formatVerdict(c: Comparison): string {
  if (c.verdict === "same") return "same";
  const ratio = c.ratio;
  if (c.verdict === "faster") {
    if (ratio > 0 && ratio <= 0.5) return `${sig3(1 / ratio)}× faster`;
    return `${pct1((1 - ratio) * 100)}% faster`;
  }
  if (ratio >= 2) return `${sig3(ratio)}× slower`;
  return `${pct1((ratio - 1) * 100)}% slower`;
}

function pct1(x: number): string {
  return Math.abs(x) >= 10 ? x.toFixed(0) : x.toFixed(1);
}

/** The one-line summary the annotations and the Test Explorer show: "12.3 ns ±0.4% · 3.1% faster". */
export function summary(r: BenchResult): string {
  const parts = [`${formatNs(r.estimate.median_ns)} ${formatPrecision(r.precision)}`.trim()];
  if (r.comparison) parts.push(formatVerdict(r.comparison));
  const defects = r.warnings.filter(isDefect);
  if (defects.length > 0) parts.push(`⚠ ${defects.map((w) => w.code).join(", ")}`);
  const stored = storedNote(r);
  if (stored) parts.push(stored);
  return parts.join(" · ");
}

/**
 * "stored 2025-11-30 19:42 UTC" for a result read back from the history (what the daemon sends
 * after it starts, until the case is measured again); undefined for a result just measured.
 */
export function storedNote(r: BenchResult): string | undefined {
  if (r.stored_at === undefined || r.stored_at === null) return undefined;
  const at = new Date(Number(r.stored_at) * 1000).toISOString();
  return `stored ${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}

/** A multi-line account of a result for a test message and the output channel. */
export function detail(r: BenchResult): string {
  const e = r.estimate;
  const lines = [
    `${r.id}: ${formatNs(e.median_ns)} per operation (95% interval ${formatNs(e.low_ns)} – ${formatNs(e.high_ns)}${r.precision !== null ? `, ${formatPrecision(r.precision)}` : ""}), ${formatOpsPerSec(e.median_ns)}`,
  ];
  if (r.comparison) {
    const c = r.comparison;
    lines.push(
      `${formatVerdict(c)} against ${c.against}: ratio ${c.ratio.toFixed(3)} (${c.low.toFixed(3)} – ${c.high.toFixed(3)}), p = ${formatP(c.p_value)}`,
    );
  } else {
    lines.push("no earlier run to compare against");
  }
  lines.push(
    `${Number(r.samples)} samples of ${Number(r.ops_per_sample)} operations; mean ${formatNs(e.mean_ns)}, ` +
      `quartiles ${formatNs(r.quantiles.q1_ns)} – ${formatNs(r.quantiles.q3_ns)}, ${Number(r.quantiles.outliers)} outliers (kept)`,
  );
  if (r.allocations) {
    lines.push(
      `${sig3(r.allocations.per_op)} allocations, ${sig3(r.allocations.bytes_per_op)} bytes per operation`,
    );
  }
  for (const w of r.warnings) lines.push(`${isDefect(w) ? "⚠" : "ℹ"} ${w.code}: ${w.message}`);
  return lines.join("\n");
}

export function formatP(p: number): string {
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}
