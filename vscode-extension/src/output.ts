// The "knotmeter" output channel: per run, a header, then what the daemon writes for it (its
// `knotmeter/output`): the build output, the machine and timer, each case once with its whole
// account (the figure and its interval over rounds, the spread between stored runs, the overhead that was
// subtracted, its drift, capped samples, the cold first call), each benchmark's scaling, and
// the comparisons decided at the end. The daemon words it all (knotmeter-format); only each
// run's header and footer are added here, worded by format.ts. It never takes focus by itself.

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { DAEMON_STOPPED, OUTPUT_CHANNEL, runFooter, runHeader } from "./format";

export class Output implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;
  private readonly disposables: vscode.Disposable[] = [];
  /** Runs whose header is written and whose footer is not. */
  private readonly open = new Set<number>();

  constructor(ctx: Ctx) {
    this.channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL);
    this.disposables.push(
      this.channel,
      ctx.runStarted.event((r) => {
        this.open.add(r.runId);
        this.channel.appendLine("");
        this.channel.appendLine(runHeader(r.label, r.runId, new Date().toLocaleTimeString()));
      }),
      ctx.log.event((line) => this.channel.appendLine(line)),
      ctx.output.event((p) => {
        // The wire's line breaks are `\r\n`, for Test Results' terminal: the channel wants `\n`.
        const text = p.text.replace(/\r\n/g, "\n");
        this.channel.append(text.endsWith("\n") ? text : `${text}\n`);
      }),
      ctx.runEnded.event((p) => {
        this.open.delete(p.runId);
        this.channel.appendLine(runFooter(p.runId));
      }),
      // A daemon that stopped (killed, crashed) sends no run end: its runs end here, saying why,
      // as the Test Explorer's do.
      ctx.clientState.event((up) => {
        if (up) return;
        for (const runId of this.open) this.channel.appendLine(runFooter(runId, DAEMON_STOPPED));
        this.open.clear();
      }),
    );
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
