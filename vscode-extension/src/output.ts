// The "knotmeter" output channel: per run, a header, the build output the daemon forwards, and
// each case's overhead diagnostics (timer and precision, per-operation overhead, drift, capped
// samples, the cold first call, operations per sample). It never takes focus by itself.

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { overheadReport, type TimerFacts } from "./model";
import type { RunStateParams } from "./wire";

export class Output implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;
  private readonly disposables: vscode.Disposable[] = [];
  /** The timer facts of each run, where the daemon sends them with a state change. */
  private readonly timers = new Map<number, TimerFacts>();

  constructor(ctx: Ctx) {
    this.channel = vscode.window.createOutputChannel("knotmeter");
    this.disposables.push(
      this.channel,
      ctx.runStarted.event((r) => {
        this.channel.appendLine("");
        this.channel.appendLine(`━━ knotmeter ${r.label} · run ${r.runId} · ${new Date().toLocaleTimeString()} ━━`);
      }),
      ctx.log.event((line) => this.channel.appendLine(line)),
      ctx.output.event((p) => {
        const text = p.text.replace(/\r\n/g, "\n");
        this.channel.append(text.endsWith("\n") ? text : `${text}\n`);
      }),
      ctx.runState.event((p) => this.onState(p)),
      ctx.runEnded.event((p) => {
        this.timers.delete(p.runId);
        this.channel.appendLine(`━━ run ${p.runId} ended ━━`);
      }),
    );
  }

  private onState(p: RunStateParams): void {
    const timer = timerOf(p);
    if (timer) this.timers.set(p.runId, timer);
    switch (p.state) {
      case "passed":
      case "failed":
        if (p.result) this.channel.appendLine(overheadReport(p.result, this.timers.get(p.runId)));
        if (p.state === "failed") this.channel.appendLine(`✗ ${p.id} failed: ${p.message ?? ""}`);
        return;
      case "errored":
        this.channel.appendLine(`✗ ${p.id} could not run: ${p.message ?? ""}`);
        return;
      default:
        return;
    }
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** The run's timer, if the daemon attaches the manifest (or its timer) to a state change. */
function timerOf(p: RunStateParams): TimerFacts | undefined {
  const x = p as unknown as { manifest?: { timer?: TimerFacts }; timer?: TimerFacts };
  const t = x.manifest?.timer ?? x.timer;
  return t && typeof t.kind === "string" ? t : undefined;
}
