// The status bar item: the current run ("⟳ knotmeter 3/9 · chain_n/1000"), cancelled by a
// click; otherwise how the last run's items ended ("6 passed, 2 warned, 10 skipped": a warned
// or skipped item is never counted as passed), or why nothing can run (no daemon, untrusted).

import * as vscode from "vscode";
import type { Ctx, RunInfo } from "./ctx";
import { tallyText } from "./format";
import { RunTracker } from "./model";

interface Live {
  info: RunInfo;
  tracker: RunTracker;
  current?: string;
  building?: boolean;
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("knotmeter.status", vscode.StatusBarAlignment.Left, 10);
  private readonly runs = new Map<number, Live>();
  private last: string | undefined;
  private problem: { text: string; tooltip: string; command: string } | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(ctx: Ctx) {
    this.item.name = "knotmeter";
    this.disposables.push(
      this.item,
      ctx.runStarted.event((info) => {
        this.runs.set(info.runId, { info, tracker: new RunTracker() });
        this.render();
      }),
      ctx.runState.event((p) => {
        let live = this.runs.get(p.runId);
        if (!live) {
          live = { info: { runId: p.runId, label: "on save", background: true }, tracker: new RunTracker() };
          this.runs.set(p.runId, live);
        }
        live.tracker.record(p.id, p.state, p.shown?.outcome);
        if (p.state === "started") {
          live.current = p.id;
          live.building = false;
        }
        if (p.state === "building") live.building = true;
        this.render();
      }),
      ctx.runEnded.event((p) => {
        const live = this.runs.get(p.runId);
        this.runs.delete(p.runId);
        if (live) this.last = tallyText(live.tracker.tally());
        this.render();
      }),
    );
    this.render();
  }

  /** Shows a standing problem (no daemon, untrusted workspace) while no run is in progress. */
  setProblem(problem: { text: string; tooltip: string; command: string } | undefined): void {
    this.problem = problem;
    this.render();
  }

  private render(): void {
    const live = [...this.runs.values()].pop();
    if (live) {
      const c = live.tracker.progress();
      const what = live.building ? "building" : live.current ? shortId(live.current) : "starting";
      this.item.text = `$(loading~spin) knotmeter ${c.done}/${c.total} · ${what}`;
      this.item.tooltip = `knotmeter ${live.info.label}: ${c.done} of ${c.total} done. Click to cancel.`;
      this.item.command = "knotmeter.cancel";
      this.item.backgroundColor = undefined;
    } else if (this.problem) {
      this.item.text = this.problem.text;
      this.item.tooltip = this.problem.tooltip;
      this.item.command = this.problem.command;
    } else {
      this.item.text = `$(dashboard) knotmeter${this.last ? ` · ${this.last}` : ""}`;
      this.item.tooltip = "knotmeter: show the results panel";
      this.item.command = "knotmeter.showResults";
    }
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** `quickstart::chain_n/1000` → `chain_n/1000`. */
function shortId(id: string): string {
  const i = id.lastIndexOf("::");
  return i < 0 ? id : id.slice(i + 2);
}
