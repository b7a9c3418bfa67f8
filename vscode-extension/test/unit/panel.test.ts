import assert from "node:assert/strict";
import { test } from "node:test";
import { axisNs } from "../../src/format";
import { comparisonView, correctedSamples, groupRows, histogram, historySeries, panelCase, ratioScale, scalingView } from "../../src/panel/data";
import type { BenchSummary, HistoryPoint, ShownComparison } from "../../src/wire";
import { result, shown } from "./fixtures";

test("per-operation samples are corrected by the overhead and capped at zero", () => {
  const r = result({ overhead: { per_op_ns: 12.6, drift: 0, capped: 0 } });
  assert.deepEqual(correctedSamples(r).map((x) => +x.toFixed(2)), [0, 0.1, 0, 0.3]);
});

test("the histogram counts every sample, drawing the body and counting the outliers", () => {
  const samples = Array.from({ length: 1000 }, (_, i) => 10 + (i % 100) / 10);
  samples.push(1000); // an outlier beyond p99
  const h = histogram(samples);
  assert.ok(h.counts.length >= 10 && h.counts.length <= 60);
  assert.equal(h.counts.reduce((a, b) => a + b, 0) + h.above + h.below, samples.length);
  assert.equal(h.above, 1);
  assert.equal(h.edges[0], 10);
});

test("a histogram of identical samples still has a width", () => {
  const h = histogram([5, 5, 5]);
  assert.ok(h.width > 0);
  assert.equal(h.counts.reduce((a, b) => a + b, 0), 3);
});

test("a fifth of slow outliers does not squeeze the body into one bar", () => {
  const body = Array.from({ length: 80 }, (_, i) => 4 + (i % 10) / 20);
  const slow = Array.from({ length: 20 }, (_, i) => 1000 + i);
  const h = histogram([...body, ...slow]);
  assert.ok(h.edges[h.edges.length - 1]! < 10, `last edge ${h.edges[h.edges.length - 1]}`);
  assert.equal(h.above, 20);
  assert.ok(h.counts.filter((c) => c > 0).length >= 3);
});

const point = (run: number, machineKey: string, budgetMs: number | null): HistoryPoint => ({
  run,
  timestamp: 1000 + run,
  gitCommit: null,
  machineKey,
  baseline: null,
  medianNs: 1,
  lowNs: 1,
  highNs: 1,
  verdict: null,
  budgetMs,
});

test("history is drawn oldest first, quick and full runs apart (history_mixes_quick_and_full)", () => {
  const c = panelCase(result(), shown(), [point(3, "m|budget=1000ms", 1000), point(2, "m|budget=100ms", 100), point(1, "m|budget=1000ms", 1000)]);
  assert.deepEqual(
    c.history.map((s) => `${s.label}: ${s.points.map((p) => p.run).join(",")}`),
    ["full: 1,3", "quick: 2"],
  );
  const twoMachines = historySeries([point(1, "a|budget=1000ms", 1000), point(2, "b|budget=1000ms", 1000)]);
  assert.deepEqual(twoMachines.map((s) => s.label), ["full (machine 1)", "full (machine 2)"]);
});

test("the group table: the baseline, then each member's verdict as the daemon words it", () => {
  const base = result({ id: "q::sort_stable", name: "sort_stable", group: "sort", baseline: true, comparison: null, estimate: { median_ns: 2000, low_ns: 1990, high_ns: 2010, mean_ns: 2000 } });
  const other = result({
    id: "q::sort_unstable",
    name: "sort_unstable",
    group: "sort",
    estimate: { median_ns: 1000, low_ns: 990, high_ns: 1010, mean_ns: 1000 },
    comparison: { against: "q::sort_stable", ratio: 0.5, low: 0.48, high: 0.52, p_value: 0.0001, verdict: "faster" },
  });
  const third = result({ id: "q::sort_third", name: "sort_third", group: "sort", comparison: null, estimate: { median_ns: 3000, low_ns: 2900, high_ns: 3100, mean_ns: 3000 } });
  const rows = groupRows([
    { result: base, shown: shown({ figure: "2.00 µs" }) },
    { result: other, shown: shown({ figure: "1.00 µs", verdict: "2.00× faster than sort_stable" }) },
    { result: third, shown: shown({ figure: "3.00 µs", verdict: undefined }) },
  ]);
  assert.deepEqual(
    rows.map((r) => `${r.name} ${r.figure} ${r.ratio.toFixed(2)} ${r.low ?? "-"}..${r.high ?? "-"} ${r.text}`),
    ["sort_stable 2.00 µs 1.00 -..- baseline", "sort_unstable 1.00 µs 0.50 0.48..0.52 2.00× faster than sort_stable", "sort_third 3.00 µs 1.50 -..- 1.500× the baseline's median (not paired)"],
  );
});

test("ratio_bars_start_at_zero: the bars are centred on the baseline, so 1% shows", () => {
  const row = (ratio: number, low?: number, high?: number) => ({ id: "x", name: "x", baseline: false, figure: "", ratio, low, high, text: "" });
  const pos = ratioScale([row(1), row(1.01, 1.006, 1.014)]);
  assert.ok(Math.abs(pos(1) - 50) < 1e-9);
  // 1.000× and 1.010× are far apart on the bar, not within a pixel of each other.
  assert.ok(pos(1.01) - pos(1) > 30, `${pos(1.01)}`);
  assert.ok(pos(1.014) <= 100);
  const wide = ratioScale([row(0.4, 0.39, 0.41)]);
  assert.ok(wide(0.39) >= 0 && wide(0.4) < 10, `${wide(0.4)}`);
});

test("the scaling view: each case against n, the fitted class as a curve, the benchmark's warnings", () => {
  const summary: BenchSummary = {
    id: "q::chain_n",
    name: "chain_n",
    complexity: { best: "O(n)", runner_up: "O(n log n)", distinguishable: true, candidates: ["O(n)"], fits: [{ class: "O(n)", coefficient_ns: 1.4, intercept_ns: 2, aicc: -10 }] },
    warnings: [],
    points: [10, 100, 1000].map((n) => ({ id: `q::chain_n/${n}`, n, median_ns: 1.4 * n + 2, low_ns: 1.39 * n, high_ns: 1.41 * n + 4 })),
  };
  const labels = new Map([["q::chain_n/10", "10"], ["q::chain_n/100", "100"], ["q::chain_n/1000", "1000"]]);
  const view = scalingView(summary, shown({ scaling: "O(n)" }), labels)!;
  assert.equal(view.complexity, "O(n)");
  assert.deepEqual(view.points.map((p) => p.label), ["10", "100", "1000"]);
  assert.equal(view.curve.length, 41);
  assert.ok(Math.abs(view.curve[40]!.ns - (1.4 * 1000 + 2)) < 1e-6);
  assert.equal(view.warned, false);
  const flat = { severity: "warning" as const, code: "flat_scaling", text: "⚠ flat_scaling: the cost does not grow", bench: true };
  const warned = scalingView(summary, shown({ scaling: "O(1)", notes: [flat] }), labels)!;
  assert.equal(warned.warned, true);
  assert.deepEqual(warned.notes.map((n) => n.text), ["⚠ flat_scaling: the cost does not grow"]);
  assert.equal(scalingView({ ...summary, points: [] }, shown(), labels), undefined);
});

test("axis labels keep neighbouring ticks apart", () => {
  assert.deepEqual(axisNs([4.4, 4.405, 4.41, 4.415]), ["4.400 ns", "4.405 ns", "4.410 ns", "4.415 ns"]);
  assert.deepEqual(axisNs([2800, 3000, 3200]), ["2.8 µs", "3.0 µs", "3.2 µs"]);
  assert.deepEqual(axisNs([0, 500, 1000, 1500]), ["0.0 µs", "0.5 µs", "1.0 µs", "1.5 µs"]);
  assert.deepEqual(axisNs([10, 20]), ["10 ns", "20 ns"]);
});

// As knotmeter-format's `compared` words a comparison run (format/src/compared.rs).
const comparison: ShownComparison = {
  heading: "working tree (HEAD 1a2b3c4d5e, uncommitted changes) against main (9f8e7d6c5b)",
  base: "main",
  summary: "1 compared (1 slower, 0 faster, 0 same), 1 not compared, 1 added, 1 removed",
  cancelled: false,
  rows: [
    { id: "q::parse/csv", status: "removed", base: "830 ns", head: "—", change: "", outcome: "removed", why: "only in main" },
    { id: "q::chain/1000", status: "not_compared", base: "—", head: "2.48 µs", change: "", outcome: "not compared", why: "the base (main) does not build: error[E0425]: cannot find value `x`" },
    { id: "q::chain/10", status: "compared", base: "2.41 µs", head: "2.48 µs", change: "+3.1% [2.6, 3.7]", verdict: "slower", outcome: "slower than main", why: "" },
    { id: "q::other", status: "compared", base: "1.00 µs", head: "1.00 µs", change: "+0.0% [-0.1, 0.1]", verdict: "same", outcome: "same as main", why: "" },
  ],
};

test("the comparison table: the benchmark's rows as the daemon words them, compared first, each unverdicted one with why", () => {
  const view = comparisonView(comparison, "q::chain");
  assert.ok(view);
  assert.equal(view.heading, comparison.heading);
  assert.equal(view.summary, comparison.summary);
  assert.deepEqual(
    view.rows.map((r) => [r.id, r.base, r.head, r.change, r.outcome]),
    [
      ["q::chain/10", "2.41 µs", "2.48 µs", "+3.1% [2.6, 3.7]", "slower than main"],
      ["q::chain/1000", "—", "2.48 µs", "", "not compared"],
    ],
  );
  assert.match(view.rows[1]!.why, /^the base \(main\) does not build/);
  // A removed case belongs to its benchmark too; another benchmark's rows do not.
  assert.deepEqual(comparisonView(comparison, "q::parse")?.rows.map((r) => r.why), ["only in main"]);
  assert.equal(comparisonView(comparison, "q::unrelated"), undefined);
  assert.equal(comparisonView(comparison, "q::chai"), undefined, "a prefix of another benchmark's name is not it");
});

test("a count's panel draws counts only: its history leaves the times out, and the times' the counts", () => {
  const points = [point(1, "m|budget=1000ms", 1000), point(2, "m|budget=1000ms|instructions", 1000), point(3, "m|budget=1000ms", 1000)];
  const counted = panelCase({ ...result(), measure: "instructions" }, shown(), points);
  assert.equal(counted.measure, "instructions");
  assert.deepEqual(counted.history.map((s) => s.points.map((p) => p.run)), [[2]]);
  const timed = panelCase(result(), shown(), points);
  assert.equal(timed.measure, "time");
  assert.deepEqual(timed.history.map((s) => s.points.map((p) => p.run)), [[1, 3]]);
});
