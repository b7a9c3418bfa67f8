import assert from "node:assert/strict";
import { test } from "node:test";
import { runOnSavePlan, serverSettings } from "../../src/model";

test("run-on-save: the setting, overridden by a continuous run's profile, never when untrusted", () => {
  const rows: Array<[Parameters<typeof runOnSavePlan>, string]> = [
    [["off", undefined, false, false, true], "daemon=false client=- profile=false count=false"],
    [["quick", undefined, false, false, true], "daemon=true client=- profile=false count=false"],
    [["full", undefined, false, false, true], "daemon=false client=full profile=false count=false"],
    [["off", "quick", false, false, true], "daemon=true client=- profile=false count=false"],
    [["quick", "full", false, false, true], "daemon=false client=full profile=false count=false"],
    [["full", "quick", false, false, false], "daemon=false client=- profile=false count=false"],
    [["quick", undefined, false, false, false], "daemon=false client=- profile=false count=false"],
    // A continuous "Profile" run: the client also profiles on save; what measures stays.
    [["off", undefined, true, false, true], "daemon=false client=- profile=true count=false"],
    [["quick", undefined, true, false, true], "daemon=true client=- profile=true count=false"],
    [["off", "full", true, false, true], "daemon=false client=full profile=true count=false"],
    [["off", undefined, true, false, false], "daemon=false client=- profile=false count=false"],
    // A continuous "Count instructions" run: the client also counts on save; never untrusted.
    [["quick", undefined, false, true, true], "daemon=true client=- profile=false count=true"],
    [["off", "full", true, true, true], "daemon=false client=full profile=true count=true"],
    [["off", undefined, false, true, false], "daemon=false client=- profile=false count=false"],
  ];
  for (const [args, expected] of rows) {
    const p = runOnSavePlan(...args);
    assert.equal(`daemon=${p.daemon} client=${p.client ?? "-"} profile=${p.profile} count=${p.count}`, expected, JSON.stringify(args));
  }
});

test("the daemon's settings carry runOnSave and which notes become problems", () => {
  assert.deepEqual(serverSettings({ daemon: true, client: undefined, profile: false, count: false }), { runOnSave: true, problems: "warnings" });
  assert.deepEqual(serverSettings({ daemon: false, client: "full", profile: false, count: false }, "all"), { runOnSave: false, problems: "all" });
});
