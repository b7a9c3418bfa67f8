// The shared presentation fixtures (format/tests/fixtures): each case's result with the
// daemon's presentation of it (shown.json, checked against the Rust renderer by
// `cargo test -p knotmeter-format`) is laid out by every surface of the extension: the Test
// Explorer row and its state and messages, the annotation, the status bar's counts and the
// results panel. Durations and modes are printed as the Rust side prints them.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { annotationText, costText, formatNs, modeLabel, rowLabel, signedCostText, tallyText } from "../../src/format";
import { mapRunState } from "../../src/model";
import { RunTracker } from "../../src/runs";
import { groupRows, panelCase } from "../../src/panel/data";
import type { BenchResult, BenchSummary, RunStateParams, Shown } from "../../src/wire";

/** format/tests/fixtures, found upward from the compiled test. */
function fixturesDir(): string {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "format", "tests", "fixtures");
    if (fs.existsSync(path.join(candidate, "cases.json"))) return candidate;
  }
  throw new Error("format/tests/fixtures not found above " + __dirname);
}

const dir = fixturesDir();
const cases = (JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8")) as {
  cases: Array<{ name: string; result: BenchResult; bench: BenchSummary | null }>;
}).cases;
const expected = JSON.parse(fs.readFileSync(path.join(dir, "shown.json"), "utf8")) as Record<string, Shown>;
const units = JSON.parse(fs.readFileSync(path.join(dir, "units.json"), "utf8")) as {
  durations: Array<[number, string]>;
  modes: Array<[number | null, string]>;
  costs: Array<[number, string, string]>;
  signedCosts: Array<[number, string, string]>;
};

/** The state the daemon sends for a fixture: `skipped` for a partial result, else `passed`. */
function state(name: string): RunStateParams {
  const c = cases.find((x) => x.name === name)!;
  return { runId: 1, id: c.result.id, state: c.result.partial ? "skipped" : "passed", result: c.result, shown: expected[name]!, ...(c.bench ? { bench: c.bench } : {}) };
}

test("every fixture has its expected presentation", () => {
  assert.ok(cases.length >= 10);
  for (const c of cases) assert.ok(expected[c.name], c.name);
});

test("durations, modes and profile costs read exactly as in Rust", () => {
  for (const [ns, text] of units.durations) assert.equal(formatNs(ns), text, `${ns} ns`);
  for (const [ms, text] of units.modes) assert.equal(modeLabel(ms), text, `${ms} ms`);
  assert.ok(units.costs.some(([, unit]) => unit === "ns") && units.costs.some(([, unit]) => unit === "instructions"));
  for (const [perOp, unit, text] of units.costs) assert.equal(costText(perOp, unit), text, `${perOp} ${unit}`);
  assert.ok(units.signedCosts.length >= 4);
  for (const [change, unit, text] of units.signedCosts) assert.equal(signedCostText(change, unit), text, `${change} ${unit}`);
});

test("the Test Explorer: a warning fails the row, a note never does, the line is the daemon's", () => {
  for (const c of cases) {
    const shown = expected[c.name]!;
    const a = mapRunState(state(c.name));
    if (c.result.partial) {
      assert.equal(a.op, "skipped", c.name);
      continue;
    }
    assert.equal(a.op, shown.outcome === "passed" ? "passed" : "failed", c.name);
    assert.equal("description" in a ? a.description : undefined, shown.line, c.name);
    if (a.op === "failed") {
      const defects = shown.notes.filter((n) => n.severity === "warning");
      assert.deepEqual(
        a.messages.map((m) => m.text.split("\n")[0]),
        defects.map((n) => n.text.replace(/^⚠ /, "")),
        c.name,
      );
      for (const m of a.messages) assert.ok(m.text.endsWith(shown.detail), c.name);
    }
    // The row's accessible name starts with the benchmark's name.
    assert.ok(rowLabel(c.result.name, shown.line).startsWith(`${c.result.name} · `), c.name);
  }
  // The flat benchmark's case is never a green tick, through its benchmark's warning.
  assert.equal(mapRunState(state("flat_scaling_case")).op, "failed");
  assert.equal(mapRunState(state("info_notes_only")).op, "passed");
  assert.equal(mapRunState(state("optimized_away")).op, "failed");
});

test("the annotation of a benchmark without args is the daemon's line", () => {
  for (const c of cases.filter((x) => x.result.args === null)) {
    const shown = expected[c.name]!;
    const text = annotationText([{ args: null, verdict: c.result.comparison?.verdict ?? null, shown }]);
    assert.equal(text, shown.line, c.name);
  }
});

test("the status bar counts outcomes apart, as the Rust tally does", () => {
  const tracker = new RunTracker();
  for (const c of cases) {
    const p = state(c.name);
    assert.ok(tracker.record(p.id + c.name, p.state, p.shown?.outcome));
  }
  assert.equal(tallyText(tracker.tally()), "10 passed, 5 warned, 1 partial");
});

test("the results panel shows the daemon's line, notes and verdicts", () => {
  for (const c of cases) {
    const shown = expected[c.name]!;
    const pc = panelCase(c.result, shown, []);
    assert.equal(pc.line, shown.line, c.name);
    assert.deepEqual(pc.notes.map((n) => n.text), shown.notes.map((n) => n.text), c.name);
    assert.equal(pc.measured, !shown.figure.startsWith("≈ 0"), c.name);
  }
  const member = (name: string) => ({ result: cases.find((x) => x.name === name)!.result, shown: expected[name]! });
  const rows = groupRows([member("group_baseline"), member("group_member_slower"), member("group_member_twice_as_fast")]);
  assert.deepEqual(
    rows.map((r) => r.text),
    ["baseline", expected["group_member_slower"]!.verdict, expected["group_member_twice_as_fast"]!.verdict],
  );
});
