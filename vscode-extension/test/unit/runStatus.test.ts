import assert from "node:assert/strict";
import { test } from "node:test";
import { RunStatus, type StatusView } from "../../src/runStatus";

const ids = ["q::a", "q::b", "q::c"];

/** The status bar as one line. */
function line(v: StatusView): string {
  return v.kind === "running" ? `running ${v.label} ${v.done}/${v.total} · ${v.what}` : `idle ${v.last ?? "-"}`;
}

test("a cancelled run's status bar counts passed and skipped apart, adding up to the run", () => {
  const s = new RunStatus();
  s.runStarted(1, "Run");
  for (const id of ids) s.runState(1, id, "enqueued");
  s.runState(1, "q::a", "started");
  assert.equal(line(s.view()), "running Run 0/3 · a");
  s.runState(1, "q::a", "passed", "passed");
  s.runState(1, "q::b", "started");
  s.runState(1, "q::b", "skipped", "partial");
  s.runState(1, "q::c", "skipped");
  s.runEnded(1);
  assert.equal(line(s.view()), "idle 1 passed, 1 partial, 1 skipped");
});

// The daemon's run answer and its notifications take different ways out: a run that ends at
// once (every id excluded, a target without `harness = false`) may end before the answer. The
// bar used to start a run on the answer after its end, and spin on it for ever.
test("status_bar_stops_when_the_run_end_comes_before_the_run_answer", () => {
  const s = new RunStatus();
  s.runState(4, "q::a", "enqueued");
  s.runState(4, "q::a", "errored");
  s.runEnded(4);
  s.runStarted(4, "Run");
  assert.equal(line(s.view()), "idle 1 errored");
  // A state that comes after its run's end does not start a run either.
  s.runState(4, "q::a", "passed", "passed");
  assert.equal(line(s.view()), "idle 1 errored");
});

// States that came before the answer were dropped when the answer replaced the run's counts:
// the bar then said "0/0 · starting" and its tally left out every case already done.
test("status_bar_keeps_the_states_that_came_before_the_run_answer", () => {
  const s = new RunStatus();
  for (const id of ids) s.runState(2, id, "building");
  s.runState(2, "q::a", "started");
  s.runState(2, "q::a", "passed", "warned");
  s.runStarted(2, "Run (quick)");
  assert.equal(line(s.view()), "running Run (quick) 1/3 · a");
  s.runState(2, "q::b", "passed", "passed");
  s.runState(2, "q::c", "skipped");
  s.runEnded(2);
  assert.equal(line(s.view()), "idle 1 passed, 1 warned, 1 skipped");
});

test("a run the daemon started by itself shows as on save until it ends", () => {
  const s = new RunStatus();
  s.runState(7, "q::a", "building");
  assert.equal(line(s.view()), "running on save 0/1 · building");
  s.runEnded(7);
  assert.equal(line(s.view()), "idle 1 skipped");
});

test("status_bar_stops_when_the_daemon_stops_during_a_run", () => {
  const s = new RunStatus();
  s.runStarted(3, "Run");
  for (const id of ids) s.runState(3, id, "enqueued");
  s.runState(3, "q::a", "passed", "passed");
  s.daemonStopped();
  assert.equal(line(s.view()), "idle 1 passed, 2 skipped");
  // The next daemon numbers its runs from 1 again: its run 3 is a new run.
  s.runStarted(3, "Run");
  s.runState(3, "q::a", "started");
  assert.equal(line(s.view()), "running Run 0/1 · a");
});
