// The status bar item: the current run ("⟳ knotmeter 3/9 · chain_n/1000"), cancelled by a
// click; otherwise the last run's outcome, or why nothing can run (no daemon, untrusted).

import * as vscode from "vscode";
import type { Ctx, RunInfo } from "./ctx";
import { isDefect } from "./format";
import { RunTracker } from "./model";

interface Live {
  info: RunInfo;
  tracker: RunTracker;
  /** Items measured with a validity warning (shown as failures in the Test Explorer). */
  warned: Set<string>;
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
        this.runs.set(info.runId, { info, tracker: new RunTracker(), warned: new Set() });
        this.render();
      }),
      ctx.runState.event((p) => {
        let live = this.runs.get(p.runId);
        if (!live) {
          live = { info: { runId: p.runId, label: "on save", background: true }, tracker: new RunTracker(), warned: new Set() };
          this.runs.set(p.runId, live);
        }
        live.tracker.record(p.id, p.state);
        if (p.state === "passed" && (p.result?.warnings.some(isDefect) || p.result?.partial)) live.warned.add(p.id);
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
        if (live) {
          const c = live.tracker.counts();
          const warned = live.warned.size;
          const parts = [`${c.done - c.failed - warned} ok`];
          if (warned) parts.push(`${warned} warned`);
          if (c.failed) parts.push(`${c.failed} failed`);
          this.last = parts.join(", ");
        }
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
      const c = live.tracker.counts();
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
