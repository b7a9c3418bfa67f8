// What the status bar says, decided apart from `vscode` (statusBar.ts shows it): the run in
// progress with its progress, or how the last run's items ended. It reads the one registry of
// runs (`Runs` in model.ts), which records a run's states and its end as they come, even before
// the `knotmeter/run` answer that names it: no count is lost and the bar never spins for a run
// that is over.

import { ON_SAVE, runActivity, tallyText, type StatusView, type Tally } from "./format";
import type { RunEntry } from "./runs";

/** What the status bar reads of the registry of runs (`Runs`). */
export interface RunsSeen {
  live(): readonly RunEntry<unknown>[];
  readonly last: Tally | undefined;
  onChange(listener: () => void): () => void;
}

/** The newest run in progress (named "on save" until it is known), or the last run's tally. */
export function statusView(runs: RunsSeen): StatusView {
  const live = runs.live();
  const run = live[live.length - 1];
  if (!run) return { kind: "idle", last: runs.last && tallyText(runs.last) };
  const { done, total } = run.tracker.progress();
  const what = runActivity(run.building, run.current && shortId(run.current));
  return { kind: "running", label: run.label ?? ON_SAVE, done, total, what };
}

/** `quickstart::chain_n/1000` → `chain_n/1000`. */
function shortId(id: string): string {
  const i = id.lastIndexOf("::");
  return i < 0 ? id : id.slice(i + 2);
}
