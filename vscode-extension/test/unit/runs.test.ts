// The one registry of runs (`Runs`): which run a notification belongs to, whatever order the
// `knotmeter/run` answer and the run's notifications come in, and what the status bar reads of it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Runs, type Released, type RunEvent, type RunInfo } from "../../src/runs";
import { statusView } from "../../src/runStatus";
import type { ItemState, Outcome } from "../../src/wire";
import { shown } from "./fixtures";

const ids = ["q::a", "q::b", "q::c"];

function state(runId: number, id: string, s: ItemState, outcome?: Outcome): RunEvent {
  return { kind: "state", p: { runId, id, state: s, ...(outcome ? { shown: shown({ outcome }) } : {}) } };
}
const output = (runId: number, text: string): RunEvent => ({ kind: "output", p: { runId, text } });
const end = (runId: number): RunEvent => ({ kind: "end", p: { runId } });

/** A registry whose runs are shown as strings; `started` logs the runs the daemon started. */
function registry(): { runs: Runs<string>; started: RunInfo[] } {
  const started: RunInfo[] = [];
  const runs = new Runs<string>((info) => {
    started.push(info);
    return `save-${info.runId}`;
  });
  return { runs, started };
}

/** The client's run `runId` answered, shown as `mine-<runId>`. */
function answer(runs: Runs<string>, runId: number, label: string, expected: string[] = [], background = false) {
  return runs.requestAnswered({ runId, label, background }, `mine-${runId}`, expected);
}

/** The status bar as one line. */
function bar(runs: Runs<string>): string {
  const v = statusView(runs);
  return v.kind === "running" ? `running ${v.label} ${v.done}/${v.total} · ${v.what}` : `idle ${v.last ?? "-"}`;
}

/** Events as short lines: `5 started q::a`, `5 output x`, `5 end`. */
function lines(events: RunEvent[]): string[] {
  const line = (e: RunEvent) => (e.kind === "state" ? `${e.p.state} ${e.p.id}` : e.kind === "output" ? `output ${e.p.text}` : "end");
  return events.map((e) => `${e.p.runId} ${line(e)}`);
}

/** Runs with their events, as `ui: events`. */
function released(list: Released<string>): string[] {
  return list.map(([r, events]) => `${r.ui}: ${lines(events).join(", ")}`);
}

// ---------------------------------------------------------------------------------------------
// Routing (was RunRouter)

test("notifications that arrive before knotmeter/run answers go to that run, in order", () => {
  const { runs, started } = registry();
  runs.requestSent();
  assert.equal(runs.route(state(5, "q::a", "enqueued")), undefined);
  assert.equal(runs.route(state(6, "q::b", "enqueued")), undefined);
  assert.equal(runs.route(state(5, "q::a", "started")), undefined);
  assert.deepEqual(started, [], "nothing is shown while a request is in flight");
  const { entry, mine, others } = answer(runs, 5, "Run");
  assert.equal(entry.ui, "mine-5");
  assert.deepEqual(lines(mine), ["5 enqueued q::a", "5 started q::a"]);
  assert.deepEqual(released(others), ["save-6: 6 enqueued q::b"]);
  assert.equal(runs.route(state(5, "q::a", "passed", "passed"))?.ui, "mine-5");
  assert.equal(runs.route(state(7, "q::c", "enqueued"))?.ui, "save-7");
  assert.deepEqual(started, [
    { runId: 6, label: "on save", background: true },
    { runId: 7, label: "on save", background: true },
  ]);
  assert.equal(runs.route(end(5))?.ui, "mine-5");
  assert.deepEqual(runs.active().map((r) => r.ui), ["save-6", "save-7"]);
});

test("a failed knotmeter/run request releases the runs the daemon started meanwhile", () => {
  const { runs } = registry();
  runs.requestSent();
  runs.route(output(9, "x"));
  assert.deepEqual(released(runs.requestFailed()), ["save-9: 9 output x"]);
  assert.deepEqual(runs.active().map((r) => r.ui), ["save-9"]);
});

test("two requests in flight: each answer takes its own events, the daemon's runs wait for both", () => {
  const { runs, started } = registry();
  runs.requestSent();
  runs.requestSent();
  runs.route(state(2, "q::b", "enqueued"));
  runs.route(state(1, "q::a", "enqueued"));
  runs.route(state(3, "q::c", "enqueued"));
  runs.route(state(2, "q::b", "started"));
  const second = answer(runs, 2, "Run (quick)");
  assert.deepEqual(lines(second.mine), ["2 enqueued q::b", "2 started q::b"]);
  assert.deepEqual(second.others, [], "run 1 may still be the other request's");
  runs.route(state(1, "q::a", "started"));
  const first = answer(runs, 1, "Run");
  assert.deepEqual(lines(first.mine), ["1 enqueued q::a", "1 started q::a"]);
  assert.deepEqual(released(first.others), ["save-3: 3 enqueued q::c"]);
  assert.deepEqual(started.map((r) => r.runId), [3]);
  assert.deepEqual(runs.active().map((r) => `${r.ui} ${r.label}`), ["mine-2 Run (quick)", "mine-1 Run", "save-3 on save"]);
  assert.equal(bar(runs), "running on save 0/1 · starting", "the newest run in progress is shown");
});

test("a state its item can no longer take is neither held nor applied", () => {
  const { runs } = registry();
  runs.requestSent();
  runs.route(state(4, "q::a", "passed", "passed"));
  runs.route(state(4, "q::a", "started"));
  runs.route(state(4, "q::a", "passed", "warned"));
  assert.deepEqual(lines(answer(runs, 4, "Run").mine), ["4 passed q::a", "4 passed q::a"]);
  assert.equal(runs.route(state(4, "q::a", "errored")), undefined);
  runs.route(end(4));
  assert.equal(bar(runs), "idle 1 warned");
});

test("a run ended twice ends once, and a late notification of an ended run starts no run", () => {
  const { runs, started } = registry();
  runs.route(state(8, "q::a", "passed", "passed"));
  assert.equal(runs.route(end(8))?.ui, "save-8");
  assert.equal(runs.route(end(8)), undefined);
  assert.equal(runs.route(output(8, "late")), undefined);
  assert.equal(runs.route(state(8, "q::a", "started")), undefined);
  assert.deepEqual(started.map((r) => r.runId), [8], "no second run for id 8");
  assert.deepEqual(runs.active(), []);
  assert.equal(bar(runs), "idle 1 passed");
});

// Not seen from a daemon that works (its run's notifications wait for the answer), but an
// answer must never start a run that is over: the bar would spin on it for ever.
test("an answer for a run already over and forgotten gets its end, and the bar stays idle", () => {
  const { runs } = registry();
  runs.route(state(9, "q::a", "errored"));
  runs.route(end(9));
  const { entry, mine, others } = answer(runs, 9, "Run", ["q::a", "q::b"]);
  assert.deepEqual(lines(mine), ["9 end"]);
  assert.deepEqual(others, []);
  assert.deepEqual(entry.tracker.unfinished(), ["q::a", "q::b"], "its TestRun saw none of it: all skipped");
  assert.deepEqual(runs.active(), []);
  assert.equal(bar(runs), "idle 1 errored");
});

test("the items a run was asked for count from its answer and are skipped if never reached", () => {
  const { runs } = registry();
  runs.requestSent();
  const { entry } = answer(runs, 1, "Run", ids);
  assert.equal(bar(runs), "running Run 0/3 · starting");
  runs.route(state(1, "q::a", "passed", "passed"));
  assert.equal(runs.route(end(1)), entry);
  assert.deepEqual(entry.tracker.unfinished(), ["q::b", "q::c"]);
  assert.equal(bar(runs), "idle 1 passed, 2 skipped");
});

test("a background run the client started is named on save and kept apart from the focus", () => {
  const { runs } = registry();
  runs.requestSent();
  const { entry } = answer(runs, 2, "on save", ["q::a"], true);
  assert.deepEqual([entry.label, entry.background], ["on save", true]);
  assert.deepEqual(runs.active().map((r) => r.ui), ["mine-2"]);
  runs.route(state(2, "q::a", "started"));
  assert.equal(bar(runs), "running on save 0/1 · a");
});

test("the status bar is told of every change until it stops listening", () => {
  const { runs } = registry();
  let calls = 0;
  const stop = runs.onChange(() => calls++);
  runs.requestSent();
  runs.route(state(1, "q::a", "enqueued"));
  answer(runs, 1, "Run");
  runs.route(end(1));
  runs.route(state(2, "q::a", "enqueued"));
  runs.daemonStopped();
  assert.equal(calls, 5);
  stop();
  runs.route(state(3, "q::a", "enqueued"));
  assert.equal(calls, 5);
});

// ---------------------------------------------------------------------------------------------
// What the status bar reads (was RunStatus)

test("a cancelled run's status bar counts passed and skipped apart, adding up to the run", () => {
  const { runs } = registry();
  runs.requestSent();
  answer(runs, 1, "Run");
  for (const id of ids) runs.route(state(1, id, "enqueued"));
  runs.route(state(1, "q::a", "started"));
  assert.equal(bar(runs), "running Run 0/3 · a");
  runs.route(state(1, "q::a", "passed", "passed"));
  runs.route(state(1, "q::b", "started"));
  runs.route(state(1, "q::b", "skipped", "partial"));
  runs.route(state(1, "q::c", "skipped"));
  runs.route(end(1));
  assert.equal(bar(runs), "idle 1 passed, 1 partial, 1 skipped");
});

// The daemon's run answer and its notifications take different ways out: a run that ends at
// once (every id excluded, a target without `harness = false`) may end before the answer. The
// bar used to start a run on the answer after its end, and spin on it for ever.
test("status_bar_stops_when_the_run_end_comes_before_the_run_answer", () => {
  const { runs } = registry();
  runs.requestSent();
  runs.route(state(4, "q::a", "enqueued"));
  runs.route(state(4, "q::a", "errored"));
  runs.route(end(4));
  assert.equal(bar(runs), "idle 1 errored", "over before its answer");
  assert.equal(runs.route(output(4, "after its end")), undefined);
  const { mine } = answer(runs, 4, "Run");
  assert.deepEqual(lines(mine), ["4 enqueued q::a", "4 errored q::a", "4 end"], "the Test Explorer still gets its end");
  assert.deepEqual(runs.active(), [], "and nothing is left to cancel");
  assert.equal(bar(runs), "idle 1 errored");
  // A state that comes after its run's end does not start a run either.
  assert.equal(runs.route(state(4, "q::a", "passed", "passed")), undefined);
  assert.equal(bar(runs), "idle 1 errored");
});

// States that came before the answer were dropped when the answer replaced the run's counts:
// the bar then said "0/0 · starting" and its tally left out every case already done.
test("status_bar_keeps_the_states_that_came_before_the_run_answer", () => {
  const { runs } = registry();
  runs.requestSent();
  for (const id of ids) runs.route(state(2, id, "building"));
  runs.route(state(2, "q::a", "started"));
  runs.route(state(2, "q::a", "passed", "warned"));
  assert.equal(bar(runs), "running on save 1/3 · a", "not named before its answer");
  answer(runs, 2, "Run (quick)");
  assert.equal(bar(runs), "running Run (quick) 1/3 · a");
  runs.route(state(2, "q::b", "passed", "passed"));
  runs.route(state(2, "q::c", "skipped"));
  runs.route(end(2));
  assert.equal(bar(runs), "idle 1 passed, 1 warned, 1 skipped");
});

test("a run the daemon started by itself shows as on save until it ends", () => {
  const { runs, started } = registry();
  runs.route(state(7, "q::a", "building"));
  assert.deepEqual(started, [{ runId: 7, label: "on save", background: true }]);
  assert.equal(bar(runs), "running on save 0/1 · building");
  runs.route(end(7));
  assert.equal(bar(runs), "idle 1 skipped");
});

test("status_bar_stops_when_the_daemon_stops_during_a_run", () => {
  const { runs } = registry();
  runs.requestSent();
  answer(runs, 3, "Run");
  for (const id of ids) runs.route(state(3, id, "enqueued"));
  runs.route(state(3, "q::a", "passed", "passed"));
  assert.deepEqual(runs.daemonStopped().map((r) => r.ui), ["mine-3"], "the Test Explorer ends it");
  assert.equal(bar(runs), "idle 1 passed, 2 skipped");
  // The next daemon numbers its runs from 1 again: its run 3 is a new run.
  runs.requestSent();
  answer(runs, 3, "Run");
  runs.route(state(3, "q::a", "started"));
  assert.equal(bar(runs), "running Run 0/1 · a");
});

test("a daemon that stops while a request is in flight leaves nothing held for its runs", () => {
  const { runs, started } = registry();
  runs.requestSent();
  runs.route(state(5, "q::a", "enqueued"));
  assert.deepEqual(runs.daemonStopped(), [], "a run not known yet has no TestRun to end");
  assert.equal(bar(runs), "idle 1 skipped");
  assert.deepEqual(runs.requestFailed(), []);
  assert.deepEqual(started, []);
});
