import assert from "node:assert/strict";
import { test } from "node:test";
import { locateServer, type LocateInput } from "../../src/locate";

function input(files: string[], over: Partial<LocateInput> = {}): LocateInput {
  const set = new Set(files);
  return { setting: "", envPath: "/usr/bin:/opt/k/bin", folders: ["/ws"], trusted: true, platform: "linux", isExecutable: (f) => set.has(f), ...over };
}

test("the setting wins, then PATH, then the workspace's target dir", () => {
  const all = ["/custom/knotmeter", "/opt/k/bin/knotmeter", "/ws/target/debug/knotmeter"];
  assert.deepEqual(locateServer(input(all, { setting: "/custom/knotmeter" })), { found: true, command: "/custom/knotmeter", source: "setting" });
  assert.deepEqual(locateServer(input(all)), { found: true, command: "/opt/k/bin/knotmeter", source: "path" });
  assert.deepEqual(locateServer(input(["/ws/target/debug/knotmeter"])), { found: true, command: "/ws/target/debug/knotmeter", source: "workspace" });
});

test("release is preferred to debug, and CARGO_TARGET_DIR to ./target", () => {
  assert.equal((locateServer(input(["/ws/target/debug/knotmeter", "/ws/target/release/knotmeter"])) as { command: string }).command, "/ws/target/release/knotmeter");
  assert.equal((locateServer(input(["/ws/target/debug/knotmeter", "/t/debug/knotmeter"], { cargoTargetDir: "/t" })) as { command: string }).command, "/t/debug/knotmeter");
});

test("a relative setting is resolved against the workspace folders", () => {
  assert.deepEqual(locateServer(input(["/ws/bin/knotmeter"], { setting: "bin/knotmeter" })), { found: true, command: "/ws/bin/knotmeter", source: "setting" });
});

test("a setting that names no executable is reported, not skipped", () => {
  const r = locateServer(input(["/opt/k/bin/knotmeter"], { setting: "/nope/knotmeter" }));
  assert.equal(r.found, false);
  assert.match((r as { reason: string }).reason, /knotmeter\.server\.path/);
});

test("an untrusted workspace never starts its own build of the daemon", () => {
  const r = locateServer(input(["/ws/target/debug/knotmeter"], { trusted: false }));
  assert.equal(r.found, false);
  assert.match((r as { reason: string }).reason, /untrusted/);
});

test("nothing found: says what was tried", () => {
  const r = locateServer(input([]));
  assert.equal(r.found, false);
  assert.deepEqual((r as { tried: string[] }).tried, ["knotmeter on PATH", "/ws/target/release/knotmeter", "/ws/target/debug/knotmeter"]);
});
