// Workspace Trust. Building and running benchmarks executes the workspace's code (build
// scripts, proc macros, the benches), so an untrusted workspace is discovered (the daemon only
// parses sources) but never built or run, and run-on-save stays off. The manifest declares
// `capabilities.untrustedWorkspaces: limited`, with `knotmeter.server.path` restricted so a
// workspace cannot name the binary to start.

import * as vscode from "vscode";
import { MANAGE_TRUST, UNTRUSTED } from "./format";

/** Says why nothing runs, with a way to trust the workspace. */
export async function requestTrust(reason: string = UNTRUSTED): Promise<void> {
  const choice = await vscode.window.showWarningMessage(reason, MANAGE_TRUST);
  if (choice === MANAGE_TRUST) await vscode.commands.executeCommand("workbench.trust.manage");
}

/** Calls `onTrusted` once the user trusts the workspace. */
export function onTrustGranted(onTrusted: () => void): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(onTrusted);
}
