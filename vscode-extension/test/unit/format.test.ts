import assert from "node:assert/strict";
import { test } from "node:test";
import { detail, formatNs, formatOpsPerSec, formatPrecision, formatVerdict, summary } from "../../src/format";
import { overheadReport } from "../../src/model";
import { result } from "./fixtures";

test("durations read with three significant digits and a unit", () => {
  assert.deepEqual(
    [0, 0.5123, 1.234, 12.34, 123.4, 1234, 12_345_678, 2.5e9].map(formatNs),
    ["0 ns", "0.512 ns", "1.23 ns", "12.3 ns", "123 ns", "1.23 µs", "12.3 ms", "2.50 s"],
  );
});

test("ops/s, precision and verdicts", () => {
  assert.equal(formatOpsPerSec(12.34), "81.0 Mops/s");
  assert.equal(formatPrecision(0.004), "±0.4%");
  assert.equal(formatPrecision(0.25), "±25%");
  assert.equal(formatPrecision(0.0003), "±0.03%");
  assert.equal(formatPrecision(0.00001), "±<0.01%");
  const c = { against: "run 1", ratio: 0.969, low: 0.96, high: 0.98, p_value: 0.001, verdict: "faster" as const };
  assert.equal(formatVerdict(c), "3.1% faster");
  assert.equal(formatVerdict({ ...c, ratio: 1.05, verdict: "slower" }), "5.0% slower");
  assert.equal(formatVerdict({ ...c, ratio: 0.25 }), "4.00× faster");
  assert.equal(formatVerdict({ ...c, ratio: 3, verdict: "slower" }), "3.00× slower");
  assert.equal(formatVerdict({ ...c, verdict: "same" }), "same");
});

test("the one-line summary: median, interval, verdict", () => {
  assert.equal(summary(result()), "12.3 ns ±0.4% · 3.1% faster");
  // A stored result (shown after the daemon restarts) says when it was stored.
  assert.equal(summary(result({ stored_at: 1_764_531_720 })), "12.3 ns ±0.4% · 3.1% faster · stored 2025-11-30 19:42 UTC");
  assert.equal(summary(result({ comparison: null })), "12.3 ns ±0.4%");
});

test("the detail names the interval, ops/s, the verdict and every warning", () => {
  const d = detail(result({ warnings: [{ code: "imprecise", message: "run longer", severity: "warning" }] }));
  assert.match(d, /95% interval 12\.3 ns – 12\.4 ns/);
  assert.match(d, /81\.0 Mops\/s/);
  assert.match(d, /3\.1% faster against run 7: ratio 0\.969 \(0\.960 – 0\.978\), p = < 0\.001/);
  assert.match(d, /⚠ imprecise: run longer/);
});

test("the output channel's overhead diagnostics", () => {
  const text = overheadReport(result({ overhead: { per_op_ns: 0.31, drift: -0.02, capped: 3 } }), { kind: "tsc", precision_ns: 0.3, read_cost_ns: 7.1 });
  assert.equal(
    text,
    [
      "quickstart::chain_1000: 12.3 ns ±0.4% · 3.1% faster",
      "  timer            tsc, precision 0.300 ns, read cost 7.10 ns",
      "  interval         12.3 ns – 12.4 ns (95%, ±0.4%)",
      "  overhead/op      0.310 ns subtracted (empty body of the same shape)",
      "  overhead drift   -0.0200 ns per op between the halves of the run",
      "  capped samples   3 of 120 (subtraction went below zero)",
      "  cold first call  250 ns (20.3× the steady median)",
      "  ops per sample   4096 (120 samples, 1.25 s wall)",
    ].join("\n"),
  );
});
