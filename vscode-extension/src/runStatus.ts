// What the status bar says, decided apart from `vscode` (statusBar.ts shows it): the run in
// progress with its progress, or how the last run's items ended. A run's notifications do not
// wait for the `knotmeter/run` answer that names it (see `RunRouter`): its states, and even
// its end, may come first. None of that may lose a count or leave the bar spinning for a run
// that is over.

import { tallyText } from "./format";
import { RunTracker } from "./model";
import type { ItemState, Outcome } from "./wire";

/** A run as the status bar knows it. */
interface Live {
  /** "Run", "Run (quick)", "on save": unknown until the run's answer (then "on save"). */
  label?: string;
  tracker: RunTracker;
  /** The case being measured. */
  current?: string;
  building?: boolean;
}

/** What the status bar shows. */
export type StatusView =
  | { kind: "running"; label: string; done: number; total: number; what: string }
  | { kind: "idle"; last: string | undefined };

/** How many ended run ids are remembered, to ignore their late notifications. */
const ENDED_KEPT = 64;

/** The runs the status bar follows, fed with the daemon's notifications in the order they came. */
export class RunStatus {
  private readonly runs = new Map<number, Live>();
  /** Runs that ended, newest last: a late answer or state for one of them is not a new run. */
  private readonly ended: number[] = [];
  private last: string | undefined;

  /** The answer to `knotmeter/run` named this run (its notifications may have come first). */
  runStarted(runId: number, label: string): void {
    if (this.ended.includes(runId)) return;
    this.live(runId).label = label;
  }

  /** A `knotmeter/runState`. */
  runState(runId: number, id: string, state: ItemState, outcome?: Outcome): void {
    if (this.ended.includes(runId)) return;
    const live = this.live(runId);
    live.tracker.record(id, state, outcome);
    if (state === "started") {
      live.current = id;
      live.building = false;
    }
    if (state === "building") live.building = true;
  }

  /** A `knotmeter/runEnd`: the run's tally becomes the last one. */
  runEnded(runId: number): void {
    const live = this.runs.get(runId);
    this.runs.delete(runId);
    this.ended.push(runId);
    if (this.ended.length > ENDED_KEPT) this.ended.shift();
    if (live) this.last = tallyText(live.tracker.tally());
  }

  /**
   * The daemon stopped: its runs are over (what did not finish counts as skipped, as in the
   * Test Explorer), and the next daemon numbers its runs afresh.
   */
  daemonStopped(): void {
    for (const runId of [...this.runs.keys()]) this.runEnded(runId);
    this.ended.length = 0;
  }

  /** The newest run in progress, or the last run's tally. */
  view(): StatusView {
    const live = [...this.runs.values()].pop();
    if (!live) return { kind: "idle", last: this.last };
    const { done, total } = live.tracker.progress();
    const what = live.building ? "building" : live.current ? shortId(live.current) : "starting";
    return { kind: "running", label: live.label ?? "on save", done, total, what };
  }

  private live(runId: number): Live {
    let live = this.runs.get(runId);
    if (!live) {
      live = { tracker: new RunTracker() };
      this.runs.set(runId, live);
    }
    return live;
  }
}

/** `quickstart::chain_n/1000` → `chain_n/1000`. */
function shortId(id: string): string {
  const i = id.lastIndexOf("::");
  return i < 0 ? id : id.slice(i + 2);
}
