// Runs: the one registry of the client's runs (which run a notification belongs to, how far it
// got, and what is left when it ends), read by the Test Explorer and the status bar alike. Pure:
// the unit tests check it without VS Code.

import { ON_SAVE, countOutcome, emptyTally, type Tally } from "./format";
import { finalStates } from "./model";
import type { ItemState, Outcome, OutputParams, RunEndParams, RunStateParams } from "./wire";

// ---------------------------------------------------------------------------------------------
// Runs: which run a notification belongs to, how far it got, and what is left when it ends

/**
 * Tracks the states of one run so that, when it ends (finished or cancelled), whatever never
 * reached a final state is marked `skipped`, and so that the status bar can count how items
 * ended. A measured item may be reported again (`passed` once more, with its benchmark's
 * analysis or its comparison): that is an update, not a new state.
 */
export class RunTracker {
  private readonly states = new Map<string, { state: ItemState; outcome?: Outcome }>();

  /**
   * Records a state; returns false when it must be ignored: a state change after a final
   * one, except a `passed` again after `passed` (an update of a measured item).
   */
  record(id: string, state: ItemState, outcome?: Outcome): boolean {
    const prev = this.states.get(id);
    if (prev !== undefined && finalStates.has(prev.state) && !(prev.state === "passed" && state === "passed")) return false;
    this.states.set(id, outcome ? { state, outcome } : { state });
    return true;
  }

  /** Notes the items the run was asked to run, so that they count as pending. */
  expect(ids: Iterable<string>): void {
    for (const id of ids) if (!this.states.has(id)) this.states.set(id, { state: "enqueued" });
  }

  /** Ids that were enqueued or running and never finished: to be marked `skipped`. */
  unfinished(): string[] {
    return [...this.states].filter(([, s]) => !finalStates.has(s.state)).map(([id]) => id);
  }

  /** Progress of the run: items done, and how many there are. */
  progress(): { done: number; total: number } {
    let done = 0;
    for (const s of this.states.values()) if (finalStates.has(s.state)) done++;
    return { done, total: this.states.size };
  }

  /**
   * How the items ended: measured ones by outcome (a warned item is not a passed one), and
   * `skipped` for what never ran, including what a run that ended left unfinished.
   */
  tally(): Tally {
    const tally = emptyTally();
    for (const s of this.states.values()) {
      switch (s.state) {
        case "passed":
          countOutcome(tally, s.outcome ?? "passed");
          break;
        case "failed":
          tally.failed++;
          break;
        case "errored":
          tally.errored++;
          break;
        case "skipped":
          if (s.outcome === "partial") tally.partial++;
          else tally.skipped++;
          break;
        default:
          tally.skipped++;
      }
    }
    return tally;
  }
}

/** A notification about a run, as it came from the daemon. */
export type RunEvent =
  | { kind: "state"; p: RunStateParams }
  | { kind: "output"; p: OutputParams }
  | { kind: "end"; p: RunEndParams };

/** A run as the other concerns see it: the daemon's id and a human name. */
export interface RunInfo {
  runId: number;
  /** "Run", "Run (quick)", "Compare with …" or "on save". */
  label: string;
  /** True for a run on save: nothing may take focus for it. */
  background: boolean;
}

/** One run in the registry. `T` is how the Test Explorer shows it (its TestRun). */
export interface RunEntry<T> {
  readonly runId: number;
  /** Its label: undefined while the run is not known yet (its events are held). */
  label: string | undefined;
  background: boolean;
  /** Its items' states, recorded as they come, held or not. */
  readonly tracker: RunTracker;
  /** The case last started, and whether a build came after it (for the status bar). */
  current: string | undefined;
  building: boolean;
  /** How the Test Explorer shows it: undefined until the run is known. */
  ui: T | undefined;
  /** The events that came before the run was known, in order. */
  readonly held: RunEvent[];
  /** Its end came (a run not known yet stays held until it is). */
  ended: boolean;
}

/** A run the Test Explorer shows: its events go to it as they come. */
export type KnownRun<T> = RunEntry<T> & { ui: T };

/** Runs now known, each with the events held for it, in order. */
export type Released<T> = Array<[KnownRun<T>, RunEvent[]]>;

/** How many ended run ids are remembered, to ignore their late notifications. */
const ENDED_KEPT = 64;

/**
 * The one registry of runs: the Test Explorer feeds it every notification and the status bar
 * reads it. A run the client starts gets its id only when `knotmeter/run` answers, and the
 * daemon may already have sent notifications for it, even its end; runs the daemon starts by
 * itself (run-on-save) have ids the client never asked for. While a request is in flight,
 * notifications for unknown ids are recorded and held; when it answers, those for its id go to
 * it and the rest belong to runs the daemon started. A run that ended is forgotten, and its id
 * remembered so that a late notification does not start a run again.
 */
export class Runs<T> {
  private readonly entries = new Map<number, RunEntry<T>>();
  /** Ids of runs that ended, newest last. */
  private readonly ended: number[] = [];
  private readonly listeners = new Set<() => void>();
  private pending = 0;
  private lastTally: Tally | undefined;

  /** `onDaemonRun` shows a run the daemon started by itself. */
  constructor(private readonly onDaemonRun: (run: RunInfo) => T) {}

  /** Calls `listener` after every change; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A `knotmeter/run` request was sent. */
  requestSent(): void {
    this.pending++;
  }

  /** The request failed: no run will come from it. Returns runs the daemon started meanwhile. */
  requestFailed(): Released<T> {
    this.pending = Math.max(0, this.pending - 1);
    const others = this.pending === 0 ? this.releaseHeld() : [];
    this.changed();
    return others;
  }

  /**
   * `knotmeter/run` answered with `run.runId`, shown as `ui`, for the items `expected`: returns
   * its entry with the events held for it, in order, and the runs the daemon started meanwhile
   * with theirs. A run that ended and was forgotten already gets only its end.
   */
  requestAnswered(run: RunInfo, ui: T, expected: Iterable<string>): { entry: KnownRun<T>; mine: RunEvent[]; others: Released<T> } {
    this.pending = Math.max(0, this.pending - 1);
    const forgotten = !this.entries.has(run.runId) && this.ended.includes(run.runId);
    const entry = this.entries.get(run.runId) ?? this.create(run.runId);
    if (forgotten) {
      entry.ended = true;
      entry.held.push({ kind: "end", p: { runId: run.runId } });
    }
    entry.ui = ui;
    entry.label = run.label;
    entry.background = run.background;
    entry.tracker.expect(expected);
    const mine = this.takeHeld(entry);
    const others = this.pending === 0 ? this.releaseHeld() : [];
    this.changed();
    return { entry: entry as KnownRun<T>, mine, others };
  }

  /**
   * Records a notification and says where it goes: the known run it belongs to, or nothing
   * (held until its run is known, a state its item can no longer take, or a run that ended).
   */
  route(event: RunEvent): KnownRun<T> | undefined {
    const runId = event.p.runId;
    let entry = this.entries.get(runId);
    if (entry === undefined) {
      if (this.ended.includes(runId)) return undefined;
      entry = this.create(runId);
      if (this.pending === 0) this.showDaemonRun(entry);
    }
    if (entry.ended) return undefined;
    const accepted = this.record(entry, event);
    this.changed();
    if (!accepted) return undefined;
    if (entry.ui === undefined) {
      entry.held.push(event);
      return undefined;
    }
    if (entry.ended) this.entries.delete(runId);
    return entry as KnownRun<T>;
  }

  /** The runs the Test Explorer shows, oldest first (a known run is forgotten when it ends). */
  active(): KnownRun<T>[] {
    return [...this.entries.values()].filter((e): e is KnownRun<T> => e.ui !== undefined);
  }

  /** The runs in progress, known or held, oldest first. */
  live(): RunEntry<T>[] {
    return [...this.entries.values()].filter((e) => !e.ended);
  }

  /** How the items of the run that ended last ended. */
  get last(): Tally | undefined {
    return this.lastTally;
  }

  /**
   * The daemon stopped: its runs are over (the newest one's counts become the last ones, what
   * did not finish counting as skipped), what was held goes, and the next daemon numbers its
   * runs afresh. Returns the runs the Test Explorer must end.
   */
  daemonStopped(): KnownRun<T>[] {
    const live = this.live();
    const newest = live[live.length - 1];
    if (newest) this.lastTally = newest.tracker.tally();
    const known = this.active();
    for (const entry of live) entry.ended = true;
    this.entries.clear();
    this.ended.length = 0;
    this.changed();
    return known;
  }

  private create(runId: number): RunEntry<T> {
    const entry: RunEntry<T> = {
      runId,
      label: undefined,
      background: false,
      tracker: new RunTracker(),
      current: undefined,
      building: false,
      ui: undefined,
      held: [],
      ended: false,
    };
    this.entries.set(runId, entry);
    return entry;
  }

  /** Notes a state or an end; returns false when a state must be ignored (see `RunTracker.record`). */
  private record(entry: RunEntry<T>, event: RunEvent): boolean {
    if (event.kind === "end") {
      entry.ended = true;
      this.ended.push(entry.runId);
      if (this.ended.length > ENDED_KEPT) this.ended.shift();
      this.lastTally = entry.tracker.tally();
      return true;
    }
    if (event.kind === "output") return true;
    const p = event.p;
    if (p.state === "started") {
      entry.current = p.id;
      entry.building = false;
    }
    if (p.state === "building") entry.building = true;
    return entry.tracker.record(p.id, p.state, p.shown?.outcome);
  }

  private showDaemonRun(entry: RunEntry<T>): void {
    entry.label = ON_SAVE;
    entry.background = true;
    entry.ui = this.onDaemonRun({ runId: entry.runId, label: ON_SAVE, background: true });
  }

  /** The events held for a run now known; a run that ended is forgotten with them. */
  private takeHeld(entry: RunEntry<T>): RunEvent[] {
    const events = entry.held.splice(0);
    if (entry.ended) this.entries.delete(entry.runId);
    return events;
  }

  /** No request is in flight: every run still held is one the daemon started. */
  private releaseHeld(): Released<T> {
    const held = [...this.entries.values()].filter((e) => e.ui === undefined);
    return held.map((entry) => {
      this.showDaemonRun(entry);
      return [entry as KnownRun<T>, this.takeHeld(entry)];
    });
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

