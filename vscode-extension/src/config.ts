// The extension's settings, read in one place. Every setting is declared in package.json's
// `contributes.configuration`; this module only reads them and says when they change.

import * as vscode from "vscode";
import type { Problems, ProfileTool, RunOnSave } from "./wire";

export const section = "knotmeter";

export interface Config {
  /** `knotmeter.server.path`: the daemon binary; empty to look on PATH and in the target dir. */
  serverPath: string;
  /** `knotmeter.runOnSave`: re-run a saved file's benchmarks (outside a continuous run). */
  runOnSave: RunOnSave;
  /** `knotmeter.annotations.enabled`: the last result at the end of each bench signature. */
  annotations: boolean;
  /** `knotmeter.problems`: which notes of the results the Problems view holds. */
  problems: Problems;
  /** `knotmeter.compare.base`: the git revision "Compare with base" compares with; empty for the default. */
  compareBase: string;
  /** `knotmeter.profiler`: what a profile run profiles with. */
  profiler: ProfileTool;
}

export function readConfig(): Config {
  const c = vscode.workspace.getConfiguration(section);
  const runOnSave = c.get<string>("runOnSave", "off");
  return {
    serverPath: c.get<string>("server.path", ""),
    runOnSave: runOnSave === "quick" || runOnSave === "full" ? runOnSave : "off",
    annotations: c.get<boolean>("annotations.enabled", true),
    problems: problemsSetting(c.get<string>("problems", "warnings")),
    compareBase: c.get<string>("compare.base", ""),
    profiler: c.get<string>("profiler", "callgrind") === "perf" ? "perf" : "callgrind",
  };
}

/** The `knotmeter.problems` setting, `warnings` when it is not one of the known values. */
export function problemsSetting(value: string): Problems {
  return value === "all" || value === "off" ? value : "warnings";
}

/** Fires with the keys (without the section) whose values changed. */
export function onConfigChange(listener: (changed: (key: string) => boolean) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(section)) listener((key) => e.affectsConfiguration(`${section}.${key}`));
  });
}
