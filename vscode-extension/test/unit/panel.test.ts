import assert from "node:assert/strict";
import { test } from "node:test";
import { axisNs, correctedSamples, groupRows, histogram, panelCase } from "../../src/panel/data";
import { result } from "./fixtures";

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

test("history is drawn oldest first", () => {
  const p = (run: number, timestamp: number) => ({ run, timestamp, gitCommit: null, machineKey: "m", baseline: null, medianNs: 1, lowNs: 1, highNs: 1, verdict: null });
  const c = panelCase(result(), [p(3, 300), p(1, 100), p(2, 200)]);
  assert.deepEqual(c.history.map((h) => h.run), [1, 2, 3]);
});

test("the group table: the baseline, then each member's ratio with its interval", () => {
  const base = result({ id: "q::sort_stable", name: "sort_stable", group: "sort", baseline: true, comparison: null, estimate: { median_ns: 2000, low_ns: 1990, high_ns: 2010, mean_ns: 2000 } });
  const other = result({
    id: "q::sort_unstable",
    name: "sort_unstable",
    group: "sort",
    estimate: { median_ns: 1000, low_ns: 990, high_ns: 1010, mean_ns: 1000 },
    comparison: { against: "q::sort_stable", ratio: 0.5, low: 0.48, high: 0.52, p_value: 0.0001, verdict: "faster" },
  });
  const third = result({ id: "q::sort_third", name: "sort_third", group: "sort", comparison: null, estimate: { median_ns: 3000, low_ns: 2900, high_ns: 3100, mean_ns: 3000 } });
  const rows = groupRows([base, other, third]);
  assert.deepEqual(
    rows.map((r) => `${r.name} ${r.baseline ? "base" : ""} ${r.ratio.toFixed(2)} ${r.low ?? "-"}..${r.high ?? "-"} ${r.text}`),
    ["sort_stable base 1.00 -..- baseline", "sort_unstable  0.50 0.48..0.52 2.00× faster", "sort_third  1.50 -..- 1.50× the baseline's median"],
  );
});

test("axis labels keep neighbouring ticks apart", () => {
  assert.deepEqual(axisNs([4.4, 4.405, 4.41, 4.415]), ["4.400 ns", "4.405 ns", "4.410 ns", "4.415 ns"]);
  assert.deepEqual(axisNs([2800, 3000, 3200]), ["2.8 µs", "3.0 µs", "3.2 µs"]);
  assert.deepEqual(axisNs([0, 500, 1000, 1500]), ["0.0 µs", "0.5 µs", "1.0 µs", "1.5 µs"]);
  assert.deepEqual(axisNs([10, 20]), ["10 ns", "20 ns"]);
});
