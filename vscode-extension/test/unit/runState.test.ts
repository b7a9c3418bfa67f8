import assert from "node:assert/strict";
import { test } from "node:test";
import { tallyText } from "../../src/format";
import { lensRun, mapRunState, runParams, type RunAction } from "../../src/model";
import { RunTracker } from "../../src/runs";
import type { RunStateParams, ShownNote } from "../../src/wire";
import { result, shown } from "./fixtures";

const state = (over: Partial<RunStateParams> & Pick<RunStateParams, "state">): RunStateParams => ({ runId: 1, id: "quickstart::chain_1000", ...over });

/** An action as one line, the way a TestRun would see it. */
function show(a: RunAction): string {
  switch (a.op) {
    case "passed":
      return `passed ${a.durationMs ?? "-"}ms "${a.description ?? ""}"`;
    case "failed":
    case "errored":
      return `${a.op} "${a.description ?? ""}" ${a.messages.map((m) => `[${m.kind}${m.at ? ` at ${m.at.path}:${m.at.line}:${m.at.character}` : ""}] ${m.text.split("\n")[0]}`).join(" | ")}`;
    default:
      return a.op;
  }
}

test("daemon states map onto TestRun states", () => {
  const cases: Array<[RunStateParams, string]> = [
    [state({ state: "enqueued" }), "enqueued"],
    [state({ state: "building" }), "enqueued"],
    [state({ state: "started" }), "started"],
    [state({ state: "passed", result: result(), shown: shown() }), 'passed 1250ms "12.3 ns ±1.5% · 3.1% faster than run 7"'],
    [state({ state: "passed" }), 'passed -ms ""'],
    [state({ state: "skipped" }), "skipped"],
    [
      state({
        state: "errored",
        message: "the build failed: error[E0425]: cannot find value `x` in this scope\nerror[E0425]: cannot find value `x` in this scope\n --> benches/quickstart.rs:9:11",
        location: { file: "benches/quickstart.rs", line: 8, character: 10 },
      }),
      'errored "" [error at benches/quickstart.rs:8:10] the build failed: error[E0425]: cannot find value `x` in this scope',
    ],
  ];
  for (const [p, expected] of cases) assert.equal(show(mapRunState(p)), expected, p.state);
});

test("a panic becomes a failure message at its location", () => {
  const a = mapRunState(
    state({
      state: "failed",
      message: "thread 'main' panicked at src/lib.rs:12:5:\nattempt to subtract with overflow",
      location: { file: "src/lib.rs", line: 11, character: 4 },
    }),
  );
  assert.equal(show(a), `failed "" [panic at src/lib.rs:11:4] thread 'main' panicked at src/lib.rs:12:5:`);
});

test("a panic without a location points at the function (no `at`)", () => {
  const a = mapRunState(state({ state: "failed", message: "boom" }));
  assert.equal(show(a), 'failed "" [panic] boom');
});

test("validity warnings are never hidden behind a green tick", () => {
  const note: ShownNote = { severity: "warning", code: "optimized_away", text: "⚠ optimized_away: indistinguishable from the empty body: pass the result to black_box", bench: false };
  const s = shown({ outcome: "warned", figure: "≈ 0 (indistinguishable from empty)", notes: [note], line: "≈ 0 (indistinguishable from empty) · ⚠ optimized_away" });
  const a = mapRunState(state({ state: "passed", result: result(), shown: s }));
  assert.equal(
    show(a),
    'failed "≈ 0 (indistinguishable from empty) · ⚠ optimized_away" [warning] optimized_away: indistinguishable from the empty body: pass the result to black_box',
  );
  assert.equal(a.op === "failed" && a.durationMs, 1250);
});

test("a benchmark's warning (flat_scaling) fails each of its cases, never a green tick", () => {
  const note: ShownNote = { severity: "warning", code: "flat_scaling", text: "⚠ flat_scaling: the cost does not grow", bench: true };
  const first = mapRunState(state({ state: "passed", result: result(), shown: shown() }));
  const again = mapRunState(state({ state: "passed", result: result(), shown: shown({ outcome: "warned", notes: [note] }) }));
  assert.equal(first.op, "passed");
  assert.equal(show(again).split(" [")[1], "warning] flat_scaling: the cost does not grow");
});

test("a partial result (cancelled mid-measurement) is not a pass", () => {
  const a = mapRunState(state({ state: "passed", result: result({ partial: true, comparison: null }), shown: shown({ outcome: "partial" }) }));
  assert.equal(a.op, "failed");
});

test("a compiler error shows where the daemon says it is, not where its text seems to point", () => {
  const text = "the build failed: error[E0308]: mismatched types at benches/q.rs:4:9\n --> benches/other.rs:1:1";
  const a = mapRunState(state({ state: "errored", message: text, location: { file: "/w/benches/q.rs", line: 3, character: 8 } }));
  assert.equal(show(a).split(" [")[1]?.split("]")[0], "error at /w/benches/q.rs:3:8");
  const without = mapRunState(state({ state: "errored", message: text }));
  assert.equal(show(without).split(" [")[1]?.split("]")[0], "error");
});

test("a cancelled run marks the rest skipped", () => {
  const t = new RunTracker();
  t.expect(["a", "b", "c"]);
  t.record("a", "started");
  t.record("a", "passed", "passed");
  t.record("b", "started");
  assert.deepEqual(t.unfinished(), ["b", "c"]);
  assert.deepEqual(t.progress(), { done: 1, total: 3 });
});

test("status_bar_counts_skipped_cases_as_ok_after_a_cancel: they are counted apart", () => {
  // The bug: after a cancel the status bar said "16 ok" when 6 passed.
  const t = new RunTracker();
  const ids = Array.from({ length: 16 }, (_, i) => `q::case${i}`);
  t.expect(ids);
  ids.slice(0, 6).forEach((id) => t.record(id, "passed", "passed"));
  t.record(ids[6]!, "skipped", "partial");
  ids.slice(7, 12).forEach((id) => t.record(id, "skipped"));
  assert.equal(tallyText(t.tally()), "6 passed, 1 partial, 9 skipped");
});

test("a state after a final one is ignored, but a measured item may be reported again", () => {
  const t = new RunTracker();
  assert.equal(t.record("a", "passed", "passed"), true);
  assert.equal(t.record("a", "started"), false);
  assert.deepEqual(t.unfinished(), []);
  // The comparison (or the benchmark's analysis) arrives as a second `passed`: an update.
  assert.equal(t.record("a", "passed", "warned"), true);
  assert.equal(tallyText(t.tally()), "1 warned");
  assert.equal(t.record("b", "failed"), true);
  assert.equal(t.record("b", "passed"), false);
});

test("group_member_comparison_dropped: the second passed brings the verdict to the row", () => {
  const first = mapRunState(state({ state: "passed", result: result({ comparison: null }), shown: shown({ verdict: undefined, line: "3.12 µs ±1.5%" }) }));
  const second = mapRunState(
    state({ state: "passed", result: result(), shown: shown({ verdict: "1.0% slower than sort_stable", line: "3.12 µs ±1.5% · 1.0% slower than sort_stable" }) }),
  );
  assert.equal(show(first), 'passed 1250ms "3.12 µs ±1.5%"');
  assert.equal(show(second), 'passed 1250ms "3.12 µs ±1.5% · 1.0% slower than sort_stable"');
});

test("an info note (severity `info`) is worth knowing, not a defect: the case passes", () => {
  const note: ShownNote = { severity: "info", code: "multimodal", text: "ℹ multimodal: two modes", bench: false };
  const a = mapRunState(state({ state: "passed", result: result(), shown: shown({ notes: [note] }) }));
  assert.equal(show(a), 'passed 1250ms "12.3 ns ±1.5% · 3.1% faster than run 7"');
});

test("compare_lens_ran_a_plain_measurement: the ⇄ Compare with base lens compares, with knotmeter.compare.base", () => {
  // The daemon's lens: `compare: ""` (it does not know the editor's settings).
  const lens = { include: ["quickstart::sort_unstable"], compare: "" };
  assert.deepEqual(lensRun(lens, "main"), { mode: "full", compare: "main" });
  assert.deepEqual(lensRun(lens, ""), { mode: "full", compare: "" }, "empty setting: the daemon's default base");
  assert.deepEqual(lensRun({ ...lens, compare: "v1.2" }, "main"), { mode: "full", compare: "v1.2" }, "a base the lens names is kept");
  // "▶ Run" stays a plain run.
  assert.deepEqual(lensRun({ include: ["quickstart::sort_unstable"] }, "main"), { mode: "full" });
  assert.deepEqual(lensRun({ include: ["x"], mode: "quick", compare: null }, "main"), { mode: "quick" });
  assert.deepEqual(lensRun({ include: ["x"], profile: true }, "main"), { mode: "full", profile: true }, "◔ Profile");
  assert.deepEqual(lensRun({ include: ["x"], profile: false }, "main"), { mode: "full" });
});

test("count_instructions_run: the Count instructions run profile asks the daemon for counts", () => {
  assert.deepEqual(lensRun({ include: ["x"], measure: "instructions" }, "main"), { mode: "full", count: true });
  assert.deepEqual(lensRun({ include: ["x"], measure: "time" }, "main"), { mode: "full" });
  assert.deepEqual(runParams({ mode: "full", count: true }, ["a"], null, "callgrind"), {
    include: ["a"],
    exclude: null,
    mode: "full",
    measure: "instructions",
  });
  // A measuring run says nothing of the measure: time, as every daemon before counts knew.
  assert.deepEqual(runParams({ mode: "quick" }, null, null, "perf"), { include: null, exclude: null, mode: "quick" });
  assert.deepEqual(runParams({ mode: "full", profile: true }, null, ["b"], "perf"), {
    include: null,
    exclude: ["b"],
    mode: "full",
    profile: true,
    profiler: "perf",
  });
});
