// The results panel's page (bundled on its own into dist/webview.js). It draws, for the
// selected benchmark: the daemon's line and notes for the case, the distribution of its
// per-operation samples (a histogram with the estimate and its interval over rounds), the history of the
// estimate over past runs (one series per mode: quick and full runs never mix), for an `args`
// benchmark its scaling (median against n on log axes, with the fitted class and its
// warnings), and for a comparison group the table with ratio bars centred on the baseline.
// uPlot draws on canvas; colours come from VS Code's theme variables and are re-read when the
// theme changes. Its own words (captions, columns, what shows in place of a chart) are
// format.ts's, bundled into this page with it.

import flamegraph from "d3-flame-graph";
import { select } from "d3-selection";
import uPlot from "uplot";
import { diffColor, histogram, type FlameDiffNode, type FlameDiffView, type FlameNode, type FlameView, ratioScale, type ComparisonView, type FromWebview, type GroupRow, type HistorySeries, type PanelCase, type PanelData, type ScalingView, type ToWebview } from "../data";
import {
  CASE_PICKER,
  GROUP_COLUMNS,
  NOTHING_SELECTED,
  NOTHING_TO_DRAW,
  NO_HISTORY,
  NO_MEDIAN,
  NO_SAMPLES,
  RUN_BUTTON,
  axisNs,
  caseSummary,
  comparisonColumns,
  comparisonCounts,
  comparisonHeading,
  distributionCaption,
  estimateLabel,
  FLAME_DIFF_CAPTION,
  flameDiffLabel,
  flameHeading,
  flameLabel,
  formatMeasure,
  formatRatio,
  groupHeading,
  historyAria,
  historyCaption,
  memberName,
  offChart,
  scalingAria,
  scalingCaption,
  scalingHeading,
  type Caption,
} from "../../format";
import type { Measure } from "../../wire";

declare function acquireVsCodeApi(): { postMessage(msg: FromWebview): void; getState(): unknown; setState(s: unknown): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById("root")!;
let data: PanelData | undefined = (vscode.getState() as { data?: PanelData } | undefined)?.data;
let selected: string | undefined = (vscode.getState() as { selected?: string } | undefined)?.selected;
const plots: uPlot[] = [];

window.addEventListener("message", (e: MessageEvent<ToWebview>) => {
  if (e.data?.type === "data") {
    data = e.data.data;
    if (!data.cases.some((c) => c.id === selected)) selected = data.cases[0]?.id;
    vscode.setState({ data, selected });
    render();
  }
});
new MutationObserver(() => render()).observe(document.body, { attributes: true, attributeFilter: ["class"] });
let resizeTimer: number | undefined;
new ResizeObserver(() => {
  if (resizeTimer !== undefined) window.clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(render, 100);
}).observe(root);
vscode.postMessage({ type: "ready" });
if (data) render();

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

interface Theme {
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  accentFill: string;
  marker: string;
  band: string;
  font: string;
}

function theme(): Theme {
  const accent = cssVar("--vscode-charts-blue", "#3794ff");
  return {
    fg: cssVar("--vscode-editor-foreground", "#cccccc"),
    muted: cssVar("--vscode-descriptionForeground", "#999999"),
    grid: cssVar("--vscode-editorWidget-border", "rgba(128,128,128,0.35)"),
    accent,
    accentFill: withAlpha(accent, 0.55),
    marker: cssVar("--vscode-charts-orange", "#d18616"),
    band: withAlpha(accent, 0.2),
    font: `${cssVar("--vscode-font-size", "13px")} ${cssVar("--vscode-font-family", "sans-serif")}`,
  };
}

/** `#rrggbb` or `rgb(...)` with an alpha. */
function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (hex) {
    const n = parseInt(hex[1]!, 16);
    return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
  }
  const rgb = /^rgba?\(([^)]+)\)$/.exec(color);
  if (rgb) {
    const [r, g, b] = rgb[1]!.split(",").map((s) => s.trim());
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  return color;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function render(): void {
  while (plots.length > 0) plots.pop()!.destroy();
  root.replaceChildren();
  if (!data) {
    root.append(el("p", { class: "empty" }, NOTHING_SELECTED));
    return;
  }
  const header = el("header", {}, el("h1", {}, data.title));
  if (data.cases.length > 1) {
    const select = el("select", { "aria-label": CASE_PICKER });
    for (const c of data.cases) {
      const o = el("option", { value: c.id }, c.label);
      if (c.id === selected) o.selected = true;
      select.append(o);
    }
    select.addEventListener("change", () => {
      selected = select.value;
      vscode.setState({ data, selected });
      render();
    });
    header.append(select);
  }
  const run = el("button", { type: "button" }, RUN_BUTTON);
  const benchId = data.benchId;
  run.addEventListener("click", () => vscode.postMessage({ type: "run", benchId }));
  header.append(run);
  root.append(header);

  if (data.empty) root.append(el("p", { class: "empty" }, data.empty));
  if (data.comparison) root.append(comparisonTable(data.comparison));
  const c = data.cases.find((x) => x.id === selected) ?? data.cases[0];
  // Two charts side by side when there is room; each figure adds 18 px of padding and border.
  const columns = root.clientWidth > 760 ? 2 : 1;
  const width = Math.max(260, Math.floor((root.clientWidth - 16 * (columns - 1)) / columns) - 20);
  if (c) {
    root.append(el("p", { class: `summary ${c.outcome}` }, caseSummary(c.label, c.line)));
    for (const n of c.notes) root.append(el("p", { class: n.severity === "info" ? "note-info" : "warning" }, n.text));
    if (!c.profiledOnly) {
      const row = el("div", { class: "charts" });
      root.append(row);
      const hist = figure(row, distributionCaption(c.measured, c.samples.length));
      const hv = figure(row, historyCaption(c.history.reduce((a, s) => a + s.points.length, 0)));
      drawHistogram(hist, c, width);
      drawHistory(hv, c.history, width, c.measure);
    }
    if (c.flame) drawFlame(root, c.flame, Math.min(width * columns, 1200));
    if (c.flameDiff) drawFlameDiff(root, c.flameDiff, Math.min(width * columns, 1200));
  }
  if (data.scaling) {
    const s = data.scaling;
    const section = el("section", { class: "scaling" }, el("h2", {}, scalingHeading(s.complexity)));
    for (const n of s.notes) section.append(el("p", { class: n.severity === "info" ? "note-info" : "warning" }, n.text));
    const chart = figure(section, scalingCaption(s.class));
    root.append(section);
    drawScaling(chart, s, Math.min(width * columns, 900));
  }
  if (data.group && data.group.rows.length > 0) root.append(groupTable(data.group.name, data.group.rows));
}

/**
 * A case's call tree from its last profile (d3-flame-graph): each frame as wide as what it and
 * all below it cost per operation; a click zooms into the frame and opens the workspace line it
 * spends most on; an estimated frame (its caller is called from several places) is drawn
 * paler, as docs/profile.md says.
 */
function drawFlame(parent: HTMLElement, view: FlameView, width: number): void {
  const section = el("section", { class: "flame" }, el("h2", {}, flameHeading(view.unit)));
  const chart = el("div", { class: "flame-chart" });
  section.append(chart);
  parent.append(section);
  const graph = flamegraph<FlameNode>()
    .width(width)
    .cellHeight(18)
    .minFrameSize(2)
    .transitionDuration(0)
    .sort(false)
    .setLabelHandler((f) => flameLabel(f.data.name, f.data.value, f.data.own, view.unit, f.data.estimated))
    .setColorMapper((f, original) => (f.data.estimated ? withAlpha(original, 0.55) : original))
    .onClick((f) => {
      if (f.data.file && f.data.line) vscode.postMessage({ type: "open", file: f.data.file, line: f.data.line });
    });
  select(chart).datum(view.root).call(graph);
}

/**
 * A case's profiles of two builds ("Compare profiles with base"): the head's call tree, each
 * frame coloured by how its cost changed from the base's frame at the same path.
 */
function drawFlameDiff(parent: HTMLElement, view: FlameDiffView, width: number): void {
  const section = el("section", { class: "flame-diff" }, el("h2", {}, view.heading), el("p", { class: "note" }, FLAME_DIFF_CAPTION));
  const chart = el("div", { class: "flame-chart" });
  section.append(chart);
  parent.append(section);
  const graph = flamegraph<FlameDiffNode>()
    .width(width)
    .cellHeight(18)
    .minFrameSize(2)
    .transitionDuration(0)
    .sort(false)
    .setLabelHandler((f) => flameDiffLabel(f.data.name, f.data.base, f.data.value, view.unit))
    .setColorMapper((f) => diffColor(f.data.value, f.data.delta))
    .onClick((f) => {
      if (f.data.file && f.data.line) vscode.postMessage({ type: "open", file: f.data.file, line: f.data.line });
    });
  select(chart).datum(view.root).call(graph);
}

function figure(parent: HTMLElement, caption: Caption): HTMLElement {
  const chart = el("div", { class: "chart" });
  parent.append(el("figure", {}, el("figcaption", {}, el("strong", {}, caption.title), " ", el("span", { class: "note" }, caption.note)), chart));
  return chart;
}

function axes(t: Theme, xValues?: uPlot.Axis["values"], yValues?: uPlot.Axis["values"]): uPlot.Axis[] {
  const base = { stroke: t.muted, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 }, font: t.font };
  const x: uPlot.Axis = { ...base };
  const y: uPlot.Axis = { ...base, size: 70 };
  if (xValues) x.values = xValues;
  if (yValues) y.values = yValues;
  return [x, y];
}

function drawHistogram(target: HTMLElement, c: PanelCase, width: number): void {
  if (!c.measured) {
    target.append(el("p", { class: "empty" }, NOTHING_TO_DRAW));
    return;
  }
  const h = histogram(c.samples);
  if (h.counts.length === 0) {
    target.append(el("p", { class: "empty" }, NO_SAMPLES));
    return;
  }
  const t = theme();
  const xs = h.edges.map((e) => e + h.width / 2);
  const opts: uPlot.Options = {
    width,
    height: 200,
    legend: { show: false },
    cursor: { show: true, drag: { x: false, y: false } },
    scales: { x: { time: false, range: [h.edges[0]!, h.edges[h.edges.length - 1]! + h.width] }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.08] } },
    axes: axes(t, (_u, vals) => axisNs(vals, c.measure), (_u, vals) => vals.map((v) => String(v))),
    series: [
      {},
      {
        label: "samples",
        stroke: t.accent,
        fill: t.accentFill,
        width: 1,
        paths: uPlot.paths.bars!({ size: [0.92, Infinity], align: 0 }),
        points: { show: false },
      },
    ],
    hooks: {
      draw: [
        (u) => {
          const ctx = u.ctx;
          const top = u.bbox.top;
          const bottom = u.bbox.top + u.bbox.height;
          const lx = u.valToPos(c.low, "x", true);
          const hx = u.valToPos(c.high, "x", true);
          ctx.save();
          ctx.fillStyle = withAlpha(t.marker, 0.18);
          ctx.fillRect(lx, top, Math.max(1, hx - lx), bottom - top);
          const mx = u.valToPos(c.median, "x", true);
          ctx.strokeStyle = t.marker;
          ctx.lineWidth = 2 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(mx, top);
          ctx.lineTo(mx, bottom);
          ctx.stroke();
          const label = estimateLabel(c.median, c.measure);
          ctx.font = `${12 * devicePixelRatio}px ${cssVar("--vscode-font-family", "sans-serif")}`;
          const w = ctx.measureText(label).width;
          const px = 6 * devicePixelRatio;
          // Right of the line, or left of it when it would leave the plot.
          const right = u.bbox.left + u.bbox.width;
          const lx0 = mx + px + w <= right ? mx + px : Math.max(u.bbox.left, mx - px - w);
          // A halo in the background colour keeps the label readable over the bars.
          ctx.lineJoin = "round";
          ctx.lineWidth = 4 * devicePixelRatio;
          ctx.strokeStyle = cssVar("--vscode-editor-background", "#1e1e1e");
          ctx.strokeText(label, lx0, top + 14 * devicePixelRatio);
          ctx.fillStyle = t.fg;
          ctx.fillText(label, lx0, top + 14 * devicePixelRatio);
          ctx.restore();
        },
      ],
    },
  };
  plots.push(new uPlot(opts, [xs, h.counts], target));
  const off = offChart(h.above, h.below);
  if (off) target.append(el("p", { class: "note" }, off));
}

/** Theme colours for the history series, one per mode. */
function seriesColors(t: Theme): string[] {
  return [t.accent, t.marker, cssVar("--vscode-charts-green", "#89d185"), cssVar("--vscode-charts-purple", "#b180d7")];
}

function drawHistory(target: HTMLElement, series: HistorySeries[], width: number, measure: Measure): void {
  if (series.length === 0) {
    target.append(el("p", { class: "empty" }, NO_HISTORY));
    return;
  }
  const t = theme();
  // One x axis (run time) for every series; each series has values at its own runs only.
  const all = series.flatMap((s, i) => s.points.map((p) => ({ i, p })));
  all.sort((a, b) => Number(a.p.timestamp) - Number(b.p.timestamp) || Number(a.p.run) - Number(b.p.run));
  const xs = all.map((a) => Number(a.p.timestamp));
  // Equal timestamps (runs within a second) are spread so that each run gets its own point.
  for (let i = 1; i < xs.length; i++) if (xs[i]! <= xs[i - 1]!) xs[i] = xs[i - 1]! + 1;
  const colors = seriesColors(t);
  const columns: Array<Array<number | null>> = [xs];
  const defs: uPlot.Series[] = [{}];
  series.forEach((s, si) => {
    const color = colors[si % colors.length]!;
    columns.push(all.map((a) => (a.i === si && !empty(a.p.warnings) ? a.p.medianNs : null)));
    defs.push({ label: s.label, stroke: color, width: 2, spanGaps: true, points: { show: true, size: 7, fill: color, stroke: color } });
  });
  const values = columns.slice(1).flat().filter((v): v is number => v !== null);
  if (values.length === 0) {
    target.append(el("p", { class: "empty" }, NO_MEDIAN));
    return;
  }
  const opts: uPlot.Options = {
    width,
    height: 200,
    legend: { show: series.length > 1 },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true, ...(xs.length === 1 ? { range: [xs[0]! - 60, xs[0]! + 60] as uPlot.Range.MinMax } : {}) },
      y: { range: (_u, min, max) => [Math.max(0, min - (max - min) * 0.2 - max * 0.02), max + (max - min) * 0.2 + max * 0.02] },
    },
    axes: axes(t, undefined, (_u, vals) => axisNs(vals, measure)),
    series: defs,
  };
  plots.push(new uPlot(opts, columns as uPlot.AlignedData, target));
  target.setAttribute("aria-label", historyAria(series.map((s) => s.label)));
}

/** Whether a stored run's result was optimised away (its median means nothing). */
function empty(warnings: Array<{ code: string }> | undefined): boolean {
  return (warnings ?? []).some((w) => w.code === "optimized_away");
}

function drawScaling(target: HTMLElement, s: ScalingView, width: number): void {
  const t = theme();
  const xs = [...new Set([...s.points.map((p) => p.n), ...s.curve.map((p) => p.n)])].sort((a, b) => a - b);
  const at = (n: number) => xs.indexOf(n);
  const medians: Array<number | null> = xs.map(() => null);
  for (const p of s.points) medians[at(p.n)] = p.median;
  const curve: Array<number | null> = xs.map(() => null);
  for (const p of s.curve) if (p.ns > 0) curve[at(p.n)] = p.ns;
  const ys = [...s.points.flatMap((p) => [p.low, p.high]), ...s.curve.map((p) => p.ns)].filter((y) => y > 0);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const color = s.warned ? cssVar("--vscode-editorWarning-foreground", "#cca700") : t.accent;
  const opts: uPlot.Options = {
    width,
    height: 240,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: false, distr: 3, log: 10 },
      y: { distr: 3, log: 10, range: () => [lo / 1.5, hi * 1.5] },
    },
    axes: axes(
      t,
      (_u, vals) => vals.map((v) => (v === null ? "" : Number(v).toLocaleString("en-US"))),
      // Log ticks span decades: each in its own unit.
      (_u, vals) => vals.map((v) => (v === null ? "" : formatMeasure(Number(v), s.measure))),
    ),
    series: [
      {},
      { label: "median", stroke: color, width: 0, paths: () => null, points: { show: true, size: 8, fill: color, stroke: color } },
      { label: s.class ?? "fit", stroke: t.muted, width: 1.5, dash: [6, 4], spanGaps: true, points: { show: false } },
    ],
    hooks: {
      draw: [
        (u) => {
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = color;
          ctx.lineWidth = 1.5 * devicePixelRatio;
          for (const p of s.points) {
            const x = u.valToPos(p.n, "x", true);
            ctx.beginPath();
            ctx.moveTo(x, u.valToPos(p.low, "y", true));
            ctx.lineTo(x, u.valToPos(p.high, "y", true));
            ctx.stroke();
          }
          ctx.restore();
        },
      ],
    },
  };
  plots.push(new uPlot(opts, [xs, medians, curve] as uPlot.AlignedData, target));
  target.setAttribute("aria-label", scalingAria(s.points, s.complexity));
}

/**
 * A comparison run's table: base and head figures, the change with its 95% interval and the
 * verdict against the base, or why a case was not compared. Every word of a row is the daemon's.
 */
function comparisonTable(c: ComparisonView): HTMLElement {
  const table = el("table", { class: "compare" });
  const [id, base, head, change, verdict] = comparisonColumns(c.base);
  table.append(el("thead", {}, el("tr", {}, el("th", {}, id), el("th", { class: "num" }, base), el("th", { class: "num" }, head), el("th", { class: "num" }, change), el("th", {}, verdict))));
  const body = el("tbody");
  for (const r of c.rows) {
    // A case without a verdict is a warning, never a quiet blank.
    const kind = r.verdict ?? (r.status === "added" || r.status === "removed" ? "only" : "warned");
    const outcome = el("td", { class: `outcome ${kind}` }, r.outcome);
    if (r.why) outcome.append(el("div", { class: "why" }, r.why));
    body.append(el("tr", { "data-status": r.status }, el("td", {}, r.id), el("td", { class: "num" }, r.base), el("td", { class: "num" }, r.head), el("td", { class: "num" }, r.change), outcome));
  }
  table.append(body);
  return el("section", { class: "comparison" }, el("h2", {}, comparisonHeading(c.heading)), el("p", { class: "note" }, comparisonCounts(c.summary, c.cancelled)), table);
}

function groupTable(name: string, rows: GroupRow[]): HTMLElement {
  // Bars start at the baseline (1×), not at 0, so that a 1% difference is visible.
  const pos = ratioScale(rows);
  const one = pos(1);
  const table = el("table", { class: "group" });
  const [member, estimate, ratio, against, verdict] = GROUP_COLUMNS;
  table.append(el("thead", {}, el("tr", {}, el("th", {}, member), el("th", { class: "num" }, estimate), el("th", { class: "num" }, ratio), el("th", { class: "bar" }, against), el("th", {}, verdict))));
  const body = el("tbody");
  for (const r of rows) {
    const bar = el("div", { class: "ratio" });
    if (Number.isFinite(r.ratio)) {
      const fill = el("div", { class: `fill ${r.verdict ?? (r.baseline ? "base" : "same")}` });
      const x = pos(r.ratio);
      fill.style.left = `${Math.min(one, x)}%`;
      fill.style.width = `${Math.max(0.6, Math.abs(x - one))}%`;
      bar.append(fill);
    }
    if (r.low !== undefined && r.high !== undefined) {
      const ci = el("div", { class: "ci" });
      ci.style.left = `${pos(r.low)}%`;
      ci.style.width = `${Math.max(0.3, pos(r.high) - pos(r.low))}%`;
      bar.append(ci);
    }
    const mark = el("div", { class: "one" });
    mark.style.left = `${one}%`;
    bar.append(mark);
    body.append(
      el(
        "tr",
        {},
        el("td", {}, memberName(r.name, r.baseline)),
        el("td", { class: "num" }, r.figure),
        el("td", { class: "num" }, formatRatio(r.ratio)),
        el("td", { class: "bar" }, bar),
        el("td", {}, r.text),
      ),
    );
  }
  table.append(body);
  return el("section", {}, el("h2", {}, groupHeading(name)), table);
}
