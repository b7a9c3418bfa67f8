// Helpers shared by the end-to-end drivers: a browser on code-server, checks that print
// `ok`/`FAIL`, the command palette, polling, screenshots.

import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

export const results = [];

/** A check the rest depends on: when it fails, the test stops there. */
export function must(name, ok, detail = "") {
  if (!check(name, ok, detail)) throw new Error(`cannot go on: ${name}`);
}

export function check(name, ok, detail = "") {
  results.push({ name, ok: !!ok });
  console.log(`${ok ? "ok" : "FAIL"} - ${name}${detail ? `: ${String(detail).slice(0, 1500)}` : ""}`);
  return !!ok;
}

/** Opens code-server in headless Chromium; returns the page and its helpers. */
export async function open(url, artifacts, prefix) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const page = await browser.newPage({ viewport: { width: 1500, height: 940 } });
  page.setDefaultTimeout(30_000);
  let shot = 0;
  const h = {
    browser,
    page,
    async screenshot(name) {
      shot++;
      await page.screenshot({ path: path.join(artifacts, `${prefix}-${String(shot).padStart(2, "0")}-${name}.png`) });
    },
    /** Waits until `f` (run in the page) returns a truthy value; returns it, or undefined on timeout. */
    async until(f, arg, timeoutMs, everyMs = 500) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const v = await page.evaluate(f, arg).catch(() => undefined);
        if (v) return v;
        if (Date.now() > end) return undefined;
        await page.waitForTimeout(everyMs);
      }
    },
    async palette(command) {
      await page.keyboard.press("Escape");
      await page.keyboard.press("F1");
      await page.waitForSelector(".quick-input-widget input", { state: "visible" });
      await page.keyboard.type(command);
      await page.waitForTimeout(700);
      await page.keyboard.press("Enter");
      await page.waitForTimeout(800);
    },
    rows: () => page.$$eval(".test-explorer .monaco-list-row", (rs) => rs.map((r) => ({ aria: r.getAttribute("aria-label") ?? "", text: r.textContent ?? "" }))),
    statusText: () => page.evaluate(() => [...document.querySelectorAll(".statusbar-item")].map((e) => e.textContent ?? "").find((t) => t.includes("knotmeter"))),
    /** Waits until the knotmeter status bar text passes `accept` (run here); returns it, or undefined on timeout. */
    async untilStatus(accept, timeoutMs, everyMs = 250) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const text = (await h.statusText().catch(() => undefined)) ?? "";
        if (accept(text)) return text;
        if (Date.now() > end) return undefined;
        await page.waitForTimeout(everyMs);
      }
    },
    async expandTree() {
      const first = await page.$(".test-explorer .monaco-list-row");
      if (!first) return;
      await first.click();
      for (let i = 0; i < 30; i++) {
        const before = (await h.rows()).length;
        await page.keyboard.press("ArrowRight");
        await page.keyboard.press("ArrowDown");
        await page.waitForTimeout(120);
        const after = await h.rows();
        if (i > 6 && after.length === before && after.every((r) => !/collapsed/i.test(r.aria))) break;
      }
      await page.keyboard.press("Home");
    },
    async openFile(name) {
      await h.palette("Go to File");
      await page.keyboard.type(name);
      await page.waitForTimeout(800);
      await page.keyboard.press("Enter");
      await page.waitForSelector(".monaco-editor .view-lines", { state: "visible" });
      await page.waitForTimeout(800);
    },
    async goToLine(n) {
      await page.keyboard.press("Control+G");
      await page.waitForTimeout(300);
      await page.keyboard.type(String(n));
      await page.keyboard.press("Enter");
      await page.waitForTimeout(300);
    },
  };
  return h;
}

/** Prints the closing line and exits with the outcome. */
export function finish(label) {
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${label}: ${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
