// The results panel's page, alone, in headless Chromium with fixture data: it loads the
// bundled dist/webview.js and dist/webview.css under the same Content Security Policy as in
// VS Code, gets a fixture message, and must draw its charts and table in a dark and a light
// theme without a CSP violation. Screenshots go to test-artifacts/.
//
//   node test/panel/panel-page.mjs      (after `npm run build`; needs playwright-core and
//                                        /usr/bin/chromium from shared/tools/real-vscode)

import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const ext = path.resolve(here, "../..");
const artifacts = path.join(ext, "test-artifacts");
mkdirSync(artifacts, { recursive: true });
const realVscode = process.env.REAL_VSCODE_DIR ?? path.join(process.env.HOME ?? "/root", ".cache/real-vscode");
const { chromium } = createRequire(path.join(realVscode, "node_modules/"))("playwright-core");

const guard = setTimeout(() => {
  console.error("panel page test: timed out");
  process.exit(1);
}, 90_000);

const fixture = JSON.parse(readFileSync(path.join(here, "fixture-data.json"), "utf8"));
const themes = {
  dark: {
    class: "vscode-dark",
    vars: {
      "--vscode-editor-foreground": "#cccccc",
      "--vscode-editor-background": "#1f1f1f",
      "--vscode-descriptionForeground": "#9d9d9d",
      "--vscode-editorWidget-border": "#454545",
      "--vscode-panel-border": "#2b2b2b",
      "--vscode-charts-blue": "#3794ff",
      "--vscode-charts-orange": "#d18616",
      "--vscode-charts-green": "#89d185",
      "--vscode-charts-red": "#f14c4c",
      "--vscode-button-background": "#0078d4",
      "--vscode-button-hoverBackground": "#026ec1",
      "--vscode-button-foreground": "#ffffff",
      "--vscode-editorWarning-foreground": "#cca700",
      "--vscode-font-family": "system-ui, sans-serif",
      "--vscode-editor-font-family": "monospace",
      "--vscode-font-size": "13px",
    },
  },
  light: {
    class: "vscode-light",
    vars: {
      "--vscode-editor-foreground": "#3b3b3b",
      "--vscode-editor-background": "#ffffff",
      "--vscode-descriptionForeground": "#3b3b3b",
      "--vscode-editorWidget-border": "#c8c8c8",
      "--vscode-panel-border": "#e5e5e5",
      "--vscode-charts-blue": "#1a85ff",
      "--vscode-charts-orange": "#d18616",
      "--vscode-charts-green": "#388a34",
      "--vscode-charts-red": "#e51400",
      "--vscode-button-background": "#005fb8",
      "--vscode-button-hoverBackground": "#0258a8",
      "--vscode-button-foreground": "#ffffff",
      "--vscode-editorWarning-foreground": "#bf8803",
      "--vscode-font-family": "system-ui, sans-serif",
      "--vscode-editor-font-family": "monospace",
      "--vscode-font-size": "13px",
    },
  },
};

// The same policy as src/panel/host.ts, with the page's origin as the webview's cspSource.
const origin = "http://panel.test";
const nonce = "dGVzdC1ub25jZQ==";
const csp = `default-src 'none'; style-src ${origin}; font-src ${origin}; img-src ${origin} data:; script-src 'nonce-${nonce}'`;
const page_html = (theme) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="${origin}/webview.css">
<link rel="stylesheet" href="${origin}/theme-${theme}.css">
</head><body class="${themes[theme].class}"><div id="root"></div>
<script nonce="${nonce}" src="${origin}/stub.js"></script>
<script nonce="${nonce}" src="${origin}/webview.js"></script>
</body></html>`;
const themeCss = (theme) => `html, body { ${Object.entries(themes[theme].vars).map(([k, v]) => `${k}: ${v};`).join(" ")} }`;
// acquireVsCodeApi as VS Code provides it; `ready` is answered with the fixture message.
const stub = `
window.__posted = [];
window.acquireVsCodeApi = () => ({
  postMessage: (m) => {
    window.__posted.push(m);
    if (m.type === "ready") setTimeout(() => window.postMessage({ type: "data", data: window.__fixture }, "*"), 0);
  },
  getState: () => undefined,
  setState: () => {},
});`;

const results = [];
function check(name, ok, detail = "") {
  results.push({ name, ok });
  console.log(`${ok ? "ok" : "FAIL"} - ${name}${detail ? `: ${detail}` : ""}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  for (const [theme, which] of [
    ["dark", "group"],
    ["light", "group"],
    ["dark", "args"],
  ]) {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 }, deviceScaleFactor: 1 });
    const violations = [];
    const errors = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.route(`${origin}/**`, (route) => {
      const name = new URL(route.request().url()).pathname.slice(1);
      const bodies = {
        "index.html": [page_html(theme), "text/html"],
        "stub.js": [stub, "text/javascript"],
        "webview.js": [readFileSync(path.join(ext, "dist/webview.js")), "text/javascript"],
        "webview.css": [readFileSync(path.join(ext, "dist/webview.css")), "text/css"],
        [`theme-${theme}.css`]: [themeCss(theme), "text/css"],
      };
      const b = bodies[name];
      return b ? route.fulfill({ body: b[0], contentType: b[1] }) : route.fulfill({ status: 404, body: "" });
    });
    await page.addInitScript((data) => {
      window.__fixture = data;
    }, fixture[which]);
    await page.goto(`${origin}/index.html`);
    await page.waitForSelector("#root canvas", { timeout: 15_000 }).catch(() => undefined);
    await page.waitForTimeout(300);
    const label = `${theme}/${which}`;
    const state = await page.evaluate(() => {
      const canvases = [...document.querySelectorAll("#root canvas")];
      const painted = canvases.map((c) => {
        const ctx = c.getContext("2d");
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
      });
      return {
        canvases: canvases.length,
        painted,
        title: document.querySelector("h1")?.textContent,
        rows: document.querySelectorAll("table.group tbody tr").length,
        bars: [...document.querySelectorAll(".ratio .fill")].map((b) => b.style.width),
        options: document.querySelectorAll("select option").length,
        warnings: document.querySelectorAll(".warning").length,
        posted: window.__posted.map((m) => m.type),
        bg: getComputedStyle(document.body).backgroundColor,
        flames: document.querySelectorAll("section.flame .d3-flame-graph rect").length,
        flameHeading: document.querySelector("section.flame h2")?.textContent,
        diffFills: Object.fromEntries([...document.querySelectorAll("section.flame-diff .d3-flame-graph g")].map((g) => [g.querySelector("title")?.textContent?.split(": ")[0] ?? g.textContent, g.querySelector("rect")?.getAttribute("fill")])),
        diffHeading: document.querySelector("section.flame-diff h2")?.textContent,
      };
    });
    check(`${label}: the page asks for its data`, state.posted.includes("ready"));
    check(`${label}: the charts are drawn (distribution, history${which === "args" ? ", scaling" : ""})`, state.canvases >= (which === "args" ? 3 : 2) && state.painted.every((n) => n > 300), JSON.stringify(state.painted));
    check(`${label}: the title names the benchmark`, state.title === fixture[which].title, state.title);
    if (which === "group") {
      check(`${label}: the last profile's call tree is drawn as a flame graph, a frame per call`, state.flames === 4 && /call tree/.test(state.flameHeading ?? ""), `${state.flames} frames; ${state.flameHeading}`);
      await page.click("section.flame .d3-flame-graph g:nth-of-type(2) rect").catch(() => undefined);
      const opened = await page.evaluate(() => window.__posted.filter((m) => m.type === "open"));
      check(`${label}: clicking a frame opens the line it spends most on`, opened.some((m) => m.file === "/ws/benches/quickstart.rs" && m.line === 33), JSON.stringify(opened));
      const fills = state.diffFills;
      check(
        `${label}: profiles of two builds are drawn as a differential flame graph: red where the head costs more, grey where the same`,
        Object.keys(fills).length === 4 &&
          fills["core::slice::sort::unstable::heapsort::heapsort"] === "rgb(230, 0, 0)" &&
          fills["core::slice::sort::shared::smallsort::insertion_sort_shift_left"] === "rgb(220, 220, 220)" &&
          /^quickstart::sort_unstable: 20 000 instructions → 24 610/.test(state.diffHeading ?? ""),
        `${JSON.stringify(fills)}; ${state.diffHeading}`,
      );
    } else {
      check(`${label}: no profile, no flame graph`, state.flames === 0 && Object.keys(state.diffFills).length === 0, state.flames);
    }
    if (which === "group") {
      check(`${label}: the group table has a row and a ratio bar per member`, state.rows === 2 && state.bars.length === 2, JSON.stringify(state.bars));
      const bars = await page.evaluate(() => ({
        one: [...document.querySelectorAll(".ratio .one")].map((e) => parseFloat(e.style.left)),
        fill: [...document.querySelectorAll(".ratio .fill")].map((e) => [parseFloat(e.style.left), parseFloat(e.style.width)]),
        legend: document.querySelectorAll(".u-legend .u-series").length,
      }));
      check(`${label}: ratio bars start at the baseline (1× in the middle), not at 0`, bars.one.every((x) => Math.abs(x - 50) < 1) && bars.fill[1][0] < 50 && bars.fill[1][0] + bars.fill[1][1] <= 50.01, JSON.stringify(bars));
      check(`${label}: the history keeps quick and full runs apart (a legend entry each)`, bars.legend >= 2, JSON.stringify(bars));
    } else {
      check(`${label}: a case selector lists the cases`, state.options === 3);
      await page.selectOption("select", "quickstart::chain_n/100");
      await page.waitForTimeout(200);
      const after = await page.evaluate(() => ({ summary: document.querySelector(".summary")?.textContent, warnings: document.querySelectorAll(".warning").length }));
      check(`${label}: selecting a case shows it with its warning`, /^100:/.test(after.summary ?? "") && after.warnings === 1, after.summary);
      const compare = await page.evaluate(() => ({
        heading: document.querySelector("section.comparison h2")?.textContent,
        rows: [...document.querySelectorAll("table.compare tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
        warned: [...document.querySelectorAll("table.compare .outcome.warned")].map((td) => getComputedStyle(td).color),
      }));
      check(`${label}: the comparison table names both sides`, compare.heading === `Compared: ${fixture.args.comparison.heading}`, compare.heading);
      check(
        `${label}: each compared case reads base, head, change [interval], verdict against the base`,
        JSON.stringify(compare.rows[0]) === JSON.stringify(["quickstart::chain_n/10", "18.5 ns", "19.0 ns", "+3.1% [2.6, 3.7]", "slower than main"]),
        JSON.stringify(compare.rows),
      );
      check(
        `${label}: a case not compared shows no change, says why, and is drawn as a warning`,
        compare.rows[2]?.[3] === "" && /^not compared\s*the base build's body/.test(compare.rows[2]?.[4] ?? "") && compare.warned.length === 1,
        JSON.stringify(compare),
      );
      const scaling = await page.evaluate(() => document.querySelector("section.scaling h2")?.textContent);
      check(`${label}: the scaling view names the fitted class`, scaling === "Scaling: O(n)", scaling);
    }
    check(`${label}: the theme's background is used`, state.bg === (theme === "dark" ? "rgb(31, 31, 31)" : "rgb(255, 255, 255)"), state.bg);
    await page.click("button");
    check(`${label}: the Run button asks the host to run the benchmark`, (await page.evaluate(() => window.__posted.map((m) => m.type))).includes("run"));
    check(`${label}: no Content Security Policy violation`, violations.length === 0, violations.join(" | "));
    check(`${label}: no script error`, errors.length === 0, errors.join(" | "));
    await page.screenshot({ path: path.join(artifacts, `panel-${theme}-${which}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  clearTimeout(guard);
}
const failed = results.filter((r) => !r.ok).length;
console.log(`panel page: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
