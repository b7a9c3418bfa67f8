// The status bar item: the current run ("⟳ knotmeter 3/9 · chain_n/1000"), cancelled by a
// click; otherwise how the last run's items ended ("6 passed, 2 warned, 10 skipped": a warned
// or skipped item is never counted as passed), or why nothing can run (no daemon, untrusted).

import * as vscode from "vscode";
import { STATUS_NAME, statusText, type StatusText } from "./format";
import { statusView, type RunsSeen } from "./runStatus";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("knotmeter.status", vscode.StatusBarAlignment.Left, 10);
  private problem: (StatusText & { command: string }) | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  /** `runs`: the registry the Test Explorer keeps; the bar shows it after each change. */
  constructor(private readonly runs: RunsSeen) {
    this.item.name = STATUS_NAME;
    this.disposables.push(this.item, { dispose: runs.onChange(() => this.render()) });
    this.render();
  }

  /** Shows a standing problem (no daemon, untrusted workspace) while no run is in progress. */
  setProblem(problem: (StatusText & { command: string }) | undefined): void {
    this.problem = problem;
    this.render();
  }

  private render(): void {
    // What to show: decided in `runStatus.ts`, whatever order the notifications came in. A run
    // in progress hides a standing problem, which hides the last run's counts.
    const view = statusView(this.runs);
    const running = view.kind === "running";
    const shown = !running && this.problem ? this.problem : { ...statusText(view), command: running ? "knotmeter.cancel" : "knotmeter.showResults" };
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.command = shown.command;
    if (running) this.item.backgroundColor = undefined;
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
