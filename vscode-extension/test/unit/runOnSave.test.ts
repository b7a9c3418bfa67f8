import assert from "node:assert/strict";
import { test } from "node:test";
import { runOnSavePlan, serverSettings } from "../../src/model";

test("run-on-save: the setting, overridden by a continuous run's profile, never when untrusted", () => {
  const rows: Array<[Parameters<typeof runOnSavePlan>, string]> = [
    [["off", undefined, true], "daemon=false client=-"],
    [["quick", undefined, true], "daemon=true client=-"],
    [["full", undefined, true], "daemon=false client=full"],
    [["off", "quick", true], "daemon=true client=-"],
    [["quick", "full", true], "daemon=false client=full"],
    [["full", "quick", false], "daemon=false client=-"],
    [["quick", undefined, false], "daemon=false client=-"],
  ];
  for (const [args, expected] of rows) {
    const p = runOnSavePlan(...args);
    assert.equal(`daemon=${p.daemon} client=${p.client ?? "-"}`, expected, JSON.stringify(args));
  }
});

test("the daemon's settings carry runOnSave and which notes become problems", () => {
  assert.deepEqual(serverSettings({ daemon: true, client: undefined }), { runOnSave: true, problems: "warnings" });
  assert.deepEqual(serverSettings({ daemon: false, client: "full" }, "all"), { runOnSave: false, problems: "all" });
});
