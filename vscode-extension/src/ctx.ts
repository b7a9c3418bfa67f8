// The extension's context: it owns every disposable, the language client (which may be
// restarted), the result store, and the events that the daemon's notifications become. Each
// concern (Test Explorer, annotations, output, panel, status bar) subscribes to these events
// and never to the client directly.

import * as vscode from "vscode";
import type * as lc from "vscode-languageclient/node";
import { readConfig, type Config } from "./config";
import type { RunInfo } from "./runs";
import { ProfileStore } from "./profiles";
import { ResultStore } from "./store";
import type { ComparedParams, TestItem, OutputParams, RunEndParams, RunStateParams, TreeChangedParams } from "./wire";

/** A tree message from the daemon: the whole tree, or what changed since a version. */
export type TreeMessage = { kind: "whole"; items: TestItem[]; version: number } | { kind: "change"; change: TreeChangedParams };

export class Ctx implements vscode.Disposable {
  readonly store = new ResultStore();
  /** The last profile of each case, and the hot lines each file shows. */
  readonly profiles = new ProfileStore();
  private readonly subscriptions: vscode.Disposable[] = [];
  private _client: lc.LanguageClient | undefined;
  config: Config = readConfig();

  /** The daemon sent the tree or a change to it (the Test Explorer applies it). */
  readonly treeMessage = this.own(new vscode.EventEmitter<TreeMessage>());
  /** The tree changed: every item, after the Test Explorer applied a tree message. */
  readonly discovered = this.own(new vscode.EventEmitter<TestItem[]>());
  readonly runStarted = this.own(new vscode.EventEmitter<RunInfo>());
  readonly runState = this.own(new vscode.EventEmitter<RunStateParams>());
  readonly output = this.own(new vscode.EventEmitter<OutputParams>());
  readonly runEnded = this.own(new vscode.EventEmitter<RunEndParams>());
  /** A run the daemon never ended (it stopped): the Test Explorer ended it, for this reason. */
  readonly runAbandoned = this.own(new vscode.EventEmitter<{ runId: number; why: string }>());
  /** A comparison run ("Compare with base") is over: the whole comparison, as the daemon shows it. */
  readonly compared = this.own(new vscode.EventEmitter<ComparedParams>());
  /** The latest comparison run's table, for the results panel. */
  comparison: ComparedParams | undefined;
  /** The client started (true) or stopped (false). */
  readonly clientState = this.own(new vscode.EventEmitter<boolean>());
  /** A line for the "knotmeter" output channel that belongs to no run. */
  readonly log = this.own(new vscode.EventEmitter<string>());
  /** The latest discovered items, for the code lenses and the commands. */
  items: TestItem[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {}

  get client(): lc.LanguageClient | undefined {
    return this._client;
  }

  set client(c: lc.LanguageClient | undefined) {
    this._client = c;
    this.clientState.fire(c !== undefined);
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** Takes ownership of a disposable: it is disposed with the extension. */
  own<T extends vscode.Disposable>(d: T): T {
    this.subscriptions.push(d);
    return d;
  }

  dispose(): void {
    while (this.subscriptions.length > 0) {
      try {
        this.subscriptions.pop()?.dispose();
      } catch {
        // keep disposing the rest
      }
    }
  }
}
