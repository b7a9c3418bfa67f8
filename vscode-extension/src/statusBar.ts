// The status bar item: the current run ("⟳ knotmeter 3/9 · chain_n/1000"), cancelled by a
// click; otherwise how the last run's items ended ("6 passed, 2 warned, 10 skipped": a warned
// or skipped item is never counted as passed), or why nothing can run (no daemon, untrusted).

import * as vscode from "vscode";
import { statusView, type RunsSeen } from "./runStatus";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("knotmeter.status", vscode.StatusBarAlignment.Left, 10);
  private problem: { text: string; tooltip: string; command: string } | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  /** `runs`: the registry the Test Explorer keeps; the bar shows it after each change. */
  constructor(private readonly runs: RunsSeen) {
    this.item.name = "knotmeter";
    this.disposables.push(this.item, { dispose: runs.onChange(() => this.render()) });
    this.render();
  }

  /** Shows a standing problem (no daemon, untrusted workspace) while no run is in progress. */
  setProblem(problem: { text: string; tooltip: string; command: string } | undefined): void {
    this.problem = problem;
    this.render();
  }

  private render(): void {
    // What to show: decided in `runStatus.ts`, whatever order the notifications came in.
    const view = statusView(this.runs);
    if (view.kind === "running") {
      this.item.text = `$(loading~spin) knotmeter ${view.done}/${view.total} · ${view.what}`;
      this.item.tooltip = `knotmeter ${view.label}: ${view.done} of ${view.total} done. Click to cancel.`;
      this.item.command = "knotmeter.cancel";
      this.item.backgroundColor = undefined;
    } else if (this.problem) {
      this.item.text = this.problem.text;
      this.item.tooltip = this.problem.tooltip;
      this.item.command = this.problem.command;
    } else {
      this.item.text = `$(dashboard) knotmeter${view.last ? ` · ${view.last}` : ""}`;
      this.item.tooltip = "knotmeter: show the results panel";
      this.item.command = "knotmeter.showResults";
    }
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
