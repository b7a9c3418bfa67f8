// Where the daemon binary is: the `knotmeter.server.path` setting, then `knotmeter` on PATH,
// then the workspace's cargo target directory (`target/{debug,release}/knotmeter`, or
// `$CARGO_TARGET_DIR`). Pure over an injected file check, so the order is unit-tested.

import * as path from "node:path";
import { daemonNotFound, settingNotExecutable } from "./format";

export interface LocateInput {
  /** The `knotmeter.server.path` setting (empty when unset). */
  setting: string;
  /** The PATH environment variable. */
  envPath: string;
  /** CARGO_TARGET_DIR, where set. */
  cargoTargetDir?: string;
  /** The workspace folders' file-system paths. */
  folders: readonly string[];
  /** Whether the workspace is trusted: an untrusted one's own binaries are never started. */
  trusted: boolean;
  /** The platform (`win32` adds `.exe`). */
  platform: string;
  /** Whether a file exists and is executable. */
  isExecutable: (file: string) => boolean;
}

export type Located =
  | { found: true; command: string; source: "setting" | "path" | "workspace" }
  | { found: false; tried: string[]; reason: string };

/** Finds the daemon, or says what was tried. */
export function locateServer(input: LocateInput): Located {
  const exe = input.platform === "win32" ? "knotmeter.exe" : "knotmeter";
  const tried: string[] = [];
  const setting = input.setting.trim();
  if (setting !== "") {
    const resolved = expandHome(setting);
    const candidates = path.isAbsolute(resolved) ? [resolved] : input.folders.map((f) => path.join(f, resolved));
    for (const c of candidates) {
      tried.push(c);
      if (input.isExecutable(c)) return { found: true, command: c, source: "setting" };
    }
    return { found: false, tried, reason: settingNotExecutable(setting) };
  }
  const sep = input.platform === "win32" ? ";" : ":";
  for (const dir of input.envPath.split(sep)) {
    if (dir === "") continue;
    const c = path.join(dir, exe);
    if (input.isExecutable(c)) return { found: true, command: c, source: "path" };
  }
  tried.push(`${exe} on PATH`);
  if (input.trusted) {
    const targetDirs = input.cargoTargetDir ? [input.cargoTargetDir] : [];
    for (const f of input.folders) targetDirs.push(path.join(f, "target"));
    for (const t of targetDirs) {
      for (const profile of ["release", "debug"]) {
        const c = path.resolve(t, profile, exe);
        tried.push(c);
        if (input.isExecutable(c)) return { found: true, command: c, source: "workspace" };
      }
    }
  }
  return { found: false, tried, reason: daemonNotFound(input.trusted) };
}

function expandHome(p: string): string {
  const home = process.env["HOME"] ?? process.env["USERPROFILE"];
  if (home && (p === "~" || p.startsWith("~/"))) return path.join(home, p.slice(1));
  return p;
}

/** The command the "Copy install command" button copies. */
export const installCommand = "cargo install --path server";
