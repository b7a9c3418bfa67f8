// Starts `knotmeter serve` with vscode-languageclient and turns its `knotmeter/*`
// notifications into the context's events. The daemon discovers, builds and runs; this module
// only connects.

import * as fs from "node:fs";
import * as vscode from "vscode";
import * as lc from "vscode-languageclient/node";
import type { Ctx } from "./ctx";
import { watchClientLife } from "./clientLife";
import * as ext from "./lsp_ext";
import { COPY_INSTALL_COMMAND, DAEMON_CHANNEL, OPEN_SETTINGS, daemonFailed, noDaemon } from "./format";
import { installCommand, locateServer } from "./locate";
import { RUN_COMMAND, type Features, type RunParams, type Settings } from "./wire";

/** The daemon's effective settings (run-on-save follows continuous runs and workspace trust). */
export type ServerSettings = () => Settings;

/**
 * How the extension takes part in the daemon's standard LSP features. The daemon serves every
 * editor; in VS Code the Test Explorer runs benchmarks and the annotations show results, so
 * the daemon's "▶ Run" lens runs through the Test Explorer, its result lenses and inlay hints
 * give way to the annotations, and a "Results" lens opens the panel.
 */
export interface Hooks {
  /** The daemon's `knotmeter.run` command (its "▶ Run" lens), with its RunParams. */
  run(params: RunParams | undefined): void;
  /** Rewrites the daemon's code lenses. */
  codeLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[];
}

export async function startClient(ctx: Ctx, settings: ServerSettings, hooks: Hooks): Promise<lc.LanguageClient | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const located = locateServer({
    setting: ctx.config.serverPath,
    envPath: process.env["PATH"] ?? "",
    cargoTargetDir: process.env["CARGO_TARGET_DIR"],
    folders,
    trusted: ctx.trusted,
    platform: process.platform,
    isExecutable,
  });
  if (!located.found) {
    offerInstall(located.reason);
    return undefined;
  }
  const serverOptions: lc.ServerOptions = {
    command: located.command,
    // Plain stdio: with `transport: stdio` the client would append `--stdio`.
    args: ["serve"],
    options: folders[0] ? { cwd: folders[0] } : {},
  };
  const client = new lc.LanguageClient("knotmeter", "knotmeter", serverOptions, clientOptions(settings, hooks));
  announceFeatures(client);
  forwardNotifications(client, ctx);
  try {
    await client.start();
  } catch (e) {
    void vscode.window.showErrorMessage(daemonFailed(located.command, e));
    return undefined;
  }
  // A daemon that exits is restarted by the client itself: its runs end (what they did not
  // reach is skipped) and the new daemon is asked for the tree, as after `restart()`.
  ctx.own(watchClientLife(client, lc.State.Running, (up) => ctx.clientState.fire(up)));
  return client;
}

/** Says why no daemon was found, with the way to one (the setting, or the install command). */
function offerInstall(reason: string): void {
  void vscode.window
    .showErrorMessage(noDaemon(reason), OPEN_SETTINGS, COPY_INSTALL_COMMAND)
    .then((choice) => {
      if (choice === OPEN_SETTINGS) void vscode.commands.executeCommand("workbench.action.openSettings", "knotmeter.server.path");
      if (choice === COPY_INSTALL_COMMAND) void vscode.env.clipboard.writeText(installCommand);
    });
}

/** The client's options: the documents it serves and how the extension takes part (`Hooks`). */
function clientOptions(settings: ServerSettings, hooks: Hooks): lc.LanguageClientOptions {
  return {
    documentSelector: [
      { scheme: "file", language: "rust" },
      { scheme: "file", pattern: "**/Cargo.toml" },
    ],
    // A function: the client calls it at every start, its own restarts of a daemon that died
    // included (a value would give a restarted daemon the settings of the first start: run on
    // save off, though the user had turned continuous run on since).
    initializationOptions: () => settings(),
    revealOutputChannelOn: lc.RevealOutputChannelOn.Never,
    outputChannelName: DAEMON_CHANNEL,
    middleware: {
      executeCommand: (command, args, next) => {
        if (command === RUN_COMMAND) {
          hooks.run(args[0] as RunParams | undefined);
          return null;
        }
        return next(command, args);
      },
      provideCodeLenses: async (doc, token, next) => hooks.codeLenses((await next(doc, token)) ?? []),
      // The annotations show the last result where the daemon's inlay hints would.
      provideInlayHints: () => [],
      workspace: {
        // The daemon asks for its settings: answer with the effective ones (continuous run and
        // workspace trust included), not the raw user settings.
        configuration: (params, token, next) => {
          const s = settings();
          if (params.items.every((i) => i.section === "knotmeter")) return params.items.map(() => s);
          return next(params, token);
        },
      },
    },
  };
}

/** Tree changes instead of whole trees, run states in batches, profiles drawn by the extension
 * (docs/protocol.md). */
function announceFeatures(client: lc.LanguageClient): void {
  client.registerFeature({
    fillClientCapabilities(capabilities) {
      const features: Features = { treeChanged: true, runStates: true, profiles: true };
      capabilities.experimental = { ...(capabilities.experimental ?? {}), knotmeter: features };
    },
    initialize() {},
    getState: () => ({ kind: "static" }),
    clear() {},
  });
}

/** The daemon's `knotmeter/*` notifications as the context's events. */
function forwardNotifications(client: lc.LanguageClient, ctx: Ctx): void {
  client.onNotification(ext.discovered, (p) => ctx.treeMessage.fire({ kind: "whole", items: p.items, version: p.version ?? 0 }));
  client.onNotification(ext.treeChanged, (p) => ctx.treeMessage.fire({ kind: "change", change: p }));
  client.onNotification(ext.runState, (p) => ctx.runState.fire(p));
  client.onNotification(ext.runStates, (p) => {
    for (const state of p.states) ctx.runState.fire(state);
  });
  client.onNotification(ext.output, (p) => ctx.output.fire(p));
  client.onNotification(ext.runEnd, (p) => ctx.runEnded.fire(p));
  client.onNotification(ext.profiled, (p) => ctx.profiles.keep(p));
  client.onNotification(ext.profileCompared, (p) => ctx.profiles.keepComparison(p));
  client.onNotification(ext.compared, (p) => {
    ctx.comparison = p;
    ctx.compared.fire(p);
  });
  // The last stored result of each case, after the daemon starts, with the daemon's
  // presentation of it (its line says when it was stored); a result measured since wins.
  client.onNotification(ext.stored, (p) => {
    p.results.forEach((r, i) => {
      const shown = p.shown?.[i];
      if (shown && !ctx.store.get(r.id)) ctx.store.set(r.id, r, shown);
    });
  });
}

/** Tells the daemon the effective settings (after a setting, the trust or continuous run changed). */
export async function pushSettings(client: lc.LanguageClient | undefined, settings: ServerSettings): Promise<void> {
  if (!client || !client.isRunning()) return;
  await client.sendNotification(lc.DidChangeConfigurationNotification.type, { settings: { knotmeter: settings() } });
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    if (process.platform === "win32") return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
