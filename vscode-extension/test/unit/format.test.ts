import assert from "node:assert/strict";
import { test } from "node:test";
import {
  axisNs,
  INSTALL_HELP,
  INSTALL_HINT,
  annotationText,
  caseSummary,
  comparisonColumns,
  comparisonCounts,
  comparisonHeading,
  daemonDown,
  daemonFailed,
  daemonNotFound,
  distributionCaption,
  editedSince,
  emptyTally,
  estimateLabel,
  failureMessages,
  formatCount,
  formatMeasure,
  formatNs,
  groupHeading,
  historyAria,
  historyCaption,
  machineSeries,
  measuringText,
  memberName,
  noBenchmarks,
  noDaemon,
  noResultYet,
  offChart,
  panelTitle,
  requestFailed,
  rowLabel,
  runActivity,
  runFooter,
  runHeader,
  runLabel,
  runTitle,
  scalingAria,
  scalingCaption,
  scalingHeading,
  settingNotExecutable,
  statusProblem,
  statusText,
  tallyText,
  terminalLine,
  unpairedRatio,
} from "../../src/format";
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

// The extension's own words: each pinned as it read before it moved into format.ts.

test("a run is named by its profile: full, quick, on save, a comparison with its base, or a profile", () => {
  assert.deepEqual(
    [runLabel("full", false), runLabel("quick", false), runLabel("full", true), runLabel("quick", true), runLabel("full", false, ""), runLabel("quick", true, "main"), runLabel("full", false, undefined, true), runLabel("full", false, undefined, false, true)],
    ["Run", "Run (quick)", "on save", "on save", "Compare with base", "Compare with main", "Profile", "Count instructions"],
  );
  assert.equal(runTitle("Run (quick)"), "knotmeter Run (quick)");
  assert.equal(runTitle("on save", true), "knotmeter (on save)");
  assert.equal(runHeader("Run", 3, "10:42:07"), "━━ knotmeter Run · run 3 · 10:42:07 ━━");
  assert.equal(runFooter(3), "━━ run 3 ended ━━");
  assert.equal(runFooter(3, "the daemon stopped"), "━━ run 3 ended: the daemon stopped ━━");
});

test("an annotation says a benchmark is measured, with its last result, and that its file was edited", () => {
  assert.equal(measuringText(undefined), "⏱ measuring…");
  assert.equal(measuringText("12.3 ns ±1.5%"), "⏱ measuring… · last 12.3 ns ±1.5%");
  assert.equal(editedSince("12.3 ns ±1.5%"), "12.3 ns ±1.5% (edited since)");
});

test("no daemon: why, then how to get one; a daemon that did not start names its binary and the error", () => {
  assert.equal(settingNotExecutable("~/k"), 'knotmeter.server.path is set to "~/k", which is not an executable file');
  assert.equal(daemonNotFound(true), "the knotmeter daemon was not found");
  assert.match(daemonNotFound(false), /^the knotmeter daemon is not on PATH \(in an untrusted workspace/);
  assert.equal(noDaemon("the knotmeter daemon was not found"), `knotmeter: the knotmeter daemon was not found. ${INSTALL_HINT}`);
  assert.equal(INSTALL_HELP, `knotmeter: ${INSTALL_HINT}`);
  assert.equal(daemonFailed("/bin/knotmeter", new Error("spawn EACCES")), "knotmeter: the daemon /bin/knotmeter did not start: Error: spawn EACCES");
  assert.equal(daemonDown(), "The knotmeter daemon is not running.");
  assert.equal(daemonDown(true), "The knotmeter daemon is not running: see the knotmeter output channel.");
  assert.equal(requestFailed("knotmeter/run", new Error("gone")), "knotmeter/run failed: Error: gone");
  assert.deepEqual([noBenchmarks("file"), noBenchmarks("cursor")], ["knotmeter: no benchmarks in this file.", "knotmeter: no benchmark at the cursor."]);
});

test("the status bar: a run's progress and what it does, the last run's counts, or why nothing runs", () => {
  assert.deepEqual([runActivity(true, "chain_n/10"), runActivity(false, "chain_n/10"), runActivity(false, undefined)], ["building", "chain_n/10", "starting"]);
  assert.deepEqual(statusText({ kind: "running", label: "Run (quick)", done: 3, total: 9, what: "chain_n/1000" }), {
    text: "$(loading~spin) knotmeter 3/9 · chain_n/1000",
    tooltip: "knotmeter Run (quick): 3 of 9 done. Click to cancel.",
  });
  assert.deepEqual(statusText({ kind: "idle", last: "6 passed, 2 warned" }), { text: "$(dashboard) knotmeter · 6 passed, 2 warned", tooltip: "knotmeter: show the results panel" });
  assert.equal(statusText({ kind: "idle", last: undefined }).text, "$(dashboard) knotmeter");
  assert.deepEqual(statusProblem("noDaemon"), { text: "$(warning) knotmeter: no daemon", tooltip: `The knotmeter daemon is not running. ${INSTALL_HINT}` });
  assert.deepEqual(statusProblem("untrusted"), {
    text: "$(workspace-untrusted) knotmeter: discover only",
    tooltip: "The workspace is not trusted: knotmeter discovers benchmarks but does not build or run them.",
  });
});

test("the results panel's title, its empty page and the line above a case's charts", () => {
  assert.equal(panelTitle("chain_n"), "knotmeter: chain_n");
  assert.equal(noResultYet(true), "No result yet in this session: run the benchmark (the Run button, the gutter, or the Test Explorer).");
  assert.equal(noResultYet(false), "This workspace is not trusted, so knotmeter does not run its benchmarks.");
  assert.equal(caseSummary("1000", "12.3 ns ±1.5%"), "1000: 12.3 ns ±1.5%");
});

test("the panel's charts: captions that count, the estimate's label, what is off the chart, and what a screen reader hears", () => {
  assert.deepEqual(distributionCaption(true, 1200), { title: "Distribution of per-operation times", note: "1200 samples, after overhead subtraction" });
  assert.equal(distributionCaption(false, 0).note, "indistinguishable from empty");
  assert.deepEqual(historyCaption(4), { title: "Estimate over past runs", note: "4 runs; quick and full runs apart, as they are never compared" });
  assert.equal(historyCaption(0).note, "no stored history yet");
  assert.deepEqual(scalingCaption("O(n)"), { title: "Median against n (log axes)", note: "points: each case's median with its interval; line: the fitted O(n)" });
  assert.equal(scalingCaption(undefined).note, "each case's median with its interval");
  assert.equal(scalingHeading("O(n)"), "Scaling: O(n)");
  assert.equal(estimateLabel(1234), "estimate 1.23 µs");
  assert.deepEqual(
    [offChart(3, 0), offChart(0, 2), offChart(3, 2), offChart(0, 0)],
    [
      "3 slow outlying samples are off the chart (they are kept in the statistics).",
      "2 fast outlying samples are off the chart (they are kept in the statistics).",
      "3 slow and 2 fast outlying samples are off the chart (they are kept in the statistics).",
      undefined,
    ],
  );
  assert.equal(machineSeries("full", 2), "full (machine 2)");
  assert.equal(historyAria(["full", "quick"]), "estimate over past runs: full, quick");
  assert.equal(
    scalingAria([{ label: "10", median: 12.34 }, { label: "100", median: 123.4 }], "O(n)"),
    "median against n: n = 10: 12.3 ns; n = 100: 123 ns; O(n)",
  );
});

test("the panel's tables: the base named in its column, a cancelled run's counts, the baseline marked, an unpaired ratio", () => {
  assert.deepEqual(comparisonColumns("main"), ["case", "base (main)", "head", "change [95% interval]", "verdict"]);
  assert.equal(comparisonHeading("working tree against main"), "Compared: working tree against main");
  assert.equal(comparisonCounts("2 compared", false), "The whole run: 2 compared");
  assert.equal(comparisonCounts("2 compared", true), "The whole run: 2 compared (cancelled)");
  assert.equal(groupHeading("sorts"), "Group “sorts”");
  assert.deepEqual([memberName("sort_stable", true), memberName("sort_stable", false)], ["sort_stable (baseline)", "sort_stable"]);
  assert.equal(unpairedRatio(0.5994), "0.599× the baseline's median (not paired)");
});

test("counts are worded as knotmeter-format's format_instructions, and their axes in instructions", () => {
  assert.deepEqual(
    [5515, 2.5, 75, 999_999, 1_234_567, 45_600_000_000, -1, Number.NaN].map(formatCount),
    ["5 515 instr", "2.5 instr", "75 instr", "999 999 instr", "1.23 M instr", "45.6 G instr", "—", "—"],
  );
  assert.equal(formatMeasure(5515, "instructions"), "5 515 instr");
  assert.equal(formatMeasure(5520, "time"), "5.52 µs");
  assert.deepEqual(axisNs([5000, 5500, 6000], "instructions"), ["5000 instr", "5500 instr", "6000 instr"]);
  assert.deepEqual(axisNs([1e6, 2e6], "instructions"), ["1 M instr", "2 M instr"]);
  assert.deepEqual(axisNs([1000, 2000]), ["1 µs", "2 µs"], "time as before");
});
