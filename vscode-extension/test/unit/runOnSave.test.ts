import assert from "node:assert/strict";
import { test } from "node:test";
import { runOnSavePlan, serverSettings } from "../../src/model";

test("run-on-save: the setting, overridden by a continuous run's profile, never when untrusted", () => {
  const measure = (mode: "quick" | "full") => ({ mode, profile: false });
  const rows: Array<[Parameters<typeof runOnSavePlan>, string]> = [
    [["off", undefined, true], "daemon=false client=- profile=false"],
    [["quick", undefined, true], "daemon=true client=- profile=false"],
    [["full", undefined, true], "daemon=false client=full profile=false"],
    [["off", measure("quick"), true], "daemon=true client=- profile=false"],
    [["quick", measure("full"), true], "daemon=false client=full profile=false"],
    [["full", measure("quick"), false], "daemon=false client=- profile=false"],
    [["quick", undefined, false], "daemon=false client=- profile=false"],
    // A continuous "Profile" run: the client profiles on save, quickly; the daemon measures nothing.
    [["quick", { mode: "full", profile: true }, true], "daemon=false client=quick profile=true"],
    [["off", { mode: "full", profile: true }, false], "daemon=false client=- profile=false"],
  ];
  for (const [args, expected] of rows) {
    const p = runOnSavePlan(...args);
    assert.equal(`daemon=${p.daemon} client=${p.client ?? "-"} profile=${p.profile}`, expected, JSON.stringify(args));
  }
});

test("the daemon's settings carry runOnSave and which notes become problems", () => {
  assert.deepEqual(serverSettings({ daemon: true, client: undefined, profile: false }), { runOnSave: true, problems: "warnings" });
  assert.deepEqual(serverSettings({ daemon: false, client: "full", profile: false }, "all"), { runOnSave: false, problems: "all" });
});
