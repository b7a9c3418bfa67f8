// Bundles the extension (dist/extension.js, CommonJS for VS Code's Node host) and the results
// panel's page (dist/webview.js and dist/webview.css, an IIFE for the browser with uPlot).
// `--production` minifies; `--watch` rebuilds on change. Legal comments are left out of the
// bundles; dist/THIRD_PARTY_NOTICES.txt holds every bundled package's licence (notices.mjs).
import * as esbuild from "esbuild";
import { writeNotices } from "./notices.mjs";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const common = { bundle: true, minify: production, sourcemap: !production, logLevel: "info", legalComments: "none" };
const builds = [
  { ...common, metafile: true, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", platform: "node", format: "cjs", target: "node20", external: ["vscode"] },
  // d3-flame-graph's module imports its own stylesheet: left out here (style.css has the panel's own rules for it).
  { ...common, metafile: true, entryPoints: { webview: "src/panel/webview/main.ts" }, outdir: "dist", platform: "browser", format: "iife", target: "chrome120", loader: { ".css": "empty" } },
  { ...common, entryPoints: { webview: "src/panel/webview/style.css" }, outdir: "dist", loader: { ".css": "css" } },
];

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  // The licences of the bundled packages, which the bundles themselves no longer carry.
  const bundled = writeNotices(results.filter((r) => r.metafile).map((r) => r.metafile));
  console.log(`  dist/THIRD_PARTY_NOTICES.txt: ${[...bundled.keys()].sort().join(", ")}`);
}
