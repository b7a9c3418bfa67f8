// The client is a mapper: this module holds every decision about how daemon messages become
// Test Explorer items, TestRun states, messages and annotations, as pure functions over the
// wire types. What a result says (its line, its outcome, its notes) is the daemon's `Shown`;
// `format.ts` lays it out. `testExplorer.ts` and `annotations.ts` apply the results to
// `vscode` objects; the unit tests check the decisions here without VS Code.

import { countOutcome, emptyTally, failureMessages, type Tally } from "./format";
import type {
  TestItem,
  ItemKind,
  Outcome,
  OutputParams,
  Problems,
  Range,
  RunMode,
  RunOnSave,
  RunEndParams,
  RunParams,
  ItemState,
  RunStateParams,
  SourceLocation,
  Settings,
  TreeChangedParams,
} from "./wire";

// ---------------------------------------------------------------------------------------------
// The test tree

/** One node of the tree the Test Explorer shows, in display order. */
export interface TreeNode {
  id: string;
  label: string;
  kind: ItemKind;
  uri?: string;
  range?: Range;
  /** A note from the daemon to show beside the label (a criterion target not built yet). */
  detail?: string;
  children: TreeNode[];
}

const kindOrder: Record<ItemKind, number> = { package: 0, target: 1, bench: 2, case: 3 };

/**
 * Builds the tree from the daemon's flat item list (package → target → bench → case).
 * Items keep the daemon's order among siblings. An item whose parent is missing is attached at
 * the top, so nothing the daemon discovered is hidden. A repeated id keeps its first occurrence.
 */
export function buildTree(items: readonly TestItem[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  const parentOf = new Map<string, string | undefined>();
  for (const item of items) {
    if (nodes.has(item.id)) continue;
    const node: TreeNode = { id: item.id, label: item.label, kind: item.kind, children: [] };
    if (item.uri) node.uri = item.uri;
    if (item.range) node.range = item.range;
    if (item.detail) node.detail = item.detail;
    nodes.set(item.id, node);
    parentOf.set(item.id, item.parent ?? undefined);
  }
  const roots: TreeNode[] = [];
  for (const [id, node] of nodes) {
    const parentId = parentOf.get(id);
    const parent = parentId !== undefined && parentId !== id ? nodes.get(parentId) : undefined;
    if (parent && !isAncestor(node.id, parentId, parentOf)) parent.children.push(node);
    else roots.push(node);
  }
  roots.sort((a, b) => kindOrder[a.kind] - kindOrder[b.kind]);
  return roots;
}

/** True when `ancestor` is `start` or one of its parents: a cycle guard for malformed input. */
function isAncestor(ancestor: string, start: string | undefined, parentOf: Map<string, string | undefined>): boolean {
  const seen = new Set<string>();
  for (let cur = start; cur !== undefined && !seen.has(cur); cur = parentOf.get(cur)) {
    if (cur === ancestor) return true;
    seen.add(cur);
  }
  return false;
}

/** Every node of the tree, depth first. */
export function* walk(nodes: readonly TreeNode[]): Generator<TreeNode> {
  for (const n of nodes) {
    yield n;
    yield* walk(n.children);
  }
}

// ---------------------------------------------------------------------------------------------
// Tree changes (`knotmeter/treeChanged`)

/** The tree as the client holds it: items by id, and the daemon's version of it. */
export interface HeldTree {
  version: number;
  items: Map<string, TestItem>;
}

/**
 * Applies one change from the daemon. `ignored`: older than the tree held (a discover answer
 * overtook it); `stale`: it does not follow the tree held, so ask `knotmeter/discover` for the
 * whole tree; `applied`: the tree now has the change's version. Removed ids go first, then the
 * new and changed items (whole, parents before children).
 */
export function applyTreeChange(tree: HeldTree, change: TreeChangedParams): "applied" | "ignored" | "stale" {
  if (change.version <= tree.version) return "ignored";
  if (change.base !== tree.version) return "stale";
  for (const id of change.removed) tree.items.delete(id);
  for (const item of change.items) tree.items.set(item.id, item);
  tree.version = change.version;
  return "applied";
}

// ---------------------------------------------------------------------------------------------
// Run states

/** A source position, 0-based, as the daemon or a panic message gives it. */
export interface SourcePosition {
  /** An absolute URI (`file:///…`), an absolute path or a path relative to the workspace. */
  path: string;
  line: number;
  character: number;
}

/** A message for a TestRun: the text, and where it belongs when that is not the item itself. */
export interface RunMessage {
  text: string;
  /** Where the message points: a panic's location; absent means the function (its first line). */
  at?: SourcePosition;
  /** Warnings are shown as messages but the severity decides the wording. */
  kind: "panic" | "failure" | "error" | "warning" | "result";
}

/** What to do with a TestItem in a TestRun for one `knotmeter/runState` notification. */
export type RunAction =
  | { op: "enqueued" }
  | { op: "started" }
  | { op: "passed"; durationMs?: number; description?: string }
  | { op: "failed"; messages: RunMessage[]; durationMs?: number; description?: string }
  | { op: "errored"; messages: RunMessage[]; description?: string }
  | { op: "skipped"; description?: string };

/** States after which an item's state in a run no longer changes. */
export const finalStates: ReadonlySet<ItemState> = new Set(["passed", "failed", "errored", "skipped"]);

/**
 * Maps one daemon state change onto the TestRun. `building` is shown as enqueued (the item
 * waits for cargo). A measured item follows the daemon's `shown.outcome`: `passed` is a pass;
 * `warned` (a warning of the case or of its benchmark: `optimized_away`, `flat_scaling`, …) is
 * a failure with one message per warning at the function, never a green tick; the measured
 * figure stays in the description. The whole account reaches Test Results through the
 * daemon's `knotmeter/output` (the case when it ends, its comparison when the run ends).
 */
export function mapRunState(p: RunStateParams): RunAction {
  const shown = p.shown ?? undefined;
  const description = shown?.line;
  const durationMs = p.result ? Number(p.result.wall_ns) / 1e6 : undefined;
  switch (p.state) {
    case "enqueued":
    case "building":
      return { op: "enqueued" };
    case "started":
      return { op: "started" };
    case "passed": {
      if (shown && shown.outcome !== "passed") {
        const messages: RunMessage[] = failureMessages(shown).map((text) => ({ kind: "warning", text }));
        return withOptional({ op: "failed", messages }, { durationMs, description });
      }
      return withOptional({ op: "passed" }, { durationMs, description });
    }
    case "failed": {
      const text = p.message ?? "the benchmark failed";
      const at = sourcePosition(p.location);
      const msg: RunMessage = { kind: "panic", text };
      if (at) msg.at = at;
      return withOptional({ op: "failed", messages: [msg] }, { durationMs, description });
    }
    case "errored": {
      const text = p.message ?? "the benchmark could not be built or run";
      const msg: RunMessage = { kind: "error", text };
      const at = sourcePosition(p.location);
      if (at) msg.at = at;
      return withOptional({ op: "errored", messages: [msg] }, { description });
    }
    case "skipped":
      return withOptional({ op: "skipped" }, { description });
  }
}

/** Copies the defined values of `extra` onto `base` (keeps actions free of `undefined` fields). */
function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out as T;
}

/**
 * Where a failure points, as the daemon sent it (a panic's location, the first compiler error of
 * the item's package); absent means the function.
 */
export function sourcePosition(location: SourceLocation | undefined): SourcePosition | undefined {
  return location && { path: location.file, line: location.line, character: location.character };
}

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

/** The label of a run the daemon started by itself (run-on-save), and of one not named yet. */
export const ON_SAVE = "on save";

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

// ---------------------------------------------------------------------------------------------
// Run-on-save

/**
 * Who re-runs benchmarks on save, and how. An untrusted workspace never runs. A continuous run
 * started from the Test Explorer uses its profile's mode; otherwise the setting decides. The
 * daemon's own run-on-save (`Settings.runOnSave`) measures in quick mode after its build, so it
 * carries `quick`; for `full` the client asks for a full run of the saved file's benchmarks
 * with `knotmeter/run` after each save.
 */
export interface RunOnSavePlan {
  /** `Settings.runOnSave` for the daemon. */
  daemon: boolean;
  /** The mode of the runs the client starts on save, if it starts any. */
  client: RunMode | undefined;
}

export function runOnSavePlan(setting: RunOnSave, continuous: RunMode | undefined, trusted: boolean): RunOnSavePlan {
  if (!trusted) return { daemon: false, client: undefined };
  const mode = continuous ?? (setting === "off" ? undefined : setting);
  if (mode === "quick") return { daemon: true, client: undefined };
  if (mode === "full") return { daemon: false, client: "full" };
  return { daemon: false, client: undefined };
}

/** The daemon's settings for a plan (initializationOptions and workspace/didChangeConfiguration). */
export function serverSettings(plan: RunOnSavePlan, problems: Problems = "warnings"): Settings {
  return { runOnSave: plan.daemon, problems };
}

// ---------------------------------------------------------------------------------------------
// Inline annotations

/**
 * The 0-based line of a bench function's signature inside its range: the first line that
 * declares `fn label` (attributes and doc comments may come first), else the range's start.
 */
export function signatureLine(lines: (i: number) => string | undefined, range: Range, name: string): number {
  const re = new RegExp(`\\bfn\\s+${escapeRegExp(name)}\\b`);
  for (let i = range.start.line; i <= range.end.line; i++) {
    const text = lines(i);
    if (text === undefined) break;
    if (re.test(text)) return i;
  }
  return range.start.line;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The function name of a bench id: `quickstart::chain_n/1000` → `chain_n`. */
export function functionName(id: string): string {
  const path = id.split("/")[0] ?? id;
  const segs = path.split("::");
  return segs[segs.length - 1] ?? path;
}

/** What a lens's `knotmeter.run` asks for, as the Test Explorer runs it. */
export interface LensRun {
  mode: RunMode;
  /** Set for "⇄ Compare with base": the base to compare with (empty: the default base). */
  compare?: string;
}

/**
 * The run a lens asks for. "⇄ Compare with base" carries `compare: ""` (the daemon does not
 * know the editor's settings): the base is then `knotmeter.compare.base`, as for the "Compare
 * with base" run profile. A lens that names a base keeps it.
 */
export function lensRun(params: RunParams | undefined, compareBase: string): LensRun {
  const mode: RunMode = params?.mode === "quick" ? "quick" : "full";
  const compare = params?.compare;
  if (compare === undefined || compare === null) return { mode };
  return { mode, compare: compare || compareBase };
}
