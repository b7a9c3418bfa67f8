// Third-party notices for what the bundles hold: every npm package an esbuild metafile says
// was bundled, with its version, its licence and its licence text (LICENSE, LICENCE, COPYING
// or NOTICE files, whichever it ships), written to dist/THIRD_PARTY_NOTICES.txt, which the
// .vsix carries (.vscodeignore). The build strips legal comments from the bundles, so this
// file is where the licences of bundled code are kept.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The npm packages (name → directory) whose files an esbuild metafile lists as inputs. */
export function bundledPackages(metafiles) {
  const packages = new Map();
  for (const meta of metafiles) {
    for (const input of Object.keys(meta.inputs)) {
      const parts = input.split("/");
      const at = parts.lastIndexOf("node_modules");
      if (at < 0) continue;
      const scoped = parts[at + 1]?.startsWith("@");
      const name = scoped ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
      const dir = parts.slice(0, at + (scoped ? 3 : 2)).join("/");
      if (name) packages.set(name, dir);
    }
  }
  return packages;
}

/** The notices file's text for `packages`, sorted by name. */
export function noticesText(packages) {
  const out = [
    "Third-party software bundled into this extension (dist/extension.js, dist/webview.js),",
    "each with its licence as the package ships it.",
    "",
  ];
  for (const [name, dir] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    out.push("=".repeat(78), `${name} ${manifest.version ?? ""} — ${manifest.license ?? "licence not stated"}`, "=".repeat(78));
    const texts = readdirSync(dir)
      .filter((f) => /^(licen[cs]e|copying|notice)(\..*)?$/i.test(f))
      .sort()
      .map((f) => readFileSync(path.join(dir, f), "utf8").trim());
    out.push(texts.length > 0 ? texts.join("\n\n") : `(the package ships no licence file; its package.json says ${manifest.license ?? "nothing"})`, "");
  }
  return out.join("\n");
}

/** Writes the notices of the bundles whose metafiles are given. */
export function writeNotices(metafiles, file = "dist/THIRD_PARTY_NOTICES.txt") {
  const packages = bundledPackages(metafiles);
  for (const dir of packages.values()) if (!existsSync(path.join(dir, "package.json"))) throw new Error(`no package.json in ${dir}`);
  writeFileSync(file, noticesText(packages));
  return packages;
}
