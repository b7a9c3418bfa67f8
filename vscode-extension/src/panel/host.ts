// The results panel's host: one webview panel that shows the selected benchmark. It gathers
// the latest results from the store and the history from `knotmeter/history`, posts them to
// the page (src/panel/webview, bundled separately), and refreshes live as results arrive. The
// page runs under a Content Security Policy: scripts only with this load's nonce, styles and
// fonts only from the extension's dist folder.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { Ctx } from "../ctx";
import { PANEL_TITLE, noResultYet, panelTitle } from "../format";
import * as ext from "../lsp_ext";
import { functionName } from "../model";
import type { HistoryPoint, RawSamples } from "../wire";
import { comparisonView, flameDiffView, flameView, profiledOnlyCase, groupRows, panelCase, scalingView, type FromWebview, type PanelData, type ToWebview } from "./data";

export class ResultsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private benchId: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly runBench: (benchId: string) => void,
  ) {
    this.disposables.push(
      ctx.store.onChange((id) => {
        if (this.panel && this.benchId && this.concerns(id)) this.scheduleRefresh();
      }),
      ctx.runEnded.event(() => {
        if (this.panel) this.scheduleRefresh();
      }),
      ctx.compared.event(() => {
        if (this.panel) this.scheduleRefresh();
      }),
      ctx.profiles.onChange(() => {
        if (this.panel) this.scheduleRefresh();
      }),
    );
  }

  /** Opens `file` at `line` (1-based) beside the panel. */
  private async open(file: string, line: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const at = new vscode.Position(Math.max(0, line - 1), 0);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
  }

  /** Opens (or reveals) the panel on a benchmark; a case id selects its benchmark. */
  show(id: string): void {
    const item = this.ctx.items.find((i) => i.id === id);
    const benchId = item?.kind === "case" && item.parent ? item.parent : id;
    this.benchId = benchId;
    if (!this.panel) {
      const dist = vscode.Uri.joinPath(this.ctx.extension.extensionUri, "dist");
      this.panel = vscode.window.createWebviewPanel(
        "knotmeter.results",
        PANEL_TITLE,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: false },
      );
      this.panel.webview.html = this.html(this.panel.webview, dist);
      this.panel.webview.onDidReceiveMessage((m: FromWebview) => {
        if (m.type === "ready") void this.refresh();
        if (m.type === "run") this.runBench(m.benchId);
        // A frame of the flame graph opens the workspace line it spends most on.
        if (m.type === "open") void this.open(m.file, m.line);
      });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    } else {
      this.panel.reveal(undefined, false);
      void this.refresh();
    }
    this.panel.title = panelTitle(functionName(benchId));
  }

  private concerns(id: string): boolean {
    if (id === this.benchId) return true;
    const item = this.ctx.items.find((i) => i.id === id);
    if (item?.parent === this.benchId) return true;
    const group = this.ctx.store.get(id)?.result.group;
    return group !== undefined && group !== null && this.currentGroup() === group;
  }

  private currentGroup(): string | undefined {
    if (!this.benchId) return undefined;
    return this.ctx.store.resultsOf(this.benchId, this.ctx.items).find((r) => r.group)?.group ?? undefined;
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refresh();
    }, 200);
  }

  private async refresh(): Promise<void> {
    if (!this.panel || !this.benchId) return;
    const data = await this.collect(this.benchId);
    const msg: ToWebview = { type: "data", data };
    await this.panel?.webview.postMessage(msg);
  }

  /** Everything the page shows for one benchmark. */
  async collect(benchId: string): Promise<PanelData> {
    const entries = this.ctx.store.entriesOf(benchId, this.ctx.items);
    const item = this.ctx.items.find((i) => i.id === benchId);
    const histories = await Promise.all(entries.map((e) => this.history(e.id)));
    // Results arrive without their raw samples: the panel asks for the ones it draws.
    const raws = await Promise.all(entries.map((e) => this.samples(e.id)));
    const data: PanelData = {
      benchId,
      title: item?.label ?? functionName(benchId),
      cases: entries.map((e, i) => {
        const c = panelCase({ ...e.result, raw: raws[i] ?? e.result.raw }, e.shown, histories[i] ?? []);
        const flame = flameView(this.ctx.profiles.get(e.id));
        const flameDiff = flameDiffView(this.ctx.profiles.comparison(e.id));
        return { ...c, ...(flame ? { flame } : {}), ...(flameDiff ? { flameDiff } : {}) };
      }),
    };
    // A case profiled but not measured since the daemon started still shows its profile.
    const measured = new Set(entries.map((e) => e.id));
    const leaves = this.ctx.items.filter((i) => i.parent === benchId && i.id !== benchId);
    for (const leaf of leaves.length > 0 ? leaves : item ? [item] : []) {
      if (measured.has(leaf.id)) continue;
      const only = profiledOnlyCase(leaf.id, leaf.label, flameView(this.ctx.profiles.get(leaf.id)), flameDiffView(this.ctx.profiles.comparison(leaf.id)));
      if (only) data.cases.push(only);
    }
    if (data.cases.length === 0) {
      data.empty = noResultYet(this.ctx.trusted);
    }
    const comparison = this.ctx.comparison && comparisonView(this.ctx.comparison.comparison, benchId);
    if (comparison) data.comparison = comparison;
    const group = entries.find((e) => e.result.group)?.result.group;
    if (group) data.group = { name: group, rows: groupRows(this.ctx.store.group(group)) };
    const summary = this.ctx.store.bench(benchId);
    const shown = entries.find((e) => e.shown.scaling !== undefined)?.shown ?? entries[0]?.shown;
    if (summary && shown && entries.length > 1) {
      const labels = new Map(entries.map((e) => [e.id, e.result.args ?? e.id]));
      const measure = entries.find((e) => e.result.measure)?.result.measure ?? "time";
      const scaling = scalingView(summary, shown, labels, measure);
      if (scaling) data.scaling = scaling;
    }
    return data;
  }

  /** The raw samples of a case's latest result (`knotmeter/samples`), when the daemon has them. */
  private async samples(id: string): Promise<RawSamples | undefined> {
    const client = this.ctx.client;
    if (!client || !client.isRunning()) return undefined;
    try {
      return (await client.sendRequest(ext.samples, { id })).raw ?? undefined;
    } catch {
      return undefined;
    }
  }

  private async history(id: string): Promise<HistoryPoint[]> {
    const client = this.ctx.client;
    if (!client || !client.isRunning()) return [];
    try {
      return (await client.sendRequest(ext.history, { id, limit: 50 })).points;
    } catch {
      return [];
    }
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString("base64");
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js"));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.css"));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>${PANEL_TITLE}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
