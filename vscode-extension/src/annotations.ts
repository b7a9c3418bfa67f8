// Inline annotations: at the end of each bench function's signature line, the last result as
// the daemon words it ("12.3 ns ±1.2% · 3.1% faster than run 7"). They update
// live as results arrive during a run, show "measuring…" while a benchmark runs, and are
// dimmed once the file is edited after the run. They have no hover of their own: the daemon's
// hover covers the signature line, so there is one hover, not two that could disagree.
// `knotmeter.annotations.enabled` turns them off. Decorations never take focus.

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { annotationText, editedSince, measuringText } from "./format";
import { Measuring, signatureLine } from "./model";
import type { TestItem } from "./wire";

export class Annotations implements vscode.Disposable {
  private readonly fresh = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor("editorCodeLens.foreground"), margin: "0 0 0 2em", fontStyle: "italic" },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly stale = vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor("editorCodeLens.foreground"),
      margin: "0 0 0 2em",
      fontStyle: "italic",
      textDecoration: "none; opacity: 0.45",
    },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  /** Bench ids whose file was edited after their last result. */
  private readonly staleIds = new Set<string>();
  /** Items being measured right now. */
  private readonly running = new Measuring();
  private readonly disposables: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.fresh,
      this.stale,
      ctx.store.onChange((id) => {
        this.staleIds.delete(id);
        const parent = ctx.items.find((i) => i.id === id)?.parent;
        if (parent) this.staleIds.delete(parent);
        this.schedule();
      }),
      ctx.runState.event((p) => {
        this.running.state(p);
        this.schedule();
      }),
      ctx.runEnded.event(() => {
        this.running.clear();
        this.schedule();
      }),
      // A daemon that stopped (killed, crashed, restarted) sends no run end: its runs are over.
      ctx.clientState.event((up) => {
        if (up) return;
        this.running.clear();
        this.schedule();
      }),
      ctx.discovered.event(() => this.schedule()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        const uri = e.document.uri.toString();
        let changed = false;
        for (const b of this.benches()) {
          if (b.uri === uri && !this.staleIds.has(b.id)) {
            this.staleIds.add(b.id);
            changed = true;
          }
        }
        if (changed) this.schedule();
      }),
    );
  }

  private benches(): TestItem[] {
    return this.ctx.items.filter((i) => i.kind === "bench" && i.uri && i.range);
  }

  /** Coalesces bursts of results into one repaint. */
  schedule(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.render();
    }, 50);
  }

  render(): void {
    for (const editor of vscode.window.visibleTextEditors) this.renderEditor(editor);
  }

  private renderEditor(editor: vscode.TextEditor): void {
    if (!this.ctx.config.annotations) {
      editor.setDecorations(this.fresh, []);
      editor.setDecorations(this.stale, []);
      return;
    }
    const uri = editor.document.uri.toString();
    const fresh: vscode.DecorationOptions[] = [];
    const stale: vscode.DecorationOptions[] = [];
    const doc = editor.document;
    for (const b of this.benches()) {
      if (b.uri !== uri || !b.range) continue;
      const cases = this.ctx.store.presentedOf(b.id, this.ctx.items);
      const caseIds = this.ctx.items.filter((i) => i.parent === b.id).map((i) => i.id);
      const measuring = this.running.any([b.id, ...caseIds]);
      let text = annotationText(cases);
      if (measuring) text = measuringText(text);
      if (!text) continue;
      const line = signatureLine((i) => (i < doc.lineCount ? doc.lineAt(i).text : undefined), b.range, b.label);
      if (line >= doc.lineCount) continue;
      const end = doc.lineAt(line).range.end;
      const isStale = this.staleIds.has(b.id) && !measuring;
      const option: vscode.DecorationOptions = {
        range: new vscode.Range(end, end),
        renderOptions: { after: { contentText: isStale ? editedSince(text) : text } },
      };
      (isStale ? stale : fresh).push(option);
    }
    editor.setDecorations(this.fresh, fresh);
    editor.setDecorations(this.stale, stale);
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    for (const d of this.disposables) d.dispose();
  }
}
