import assert from "node:assert/strict";
import { test } from "node:test";
import { watchClientLife, type ClientStates } from "../../src/clientLife";

// vscode-languageclient's public states.
const Stopped = 1;
const Running = 2;
const Starting = 3;

/** A language client whose state changes the test makes. */
class FakeClient implements ClientStates {
  private listeners: ((e: { oldState: number; newState: number }) => void)[] = [];
  state = Running;
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => void) {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }
  go(newState: number): void {
    const oldState = this.state;
    this.state = newState;
    for (const l of this.listeners) l({ oldState, newState });
  }
}

// The bug: a daemon that crashed was restarted by the language client itself, and nothing told
// the Test Explorer or the status bar: the run in progress spun for ever, and the new daemon's
// tree was never asked for.
test("daemon_restarted_by_the_client_left_its_runs_open", () => {
  const client = new FakeClient();
  const seen: boolean[] = [];
  watchClientLife(client, Running, (up) => seen.push(up));
  // The crash, then the client's own restart.
  client.go(Stopped);
  client.go(Starting);
  client.go(Running);
  assert.deepEqual(seen, [false, true]);
});

test("a client that stops for good says so once, and nothing more", () => {
  const client = new FakeClient();
  const seen: boolean[] = [];
  watchClientLife(client, Running, (up) => seen.push(up));
  client.go(Stopped);
  client.go(Stopped);
  assert.deepEqual(seen, [false]);
});

test("after dispose, state changes are not reported", () => {
  const client = new FakeClient();
  const seen: boolean[] = [];
  watchClientLife(client, Running, (up) => seen.push(up)).dispose();
  client.go(Stopped);
  assert.deepEqual(seen, []);
});
