// Entry point: builds the context and each concern, registers the commands and the code
// lenses, and starts the daemon. Everything created here is owned by the context.

import * as vscode from "vscode";
import { Annotations } from "./annotations";
import { pushSettings, startClient, type Hooks, type ServerSettings } from "./client";
import { onConfigChange, readConfig } from "./config";
import { Ctx } from "./ctx";
import { installHint } from "./locate";
import { lensRun, runOnSavePlan, serverSettings } from "./model";
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
  const plan = () => runOnSavePlan(ctx.config.runOnSave, explorer.continuous?.mode, ctx.trusted);
  const settings: ServerSettings = () => serverSettings(plan(), ctx.config.problems);
  const explorer: TestExplorer = ctx.own(new TestExplorer(ctx, () => void pushSettings(ctx.client, settings)));
  const annotations = ctx.own(new Annotations(ctx));
  const status = ctx.own(new StatusBar(ctx));
  const runBench = (id: string, quick = false) => {
    const item = explorer.item(id);
    if (item) runItems(explorer, [item], quick);
  };
  const panel = ctx.own(new ResultsPanel(ctx, (id) => runBench(id)));

  const hooks: Hooks = {
    // The daemon's "▶ Run" lens: run its RunParams through the Test Explorer so that the
    // states show there.
    run: (params) => {
      const items = (params?.include ?? []).map((id) => explorer.item(id)).filter((i): i is vscode.TestItem => i !== undefined);
      const exclude = (params?.exclude ?? []).map((id) => explorer.item(id)).filter((i): i is vscode.TestItem => i !== undefined);
      // "⇄ Compare with base" is a comparison run, like the "Compare with base" profile.
      const { mode, compare } = lensRun(params, readConfig().compareBase);
      const profile = compare !== undefined ? explorer.compareProfile : mode === "quick" ? explorer.quickProfile : explorer.fullProfile;
      const request = new vscode.TestRunRequest(items.length > 0 ? items : undefined, exclude, profile);
      const cts = new vscode.CancellationTokenSource();
      void explorer.run(request, cts.token, mode, false, compare).finally(() => cts.dispose());
    },
    codeLenses: (lenses) => resultsLenses(lenses),
  };
  const restart = async () => {
    const old = ctx.client;
    ctx.client = undefined;
    if (old) await old.stop().catch(() => undefined);
    const client = await startClient(ctx, settings, hooks);
    ctx.client = client;
    if (client) ctx.own({ dispose: () => void client.stop().catch(() => undefined) });
    updateProblem();
  };
  const updateProblem = () => {
    if (!ctx.client) {
      status.setProblem({ text: "$(warning) knotmeter: no daemon", tooltip: `The knotmeter daemon is not running. ${installHint}`, command: "knotmeter.installHelp" });
    } else if (!ctx.trusted) {
      status.setProblem({ text: "$(workspace-untrusted) knotmeter: discover only", tooltip: "The workspace is not trusted: knotmeter discovers benchmarks but does not build or run them.", command: "knotmeter.explainTrust" });
    } else {
      status.setProblem(undefined);
    }
  };

  ctx.own(
    onConfigChange((changed) => {
      ctx.config = readConfig();
      if (changed("server.path")) void restart();
      else if (changed("runOnSave") || changed("problems")) void pushSettings(ctx.client, settings);
      if (changed("annotations.enabled")) annotations.render();
    }),
  );
  ctx.own(
    onTrustGranted(() => {
      // A trusted workspace may use its own daemon build and run on save.
      void restart();
    }),
  );

  // Full-mode run-on-save: the daemon's own run-on-save measures in quick mode, so after a
  // save the client asks for a full run of the saved file's benchmarks (or of the continuous
  // run's selection, or of everything when the file has none: a library change).
  let saveRun: vscode.CancellationTokenSource | undefined;
  ctx.own(
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (plan().client !== "full" || doc.uri.scheme !== "file") return;
      if (doc.languageId !== "rust" && !doc.uri.path.endsWith("/Cargo.toml")) return;
      if (!vscode.workspace.getWorkspaceFolder(doc.uri)) return;
      const c = explorer.continuous;
      const inFile = explorer.itemsIn(doc.uri);
      const include = c?.include ? [...c.include] : inFile.length > 0 ? inFile : undefined;
      saveRun?.cancel();
      saveRun = new vscode.CancellationTokenSource();
      const request = new vscode.TestRunRequest(include, undefined, explorer.fullProfile, false, true);
      void explorer.run(request, saveRun.token, "full", true);
    }),
  );


  const cmd = (id: string, f: (...args: never[]) => unknown) => ctx.own(vscode.commands.registerCommand(id, f));
  cmd("knotmeter.runFile", () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const items = explorer.itemsIn(editor.document.uri);
    if (items.length === 0) return void vscode.window.showInformationMessage("knotmeter: no benchmarks in this file.");
    runItems(explorer, items, false);
  });
  cmd("knotmeter.runAtCursor", () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const items = explorer.itemsIn(editor.document.uri, editor.selection.active.line);
    if (items.length === 0) return void vscode.window.showInformationMessage("knotmeter: no benchmark at the cursor.");
    runItems(explorer, items, false);
  });
  cmd("knotmeter.showResults", async (arg?: vscode.TestItem | string) => {
    let id = typeof arg === "string" ? arg : arg?.id;
    if (!id) {
      const editor = vscode.window.activeTextEditor;
      id = editor ? explorer.itemsIn(editor.document.uri, editor.selection.active.line)[0]?.id : undefined;
    }
    if (!id) {
      const benches = ctx.items.filter((i) => i.kind === "bench");
      const pick = await vscode.window.showQuickPick(
        benches.map((b) => ({ label: b.label, description: b.id, id: b.id })),
        { placeHolder: "Show the results of which benchmark?" },
      );
      id = pick?.id;
    }
    if (id) panel.show(id);
  });
  cmd("knotmeter.cancel", () => explorer.cancelAll());
  cmd("knotmeter.showOutput", () => output.show());
  cmd("knotmeter.restartServer", () => restart());
  cmd("knotmeter.installHelp", async () => {
    const choice = await vscode.window.showInformationMessage(`knotmeter: ${installHint}`, "Open Settings");
    if (choice) await vscode.commands.executeCommand("workbench.action.openSettings", "knotmeter.server.path");
  });
  cmd("knotmeter.explainTrust", () => requestTrust());

  await restart();
}

/** Runs items through the Test Explorer's profile, exactly as the gutter button would. */
function runItems(explorer: TestExplorer, items: vscode.TestItem[], quick: boolean): void {
  const profile = quick ? explorer.quickProfile : explorer.fullProfile;
  const request = new vscode.TestRunRequest(items, undefined, profile);
  const cts = new vscode.CancellationTokenSource();
  void explorer.run(request, cts.token, quick ? "quick" : "full", false).finally(() => cts.dispose());
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
            title: "$(graph) Results",
            command: "knotmeter.showResults",
            arguments: [id],
            tooltip: "Open the knotmeter results panel for this benchmark",
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
