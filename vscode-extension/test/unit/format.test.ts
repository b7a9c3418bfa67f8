import assert from "node:assert/strict";
import { test } from "node:test";
import { annotationText, emptyTally, failureMessages, formatNs, rowLabel, tallyText, terminalLine } from "../../src/format";
import { shown } from "./fixtures";

test("durations keep three significant digits and move to the next unit when rounding reaches it", () => {
  assert.deepEqual(
    [0, 0.5123, 1.234, 12.34, 123.4, 999.9, 1234, 12_345_678, 2.5e9, NaN].map(formatNs),
    ["0 ns", "0.51 ns", "1.23 ns", "12.3 ns", "123 ns", "1.00 µs", "1.23 µs", "12.3 ms", "2.50 s", "—"],
  );
});

test("a row is named by its benchmark first, then its result", () => {
  assert.equal(rowLabel("chain_1000", "12.3 ns ±1.5%"), "chain_1000 · 12.3 ns ±1.5%");
  assert.equal(rowLabel("chain_1000", undefined), "chain_1000");
});

test("a warned case gets one message per warning, never one per note", () => {
  const s = shown({
    outcome: "warned",
    notes: [
      { severity: "info", code: "outliers", text: "ℹ outliers: 96 of 1200", bench: false },
      { severity: "warning", code: "flat_scaling", text: "⚠ flat_scaling: the cost does not grow", bench: true },
    ],
  });
  assert.deepEqual(failureMessages(s).map((m) => m.split("\n")[0]), ["flat_scaling: the cost does not grow"]);
  assert.deepEqual(failureMessages(shown({ outcome: "partial" })).map((m) => m.split("\n")[0]), ["partial: the run was cancelled while this case was measured"]);
});

test("args cases: each case's figure, then the verdicts, then the warned cases and why", () => {
  const flat = { severity: "warning" as const, code: "flat_scaling", text: "⚠ flat_scaling: …", bench: true };
  const a = { args: "10", verdict: "faster" as const, shown: shown({ figure: "5.10 ns" }) };
  const b = { args: "100", verdict: null, shown: shown({ figure: "48.2 ns", outcome: "warned", notes: [flat] }) };
  assert.equal(annotationText([a, b]), "10: 5.10 ns · 100: 48.2 ns · 1 faster · ⚠ 1 warned (flat_scaling)");
  assert.equal(annotationText([]), undefined);
});

test("counts leave out what is zero", () => {
  assert.equal(tallyText({ ...emptyTally(), passed: 6, skipped: 10 }), "6 passed, 10 skipped");
  assert.equal(tallyText(emptyTally()), "nothing ran");
});

test("the extension's own lines reach Test Results with the terminal's line breaks, and only those", () => {
  assert.equal(terminalLine("the daemon stopped"), "the daemon stopped\r\n");
  assert.equal(terminalLine("one\ntwo\r\nthree"), "one\r\ntwo\r\nthree\r\n");
  assert.equal(terminalLine(""), "\r\n");
});
