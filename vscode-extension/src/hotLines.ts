// A profile's hot lines in the editor: at the end of each line the daemon's mark
// (`◔ 31% · 1 271 instructions/op`, knotmeter-format's words, as the terminal prints them), its
// sentence on hover, and a heat mark in the gutter, hotter for a larger share of the profiled
// region. Drawn from `ProfileStore`; decorations never take focus.

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { heat } from "./profiles";

/** The gutter's heat colours, coolest first (a line under a hundredth of the region has none). */
const HEAT = ["#e8b04b", "#e07b39", "#d1453b"] as const;

function gutterIcon(colour: string): vscode.Uri {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="5" y="1" width="5" height="14" rx="1" fill="${colour}"/></svg>`;
  return vscode.Uri.parse(`data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`);
}

export class HotLines implements vscode.Disposable {
  private readonly text = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor("editorCodeLens.foreground"), margin: "0 0 0 2em", fontStyle: "italic" },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly gutters = HEAT.map((colour) =>
    vscode.window.createTextEditorDecorationType({
      gutterIconPath: gutterIcon(colour),
      gutterIconSize: "contain",
      overviewRulerColor: colour,
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    }),
  );
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.text,
      ...this.gutters,
      ctx.profiles.onChange(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
    );
    this.refresh();
  }

  private refresh(): void {
    for (const editor of vscode.window.visibleTextEditors) this.draw(editor);
  }

  private draw(editor: vscode.TextEditor): void {
    const doc = editor.document;
    const marks = doc.uri.scheme === "file" ? this.ctx.profiles.marksIn(doc.uri.fsPath) : [];
    const texts: vscode.DecorationOptions[] = [];
    const gutters: vscode.DecorationOptions[][] = this.gutters.map(() => []);
    for (const mark of marks) {
      if (mark.line >= doc.lineCount) continue;
      const end = doc.lineAt(mark.line).range.end;
      const range = new vscode.Range(end, end);
      texts.push({ range, hoverMessage: mark.detail, renderOptions: { after: { contentText: `◔ ${mark.text}` } } });
      const level = heat(mark.share);
      if (level > 0) gutters[level - 1]!.push({ range: new vscode.Range(mark.line, 0, mark.line, 0) });
    }
    editor.setDecorations(this.text, texts);
    this.gutters.forEach((type, i) => editor.setDecorations(type, gutters[i]!));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
