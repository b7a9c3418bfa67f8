import assert from "node:assert/strict";
import { test } from "node:test";
import { runOnSavePlan, serverSettings } from "../../src/model";

test("run-on-save: the setting, overridden by a continuous run's profile, never when untrusted", () => {
  const rows: Array<[Parameters<typeof runOnSavePlan>, string]> = [
    [["off", undefined, false, true], "daemon=false client=- profile=false"],
    [["quick", undefined, false, true], "daemon=true client=- profile=false"],
    [["full", undefined, false, true], "daemon=false client=full profile=false"],
    [["off", "quick", false, true], "daemon=true client=- profile=false"],
    [["quick", "full", false, true], "daemon=false client=full profile=false"],
    [["full", "quick", false, false], "daemon=false client=- profile=false"],
    [["quick", undefined, false, false], "daemon=false client=- profile=false"],
    // A continuous "Profile" run: the client also profiles on save; what measures stays.
    [["off", undefined, true, true], "daemon=false client=- profile=true"],
    [["quick", undefined, true, true], "daemon=true client=- profile=true"],
    [["off", "full", true, true], "daemon=false client=full profile=true"],
    [["off", undefined, true, false], "daemon=false client=- profile=false"],
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
