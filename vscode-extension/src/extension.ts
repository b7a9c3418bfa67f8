// Entry point: builds the context and each concern, registers the commands and the code
// lenses, and starts the daemon. Everything created here is owned by the context.

import * as vscode from "vscode";
import { Annotations } from "./annotations";
import { HotLines } from "./hotLines";
import { pushSettings, startClient, type Hooks, type ServerSettings } from "./client";
import { onConfigChange, readConfig } from "./config";
import { Ctx } from "./ctx";
import { INSTALL_HELP, OPEN_SETTINGS, PICK_BENCH, RESULTS_LENS, noBenchmarks, statusProblem } from "./format";
import { lensRun, runOnSavePlan, serverSettings, type LensRun, type RunOnSavePlan } from "./model";
import { Output } from "./output";
import { ResultsPanel } from "./panel/host";
import { StatusBar } from "./statusBar";
import { TestExplorer } from "./testExplorer";
import { onTrustGranted, requestTrust } from "./trust";
import { RUN_COMMAND, type RunParams } from "./wire";

let current: Ctx | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ctx = new Ctx(context);
  current = ctx;
  context.subscriptions.push(ctx);

  // The store first: every other listener of a state change sees the new result. A result
  // comes with the daemon's presentation of it; without one there is nothing to show.
  ctx.own(
    ctx.runState.event((p) => {
      if (p.result && p.shown) ctx.store.set(p.id, p.result, p.shown, p.bench);
    }),
  );
  const output = ctx.own(new Output(ctx));
  const plan = () =>
    runOnSavePlan(
      ctx.config.runOnSave,
      explorer.continuous?.mode,
      explorer.continuousProfile !== undefined,
      explorer.continuousCount !== undefined,
      ctx.trusted,
    );
  const settings: ServerSettings = () => serverSettings(plan(), ctx.config.problems);
  const explorer: TestExplorer = ctx.own(new TestExplorer(ctx, () => void pushSettings(ctx.client, settings)));
  const annotations = ctx.own(new Annotations(ctx));
  ctx.own(new HotLines(ctx));
  const status = ctx.own(new StatusBar(explorer.runs));
  const panel = ctx.own(
    new ResultsPanel(ctx, (id) => {
      const item = explorer.item(id);
      if (item) runItems(explorer, [item], { mode: "full" });
    }),
  );
  const hooks = lensHooks(explorer);
  const restart = async () => {
    const old = ctx.client;
    ctx.client = undefined;
    if (old) await old.stop().catch(() => undefined);
    const client = await startClient(ctx, settings, hooks);
    ctx.client = client;
    if (client) ctx.own({ dispose: () => void client.stop().catch(() => undefined) });
    showDaemonProblem(ctx, status);
  };
  watchSettings(ctx, restart, () => void pushSettings(ctx.client, settings), annotations);
  runOnSaveByClient(ctx, explorer, plan);
  registerCommands(ctx, explorer, panel, output, restart);
  await restart();
}

/**
 * How the extension takes part in the daemon's lenses: its "▶ Run" lens runs its RunParams
 * through the Test Explorer (so that the states show there), and a "Results" lens joins it.
 */
function lensHooks(explorer: TestExplorer): Hooks {
  const items = (ids: string[] | null | undefined) =>
    (ids ?? []).map((id) => explorer.item(id)).filter((i): i is vscode.TestItem => i !== undefined);
  return {
    run: (params) => {
      const include = items(params?.include);
      // "⇄ Compare with base" is a comparison run, like the "Compare with base" profile.
      // "◔ Profile" is a profile run, like the "Profile" run profile.
      const how = lensRun(params, readConfig().compareBase);
      const request = new vscode.TestRunRequest(include.length > 0 ? include : undefined, items(params?.exclude), explorer.runProfileOf(how));
      const cts = new vscode.CancellationTokenSource();
      void explorer.run(request, cts.token, how, false).finally(() => cts.dispose());
    },
    codeLenses: (lenses) => resultsLenses(lenses),
  };
}

/** The status bar's word on the daemon: none running, or a workspace it may not build in. */
function showDaemonProblem(ctx: Ctx, status: StatusBar): void {
  if (!ctx.client) {
    status.setProblem({ ...statusProblem("noDaemon"), command: "knotmeter.installHelp" });
  } else if (!ctx.trusted) {
    status.setProblem({ ...statusProblem("untrusted"), command: "knotmeter.explainTrust" });
  } else {
    status.setProblem(undefined);
  }
}

/** A changed setting reaches what it concerns; trust granted restarts the daemon. */
function watchSettings(ctx: Ctx, restart: () => Promise<void>, push: () => void, annotations: Annotations): void {
  ctx.own(
    onConfigChange((changed) => {
      ctx.config = readConfig();
      if (changed("server.path")) void restart();
      else if (changed("runOnSave") || changed("problems")) push();
      if (changed("annotations.enabled")) annotations.render();
    }),
  );
  ctx.own(
    onTrustGranted(() => {
      // A trusted workspace may use its own daemon build and run on save.
      void restart();
    }),
  );
}

/**
 * The client's run-on-save: the daemon's own run-on-save measures in quick mode, so after a
 * save the client asks for a full run of the saved file's benchmarks (or of the continuous
 * run's selection, or of everything when the file has none: a library change); and under a
 * continuous "Profile" run, for a quick profile run of the saved file's benchmarks (or of its
 * selection; nothing when the file has none: a profile of every benchmark on each save would
 * queue them all under the profiler); under a continuous "Count instructions" run, for a count
 * of them, chosen the same way.
 */
function runOnSaveByClient(ctx: Ctx, explorer: TestExplorer, plan: () => RunOnSavePlan): void {
  // One run of each kind in flight: a new save cancels the run of the same kind before it.
  const inFlight = new Map<vscode.TestRunProfile, vscode.CancellationTokenSource>();
  const start = (include: vscode.TestItem[] | undefined, runProfile: vscode.TestRunProfile, how: LensRun) => {
    inFlight.get(runProfile)?.cancel();
    const source = new vscode.CancellationTokenSource();
    inFlight.set(runProfile, source);
    const request = new vscode.TestRunRequest(include, undefined, runProfile, false, true);
    void explorer.run(request, source.token, how, true);
  };
  ctx.own(
    vscode.workspace.onDidSaveTextDocument((doc) => {
      const { client: mode, profile, count } = plan();
      if ((!mode && !profile && !count) || doc.uri.scheme !== "file") return;
      if (doc.languageId !== "rust" && !doc.uri.path.endsWith("/Cargo.toml")) return;
      if (!vscode.workspace.getWorkspaceFolder(doc.uri)) return;
      const inFile = explorer.itemsIn(doc.uri);
      if (mode) {
        const c = explorer.continuous;
        start(c?.include ? [...c.include] : inFile.length > 0 ? inFile : undefined, explorer.fullProfile, { mode });
      }
      const p = explorer.continuousProfile;
      const profiled = p?.include ? [...p.include] : inFile;
      if (profile && profiled.length > 0) start(profiled, explorer.profileProfile, { mode: "quick", profile: true });
      const k = explorer.continuousCount;
      const counted = k?.include ? [...k.include] : inFile;
      if (count && counted.length > 0) start(counted, explorer.countProfile, { mode: "full", count: true });
    }),
  );
}

/** The extension's commands (package.json's `contributes.commands`). */
function registerCommands(ctx: Ctx, explorer: TestExplorer, panel: ResultsPanel, output: Output, restart: () => Promise<void>): void {
  const cmd = (id: string, f: (...args: never[]) => unknown) => ctx.own(vscode.commands.registerCommand(id, f));
  cmd("knotmeter.runFile", () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const items = explorer.itemsIn(editor.document.uri);
    if (items.length === 0) return void vscode.window.showInformationMessage(noBenchmarks("file"));
    runItems(explorer, items, { mode: "full" });
  });
  const atCursor = (how: LensRun) => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const items = explorer.itemsIn(editor.document.uri, editor.selection.active.line);
    if (items.length === 0) return void vscode.window.showInformationMessage(noBenchmarks("cursor"));
    runItems(explorer, items, how);
  };
  cmd("knotmeter.runAtCursor", () => atCursor({ mode: "full" }));
  cmd("knotmeter.countAtCursor", () => atCursor({ mode: "full", count: true }));
  cmd("knotmeter.showResults", async (arg?: vscode.TestItem | string) => {
    const id = (typeof arg === "string" ? arg : arg?.id) || benchAtCursor(explorer) || (await pickBench(ctx));
    if (id) panel.show(id);
  });
  cmd("knotmeter.cancel", () => explorer.cancelAll());
  cmd("knotmeter.showOutput", () => output.show());
  cmd("knotmeter.restartServer", () => restart());
  cmd("knotmeter.installHelp", async () => {
    const choice = await vscode.window.showInformationMessage(INSTALL_HELP, OPEN_SETTINGS);
    if (choice) await vscode.commands.executeCommand("workbench.action.openSettings", "knotmeter.server.path");
  });
  cmd("knotmeter.explainTrust", () => requestTrust());
}

/** The benchmark at the active editor's cursor, if any. */
function benchAtCursor(explorer: TestExplorer): string | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor ? explorer.itemsIn(editor.document.uri, editor.selection.active.line)[0]?.id : undefined;
}

/** Asks which benchmark to show. */
async function pickBench(ctx: Ctx): Promise<string | undefined> {
  const benches = ctx.items.filter((i) => i.kind === "bench");
  const pick = await vscode.window.showQuickPick(
    benches.map((b) => ({ label: b.label, description: b.id, id: b.id })),
    { placeHolder: PICK_BENCH },
  );
  return pick?.id;
}

/** Runs items through the Test Explorer's run profile for `how`, exactly as its gutter button would. */
function runItems(explorer: TestExplorer, items: vscode.TestItem[], how: LensRun): void {
  const request = new vscode.TestRunRequest(items, undefined, explorer.runProfileOf(how));
  const cts = new vscode.CancellationTokenSource();
  void explorer.run(request, cts.token, how, false).finally(() => cts.dispose());
}

/**
 * The daemon's lenses as VS Code shows them: its "▶ Run" lens with a "Results" lens beside it
 * that opens the panel; its result lenses (no command) give way to the annotations.
 */
function resultsLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
  const out: vscode.CodeLens[] = [];
  for (const lens of lenses) {
    const command = lens.command;
    if (!command || command.command === "") continue;
    out.push(lens);
    if (command.command === RUN_COMMAND) {
      const id = (command.arguments?.[0] as RunParams | undefined)?.include?.[0];
      if (id) {
        out.push(
          new vscode.CodeLens(lens.range, {
            ...RESULTS_LENS,
            command: "knotmeter.showResults",
            arguments: [id],
          }),
        );
      }
    }
  }
  return out;
}

export async function deactivate(): Promise<void> {
  const client = current?.client;
  current = undefined;
  if (client) await client.stop().catch(() => undefined);
}
