// The Test Explorer: a TestController whose tree is the daemon's discovery (package → target →
// bench → case) and whose runs are the daemon's runs. Decisions live in `model.ts`; this module
// applies them to `vscode` objects. Lifecycle as in test-provider-sample: lazy discovery
// through `resolveHandler`, stable ids with `children.replace`, a WeakMap from TestItem to its
// data, `enqueued → started → passed/failed/errored`, `run.end()`, and `skipped` for whatever a
// cancelled run did not reach.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import * as ext from "./lsp_ext";
import {
  applyTreeChange,
  buildTree,
  mapRunState,
  runParams,
  walk,
  type LensRun,
  type RunAction,
  type RunMessage,
  type HeldTree,
  type SourcePosition,
  type TreeNode,
} from "./model";
import { Runs, type KnownRun, type RunEvent, type RunInfo } from "./runs";
import { readConfig } from "./config";
import {
  CONTROLLER_LABEL,
  DAEMON_STOPPED,
  UNTRUSTED,
  UNTRUSTED_RUN_TITLE,
  daemonDown,
  requestFailed,
  rowLabel,
  runLabel,
  runTitle,
  terminalLine,
} from "./format";
import { requestTrust } from "./trust";
import type { Range, RunMode, TestItem as WireItem, TreeChangedParams } from "./wire";

/** How the Test Explorer shows a run; the rest of it (id, label, states) is in `Runs`. */
interface ShownRun {
  run: vscode.TestRun;
  /** The messages already attached to each item in this run (an item is reported again
   * when its benchmark's analysis or its comparison arrives; its messages only once). */
  messaged: Map<string, Set<string>>;
}

type Run = KnownRun<ShownRun>;

/** A continuous run in force: its mode, what it covers (everything when undefined), its run profile. */
export interface ContinuousRun {
  mode: RunMode;
  include: readonly vscode.TestItem[] | undefined;
  profile: vscode.TestRunProfile;
}

export class TestExplorer implements vscode.Disposable {
  readonly controller: vscode.TestController;
  private readonly items = new Map<string, vscode.TestItem>();
  private readonly data = new WeakMap<vscode.TestItem, TreeNode>();
  /** The daemon's tree as last applied, with its version. */
  private held: HeldTree = { version: 0, items: new Map() };
  /** The one registry of runs; the status bar reads it too. */
  readonly runs: Runs<ShownRun>;
  readonly fullProfile: vscode.TestRunProfile;
  readonly quickProfile: vscode.TestRunProfile;
  readonly compareProfile: vscode.TestRunProfile;
  /** `knotmeter profile` of each case: its hot lines in the editor (docs/profile.md). */
  readonly profileProfile: vscode.TestRunProfile;
  /** `knotmeter compare --profile`: each case profiled on the working tree and the base. */
  readonly compareProfilesProfile: vscode.TestRunProfile;
  /** `--measure instructions`: each case's instructions counted (docs/instructions.md). */
  readonly countProfile: vscode.TestRunProfile;
  /** The continuous runs in force, by run profile: a measuring one and "Profile" may both be on. */
  private readonly continuousRuns = new Map<vscode.TestRunProfile, ContinuousRun>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly onContinuousChange: () => void,
  ) {
    this.controller = vscode.tests.createTestController("knotmeter", CONTROLLER_LABEL);
    this.controller.resolveHandler = async (item) => {
      if (item === undefined) await this.discover();
    };
    this.controller.refreshHandler = async () => {
      await this.discover();
    };
    this.fullProfile = this.controller.createRunProfile(
      runLabel("full", false),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "full" }, false),
      true,
      undefined,
      true,
    );
    this.quickProfile = this.controller.createRunProfile(
      runLabel("quick", false),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "quick" }, false),
      false,
      undefined,
      true,
    );
    // `knotmeter compare`: the working tree against `knotmeter.compare.base` (docs/compare.md).
    this.compareProfile = this.controller.createRunProfile(
      runLabel("full", false, ""),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "full", compare: readConfig().compareBase }, false),
      false,
    );
    // Continuous too: profiled again on every save (quickly), the hot lines following the code.
    this.profileProfile = this.controller.createRunProfile(
      runLabel("full", false, undefined, true),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "full", profile: true }, false),
      false,
      undefined,
      true,
    );
    this.compareProfilesProfile = this.controller.createRunProfile(
      runLabel("full", false, "", true),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "full", compare: readConfig().compareBase, profile: true }, false),
      false,
    );
    // Each case's instructions counted under callgrind: the figure that does not move.
    this.countProfile = this.controller.createRunProfile(
      runLabel("full", false, undefined, false, true),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, { mode: "full", count: true }, false),
      false,
      undefined,
      true,
    );
    this.runs = new Runs<ShownRun>((info) => this.daemonRun(info));
    this.disposables.push(
      this.controller,
      ctx.treeMessage.event((m) => (m.kind === "whole" ? this.applyItems(m.items, m.version) : this.applyChange(m.change))),
      ctx.runState.event((p) => this.onEvent({ kind: "state", p })),
      ctx.output.event((p) => this.onEvent({ kind: "output", p })),
      ctx.runEnded.event((p) => this.onEvent({ kind: "end", p })),
      ctx.clientState.event((up) => {
        if (up) void this.discover();
        else this.endAll(DAEMON_STOPPED);
      }),
    );
  }

  /** The run profile that runs what a lens asks for (the Test Explorer shows the run under it). */
  runProfileOf(how: LensRun): vscode.TestRunProfile {
    if (how.profile) return how.compare !== undefined ? this.compareProfilesProfile : this.profileProfile;
    if (how.compare !== undefined) return this.compareProfile;
    if (how.count) return this.countProfile;
    return how.mode === "quick" ? this.quickProfile : this.fullProfile;
  }

  /** Asks the daemon for the tree (it also pushes `knotmeter/discovered` when files change). */
  async discover(): Promise<void> {
    const client = this.ctx.client;
    if (!client || !client.isRunning()) return;
    try {
      const result = await client.sendRequest(ext.discover, {});
      this.applyItems(result.items, result.version ?? 0);
    } catch (e) {
      this.ctx.log.fire(`knotmeter/discover failed: ${String(e)}`);
    }
  }

  /** The TestItem with a daemon id. */
  item(id: string): vscode.TestItem | undefined {
    return this.items.get(id);
  }

  /** The tree node behind a TestItem. */
  node(item: vscode.TestItem): TreeNode | undefined {
    return this.data.get(item);
  }

  /** Every item with a source location, for the commands and the code lenses. */
  allItems(): vscode.TestItem[] {
    return [...this.items.values()];
  }

  /** Replaces the tree, keeping the TestItem of every id that survives (expansion state). */
  applyItems(items: readonly WireItem[], version: number): void {
    // URIs as VS Code spells them, so that comparisons with documents' URIs hold.
    const normalized = items.map(normalizeUri);
    this.held = { version, items: new Map(normalized.map((i) => [i.id, i])) };
    this.ctx.items = normalized;
    const tree = buildTree(normalized);
    const seen = new Set<string>();
    const build = (n: TreeNode): vscode.TestItem => {
      const uri = n.uri ? vscode.Uri.parse(n.uri) : undefined;
      let item = this.items.get(n.id);
      if (!item || item.uri?.toString() !== uri?.toString()) {
        item = this.controller.createTestItem(n.id, n.label, uri);
        this.items.set(n.id, item);
      }
      item.label = rowLabel(n.label, this.ctx.store.get(n.id)?.shown.line);
      item.description = undefined;
      item.range = n.range ? toRange(n.range) : undefined;
      // A note beside an item not measured yet (a criterion target not built yet).
      if (!this.ctx.store.get(n.id) && n.detail) item.description = n.detail;
      this.data.set(item, n);
      seen.add(n.id);
      item.children.replace(n.children.map(build));
      return item;
    };
    this.controller.items.replace(tree.map(build));
    for (const id of [...this.items.keys()]) if (!seen.has(id)) this.items.delete(id);
    this.ctx.discovered.fire(normalized);
  }

  /**
   * Applies a `knotmeter/treeChanged`: only the items it names are touched (an edit that moves
   * twenty benchmarks updates twenty TestItems, whatever the size of the workspace). A change
   * that does not follow the tree held asks for the whole tree.
   */
  applyChange(raw: TreeChangedParams): void {
    const change = { ...raw, items: raw.items.map(normalizeUri) };
    const outcome = applyTreeChange(this.held, change);
    if (outcome === "stale") {
      void this.discover();
      return;
    }
    if (outcome === "ignored") return;
    for (const id of change.removed) {
      const item = this.items.get(id);
      if (!item) continue;
      (item.parent ? item.parent.children : this.controller.items).delete(id);
      this.items.delete(id);
    }
    for (const w of change.items) {
      const uri = w.uri ? vscode.Uri.parse(w.uri) : undefined;
      const parent = w.parent ? this.items.get(w.parent) : undefined;
      const siblings = parent ? parent.children : this.controller.items;
      let item = this.items.get(w.id);
      if (!item || item.uri?.toString() !== uri?.toString() || item.parent?.id !== parent?.id) {
        const previous = item;
        if (previous) (previous.parent ? previous.parent.children : this.controller.items).delete(w.id);
        item = this.controller.createTestItem(w.id, w.label, uri);
        if (previous) previous.children.forEach((c) => item!.children.add(c));
        this.items.set(w.id, item);
        siblings.add(item);
      }
      item.label = rowLabel(w.label, this.ctx.store.get(w.id)?.shown.line);
      item.description = undefined;
      item.range = w.range ? toRange(w.range) : undefined;
      // A note beside an item not measured yet (a criterion target not built yet).
      if (!this.ctx.store.get(w.id) && w.detail) item.description = w.detail;
      const node: TreeNode = { id: w.id, label: w.label, kind: w.kind, children: [] };
      if (w.uri) node.uri = w.uri;
      if (w.range) node.range = w.range;
      if (w.detail) node.detail = w.detail;
      this.data.set(item, node);
    }
    this.ctx.items = [...this.held.items.values()];
    this.ctx.discovered.fire(this.ctx.items);
  }

  // -------------------------------------------------------------------------------------------
  // Runs

  /**
   * Runs a request through the daemon. `background` runs (on save) never take focus. A
   * continuous request only switches run-on-save on until it is cancelled.
   */
  async run(
    request: vscode.TestRunRequest,
    token: vscode.CancellationToken,
    how: LensRun,
    background: boolean,
  ): Promise<void> {
    const { mode } = how;
    if (!this.ctx.trusted) {
      const run = this.controller.createTestRun(request, UNTRUSTED_RUN_TITLE, false);
      run.appendOutput(terminalLine(UNTRUSTED));
      for (const item of this.leaves(request)) run.skipped(item);
      run.end();
      void requestTrust(UNTRUSTED);
      return;
    }
    if (request.continuous) {
      const profile = request.profile ?? this.fullProfile;
      // The newest last: of two measuring ones, it decides.
      this.continuousRuns.delete(profile);
      this.continuousRuns.set(profile, { mode, include: request.include, profile });
      this.onContinuousChange();
      await new Promise<void>((resolve) => {
        token.onCancellationRequested(() => {
          if (this.continuousRuns.get(profile)?.include === request.include) this.continuousRuns.delete(profile);
          this.onContinuousChange();
          resolve();
        });
      });
      return;
    }
    const client = this.ctx.client;
    const label = runLabel(mode, background, how.compare, how.profile === true, how.count === true);
    const run = this.controller.createTestRun(request, runTitle(label), true);
    const shown: ShownRun = { run, messaged: new Map() };
    if (!client || !client.isRunning()) {
      run.appendOutput(terminalLine(daemonDown(true)));
      for (const item of this.leaves(request)) run.errored(item, new vscode.TestMessage(daemonDown()));
      run.end();
      return;
    }
    const leaves = this.leaves(request);
    for (const item of leaves) run.enqueued(item);
    // The run in the registry once the daemon named it; a cancel before that waits for it.
    let known: Run | undefined;
    let cancelRequested = false;
    const onCancel = () => {
      if (known) void this.cancel(known.runId);
      else cancelRequested = true;
    };
    // The request's token (a command's) and the run's own (the Test Explorer's stop button).
    token.onCancellationRequested(onCancel);
    run.token.onCancellationRequested(onCancel);
    this.runs.requestSent();
    let runId: number;
    try {
      const params = runParams(
        how,
        request.include?.map((i) => i.id) ?? null,
        request.exclude?.map((i) => i.id) ?? null,
        readConfig().profiler,
      );
      runId = (await client.sendRequest(ext.run, params)).runId;
    } catch (e) {
      for (const [r, events] of this.runs.requestFailed()) this.replay(r, events);
      for (const item of new Set(leaves)) run.errored(item, new vscode.TestMessage(requestFailed(ext.run.method, e)));
      run.end();
      return;
    }
    const info: RunInfo = { runId, label, background };
    this.ctx.runStarted.fire(info);
    const { entry, mine, others } = this.runs.requestAnswered(info, shown, leaves.map((i) => i.id));
    known = entry;
    this.replay(entry, mine);
    for (const [r, events] of others) this.replay(r, events);
    if (cancelRequested) void this.cancel(runId);
  }

  /** The measuring continuous run in force (the newest), if any: its mode decides run-on-save. */
  get continuous(): ContinuousRun | undefined {
    return [...this.continuousRuns.values()].filter((c) => c.profile !== this.profileProfile && c.profile !== this.countProfile).pop();
  }

  /** The continuous "Count instructions" run in force, if any: each save counts again. */
  get continuousCount(): ContinuousRun | undefined {
    return this.continuousRuns.get(this.countProfile);
  }

  /** The continuous "Profile" run in force, if any: each save profiles again. */
  get continuousProfile(): ContinuousRun | undefined {
    return this.continuousRuns.get(this.profileProfile);
  }

  /** A run the daemon started by itself (run-on-save): shown without taking focus. */
  private daemonRun(info: RunInfo): ShownRun {
    const c = this.continuous;
    const request = new vscode.TestRunRequest(c?.include, undefined, c?.profile, false, true);
    const run = this.controller.createTestRun(request, runTitle(info.label, true), true);
    this.ctx.runStarted.fire(info);
    return { run, messaged: new Map() };
  }

  /** Cancels a run in the daemon; it answers with `knotmeter/runEnd`. */
  async cancel(runId: number): Promise<void> {
    const client = this.ctx.client;
    if (!client || !client.isRunning()) return;
    try {
      await client.sendRequest(ext.cancel, { runId });
    } catch {
      // the run may have ended already
    }
  }

  /** Cancels every run in progress. */
  cancelAll(): void {
    for (const r of this.runs.active()) void this.cancel(r.runId);
  }

  private onEvent(event: RunEvent): void {
    const known = this.runs.route(event);
    if (known) this.apply(known, event);
  }

  private replay(known: Run, events: RunEvent[]): void {
    for (const e of events) this.apply(known, e);
  }

  /** Applies an event the registry recorded and routed (a state it accepted) to the TestRun. */
  private apply(known: Run, event: RunEvent): void {
    const run = known.ui.run;
    switch (event.kind) {
      case "output": {
        const item = event.p.id ? this.items.get(event.p.id) : undefined;
        // The daemon sends it with `\r\n` line breaks, as a terminal-like view wants them
        // (`OutputParams.text`, the protocol's): written as it came.
        run.appendOutput(event.p.text, undefined, item);
        return;
      }
      case "end":
        return this.end(known);
      case "state": {
        const item = this.items.get(event.p.id);
        if (item) this.applyAction(known.ui, item, mapRunState(event.p));
      }
    }
  }

  /** Ends the TestRun: what never reached a final state is skipped. */
  private end(known: Run): void {
    for (const id of known.tracker.unfinished()) {
      const item = this.items.get(id);
      if (item) known.ui.run.skipped(item);
    }
    known.ui.run.end();
  }

  private applyAction(shown: ShownRun, item: vscode.TestItem, a: RunAction): void {
    const run = shown.run;
    if ("description" in a && a.description !== undefined) {
      item.label = rowLabel(this.data.get(item)?.label ?? item.label, a.description);
      item.description = undefined;
    }
    // An item reported again gets only the messages it does not have yet.
    const fresh = (messages: RunMessage[]) => {
      const seen = shown.messaged.get(item.id) ?? new Set<string>();
      shown.messaged.set(item.id, seen);
      const out = messages.filter((m) => !seen.has(m.text.split("\n")[0]!));
      for (const m of out) seen.add(m.text.split("\n")[0]!);
      return out.map((m) => this.message(item, m));
    };
    switch (a.op) {
      case "enqueued":
        return run.enqueued(item);
      case "started":
        return run.started(item);
      case "skipped":
        return run.skipped(item);
      case "passed":
        return run.passed(item, a.durationMs);
      case "failed":
        return run.failed(item, fresh(a.messages), a.durationMs);
      case "errored":
        return run.errored(item, fresh(a.messages));
    }
  }

  /**
   * A TestMessage at its location, or at the function's first line (its attribute): VS Code
   * draws failure messages at the end of that line, which leaves the signature line to the
   * annotation.
   */
  private message(item: vscode.TestItem, m: RunMessage): vscode.TestMessage {
    const msg = new vscode.TestMessage(m.text);
    const own = item.uri && item.range ? new vscode.Location(item.uri, item.range.start) : undefined;
    msg.location = (m.at && this.resolve(m.at, item)) ?? own;
    return msg;
  }

  /** A panic location: absolute, a URI, or relative to a directory above the item's file. */
  private resolve(at: SourcePosition, item: vscode.TestItem): vscode.Location | undefined {
    const pos = new vscode.Position(at.line, at.character);
    if (/^[a-z][a-z0-9+.-]+:\/\//i.test(at.path)) return new vscode.Location(vscode.Uri.parse(at.path), pos);
    if (path.isAbsolute(at.path)) return new vscode.Location(vscode.Uri.file(at.path), pos);
    const bases: string[] = [];
    if (item.uri?.scheme === "file") {
      for (let dir = path.dirname(item.uri.fsPath); ; dir = path.dirname(dir)) {
        bases.push(dir);
        if (path.dirname(dir) === dir) break;
      }
    }
    for (const f of vscode.workspace.workspaceFolders ?? []) bases.push(f.uri.fsPath);
    for (const base of bases) {
      const candidate = path.join(base, at.path);
      if (fs.existsSync(candidate)) return new vscode.Location(vscode.Uri.file(candidate), pos);
    }
    return undefined;
  }

  /** The leaves a request covers (cases, or benches without cases), minus the exclusions. */
  private leaves(request: vscode.TestRunRequest): vscode.TestItem[] {
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const out: vscode.TestItem[] = [];
    const visit = (item: vscode.TestItem) => {
      if (excluded.has(item.id)) return;
      if (item.children.size === 0) out.push(item);
      else item.children.forEach(visit);
    };
    if (request.include) request.include.forEach(visit);
    else this.controller.items.forEach(visit);
    return out;
  }

  /** Ends every run (the daemon went away): what did not finish is skipped. */
  private endAll(reason: string): void {
    for (const r of this.runs.daemonStopped()) {
      r.ui.run.appendOutput(terminalLine(reason));
      this.end(r);
      this.ctx.runAbandoned.fire({ runId: r.runId, why: reason });
    }
  }

  /** Ids of the items in a file (or all items), leaves only: for the run commands. */
  itemsIn(uri: vscode.Uri, line?: number): vscode.TestItem[] {
    const inFile = [...walk(buildTree(this.ctx.items))].filter((n) => n.uri && vscode.Uri.parse(n.uri).toString() === uri.toString());
    if (line === undefined) {
      return inFile.filter((n) => n.kind === "bench").map((n) => this.items.get(n.id)).filter((i): i is vscode.TestItem => i !== undefined);
    }
    const hit = inFile
      .filter((n) => n.range && n.range.start.line <= line && line <= n.range.end.line)
      .sort((a, b) => span(a.range!) - span(b.range!))[0];
    const item = hit ? this.items.get(hit.id) : undefined;
    return item ? [item] : [];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** An item whose URI is spelt as VS Code spells it, so comparisons with documents' URIs hold. */
function normalizeUri(i: WireItem): WireItem {
  return i.uri ? { ...i, uri: vscode.Uri.parse(i.uri).toString() } : i;
}

function span(r: Range): number {
  return (r.end.line - r.start.line) * 10000 + (r.end.character - r.start.character);
}

export function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
