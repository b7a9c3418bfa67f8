// The client is a mapper: this module holds every decision about how daemon messages become
// Test Explorer items, TestRun states, messages and annotations, as pure functions over the
// wire types. What a result says (its line, its outcome, its notes) is the daemon's `Shown`;
// `format.ts` lays it out. `testExplorer.ts` and `annotations.ts` apply the results to
// `vscode` objects; the unit tests check the decisions here without VS Code.

import { BENCH_FAILED, BENCH_NOT_RUN, failureMessages } from "./format";
import type {
  TestItem,
  ItemKind,
  Problems,
  ProfileTool,
  Range,
  RunMode,
  RunOnSave,
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
 * The items being measured right now, for the "measuring…" annotations: an item starts, it
 * leaves when its state is final, and every item leaves when its run ends or when the daemon
 * stops (a daemon killed mid-run sends no end, and its items must not read "measuring…" for
 * ever).
 */
export class Measuring {
  private readonly ids = new Set<string>();

  /** Notes one state change of an item. */
  state(p: Pick<RunStateParams, "id" | "state">): void {
    if (p.state === "started") this.ids.add(p.id);
    else if (finalStates.has(p.state)) this.ids.delete(p.id);
  }

  /** A run ended, or the daemon that ran it stopped: nothing is being measured. */
  clear(): void {
    this.ids.clear();
  }

  /** Whether any of these items is being measured. */
  any(ids: readonly string[]): boolean {
    return ids.some((id) => this.ids.has(id));
  }
}

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
      const text = p.message ?? BENCH_FAILED;
      const at = sourcePosition(p.location);
      const msg: RunMessage = { kind: "panic", text };
      if (at) msg.at = at;
      return withOptional({ op: "failed", messages: [msg] }, { durationMs, description });
    }
    case "errored": {
      const text = p.message ?? BENCH_NOT_RUN;
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
// Run-on-save

/**
 * Who re-runs benchmarks on save, and how. An untrusted workspace never runs. A continuous run
 * started from the Test Explorer uses its profile's mode; otherwise the setting decides. The
 * daemon's own run-on-save (`Settings.runOnSave`) measures in quick mode after its build, so it
 * carries `quick`; for `full` the client asks for a full run of the saved file's benchmarks
 * with `knotmeter/run` after each save. A continuous run of the "Profile" run profile also
 * profiles on save: the client asks for a quick profile run (a shorter budget) of the saved
 * file's benchmarks, beside whatever measures them, and the hot lines follow each save.
 */
export interface RunOnSavePlan {
  /** `Settings.runOnSave` for the daemon. */
  daemon: boolean;
  /** The mode of the measuring runs the client starts on save, if it starts any. */
  client: RunMode | undefined;
  /** The client also starts a quick profile run on save. */
  profile: boolean;
  /** The client also starts a counting run on save (a continuous "Count instructions" run). */
  count: boolean;
}

/**
 * `measuring`: the mode of the measuring continuous run in force, if any; `profiling`: whether
 * a continuous "Profile" run is; `counting`: whether a continuous "Count instructions" run is.
 */
export function runOnSavePlan(setting: RunOnSave, measuring: RunMode | undefined, profiling: boolean, counting: boolean, trusted: boolean): RunOnSavePlan {
  if (!trusted) return { daemon: false, client: undefined, profile: false, count: false };
  const mode = measuring ?? (setting === "off" ? undefined : setting);
  return { daemon: mode === "quick", client: mode === "full" ? "full" : undefined, profile: profiling, count: counting };
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
  /** Set for "◔ Profile": a profile run. */
  profile?: true;
  /** Set for "Count instructions": each case's instructions counted (`measure: "instructions"`). */
  count?: true;
}

/** The `knotmeter/run` params of a run of `how` over `include` less `exclude`. */
export function runParams(how: LensRun, include: string[] | null, exclude: string[] | null, profiler: ProfileTool): RunParams {
  return {
    include,
    exclude,
    mode: how.mode,
    ...(how.compare !== undefined ? { compare: how.compare } : {}),
    ...(how.profile ? { profile: true, profiler } : {}),
    ...(how.count ? { measure: "instructions" as const } : {}),
  };
}

/**
 * The run a lens asks for. "⇄ Compare with base" carries `compare: ""` (the daemon does not
 * know the editor's settings): the base is then `knotmeter.compare.base`, as for the "Compare
 * with base" run profile. A lens that names a base keeps it. "◔ Profile" carries `profile: true`.
 */
export function lensRun(params: RunParams | undefined, compareBase: string): LensRun {
  const mode: RunMode = params?.mode === "quick" ? "quick" : "full";
  if (params?.profile === true) return { mode, profile: true };
  if (params?.measure === "instructions") return { mode, count: true };
  const compare = params?.compare;
  if (compare === undefined || compare === null) return { mode };
  return { mode, compare: compare || compareBase };
}
