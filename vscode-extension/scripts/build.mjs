// Bundles the extension (dist/extension.js, CommonJS for VS Code's Node host) and the results
// panel's page (dist/webview.js and dist/webview.css, an IIFE for the browser with uPlot).
// `--production` minifies; `--watch` rebuilds on change.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const common = { bundle: true, minify: production, sourcemap: !production, logLevel: "info", legalComments: "none" };
const builds = [
  { ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", platform: "node", format: "cjs", target: "node20", external: ["vscode"] },
  { ...common, entryPoints: { webview: "src/panel/webview/main.ts" }, outdir: "dist", platform: "browser", format: "iife", target: "chrome120" },
  { ...common, entryPoints: { webview: "src/panel/webview/style.css" }, outdir: "dist", loader: { ".css": "css" } },
];

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
