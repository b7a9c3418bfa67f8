// Workspace Trust, in a real VS Code started with trust enabled and the folder not trusted
// (restricted mode): the benchmarks are discovered, but running them builds and runs nothing
// and says why. Run through scripts/e2e.sh.

import { check, finish, must, open } from "./lib.mjs";

const url = process.env.E2E_URL;
const artifacts = process.env.E2E_ARTIFACTS;
if (!url || !artifacts) throw new Error("run through scripts/e2e.sh");

const { browser, page, screenshot, until, palette, rows, expandTree, openFile } = await open(url, artifacts, "trust");
const guard = setTimeout(() => {
  console.error("trust: overall timeout");
  process.exit(1);
}, 150_000);

try {
  await page.goto(url);
  await page.waitForSelector(".monaco-workbench", { timeout: 90_000 });
  const status = await until(
    () => [...document.querySelectorAll(".statusbar-item")].map((e) => e.textContent ?? "").find((t) => /knotmeter: /.test(t)),
    null,
    60_000,
  );
  must("in an untrusted workspace the status bar says knotmeter only discovers", /discover only/.test(status ?? ""), status);
  await openFile("benches/quickstart.rs");
  await palette("Testing: Focus on Test Explorer View");
  await until(() => document.querySelectorAll(".test-explorer .monaco-list-row").length > 0, null, 60_000);
  await expandTree();
  const listed = (await rows()).map((r) => r.text).join(" | ");
  check("the benchmarks are still discovered", listed.includes("chain_1000") && listed.includes("sort_stable"), listed);
  // The Test Explorer's own run: VS Code asks for trust first; cancelled, nothing runs.
  await palette("Test: Run All Tests");
  const asked = await until(() => [...document.querySelectorAll(".monaco-dialog-box")].map((e) => e.textContent ?? "").find((t) => /trust/i.test(t)), null, 10_000);
  check("running from the Test Explorer asks for workspace trust first", asked, asked);
  await screenshot("trust-asked");
  await page.locator(".monaco-dialog-box .monaco-button", { hasText: "Cancel" }).first().click().catch(() => undefined);
  // The extension's own commands: it says why nothing runs.
  await page.locator(".monaco-editor .view-lines").first().click();
  await palette("knotmeter: Run Benchmarks in File");
  const why = await until(
    () => [...document.querySelectorAll(".notifications-toasts .notification-list-item-message, .notification-toast")].map((e) => e.textContent ?? "").find((t) => /untrusted workspace/.test(t)),
    null,
    15_000,
  );
  check("the extension's run commands say why nothing runs", why, why);
  await page.waitForTimeout(1500);
  const states = (await rows()).map((r) => r.aria);
  check("nothing was built or run (no benchmark passed)", states.every((a) => !/Passed|Failed/.test(a)), states.join(" | "));
  await screenshot("untrusted");
} catch (e) {
  check("no unexpected error", false, e?.stack ?? String(e));
  await screenshot("error").catch(() => undefined);
} finally {
  clearTimeout(guard);
  await browser.close();
}
finish("trust");
