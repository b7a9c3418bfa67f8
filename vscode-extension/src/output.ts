// The "knotmeter" output channel: per run, a header, then what the daemon writes for it (its
// `knotmeter/output`): the build output, the machine and timer, each case once with its whole
// account (the figure and its interval over rounds, the spread between stored runs, the overhead that was
// subtracted, its drift, capped samples, the cold first call), each benchmark's scaling, and
// the comparisons decided at the end. The daemon words it all (knotmeter-format); only each
// run's header and footer are added here, worded by format.ts. It never takes focus by itself.

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { OUTPUT_CHANNEL, runFooter, runHeader } from "./format";

export class Output implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(ctx: Ctx) {
    this.channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL);
    this.disposables.push(
      this.channel,
      ctx.runStarted.event((r) => {
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
        this.channel.appendLine(runFooter(p.runId));
      }),
      // A daemon that stopped (killed, crashed) sends no run end: the runs the Test Explorer
      // ended for it end here too, saying why.
      ctx.runAbandoned.event((p) => this.channel.appendLine(runFooter(p.runId, p.why))),
    );
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
