import assert from "node:assert/strict";
import { test } from "node:test";
import { heat, ProfileStore } from "../../src/profiles";
import type { ProfiledParams } from "../../src/wire";

function profiled(id: string, marks: Array<[string, number, number]>): ProfiledParams {
  return {
    profile: { id, tool: "callgrind", unit: "instructions", operations: 1000, totalPerOp: 100, functions: [], lines: [] },
    marks: marks.map(([file, line, share]) => ({ file, line, share, text: `${Math.round(share * 100)}%`, detail: `of ${id}` })),
  };
}

test("a file shows the hot lines of the newest profile that reaches it, as the daemon decides for other clients", () => {
  const store = new ProfileStore();
  const changed: string[][] = [];
  store.onChange((files) => changed.push(files.sort()));
  store.keep(profiled("q::a", [["/w/h.rs", 3, 0.5], ["/w/a.rs", 1, 0.4]]));
  store.keep(profiled("q::b", [["/w/h.rs", 3, 0.2]]));
  assert.deepEqual(store.marksIn("/w/h.rs").map((m) => m.detail), ["of q::b"]);
  assert.deepEqual(store.marksIn("/w/a.rs").map((m) => m.detail), ["of q::a"]);
  assert.deepEqual(store.marksIn("/w/none.rs"), []);
  // q::b profiled again elsewhere: h.rs changes too, and shows q::a's mark again.
  store.keep(profiled("q::b", [["/w/o.rs", 0, 0.9]]));
  assert.deepEqual(changed.at(-1), ["/w/h.rs", "/w/o.rs"]);
  assert.deepEqual(store.marksIn("/w/h.rs").map((m) => m.detail), ["of q::a"]);
  assert.equal(store.get("q::b")?.marks[0]?.file, "/w/o.rs");
});

test("the gutter's heat follows the line's share of the region", () => {
  assert.deepEqual([0.5, 0.2, 0.19, 0.05, 0.049, 0.01, 0.009].map(heat), [3, 3, 2, 2, 1, 1, 0]);
});

test("a profile's call tree becomes the flame graph's frames, linked to their lines; none without a tree", async () => {
  const { flameView } = await import("../../src/panel/data");
  const { flameLabel, costText } = await import("../../src/format");
  const p = profiled("q::a", []);
  assert.equal(flameView(p), undefined, "a profile made before call trees");
  p.profile.tree = {
    name: "loop",
    valuePerOp: 4100,
    ownPerOp: 10,
    children: [{ name: "body", valuePerOp: 4090, ownPerOp: 4090, estimated: true, line: { file: "/w/b.rs", line: 9, ownPerOp: 1, callsPerOp: 2, share: 0.9 } }],
  };
  const view = flameView(p)!;
  assert.equal(view.unit, "instructions");
  assert.deepEqual(view.root, {
    name: "loop",
    value: 4100,
    own: 10,
    estimated: false,
    children: [{ name: "body", value: 4090, own: 4090, estimated: true, file: "/w/b.rs", line: 9, children: [] }],
  });
  // The words of `knotmeter profile` (knotmeter-format's cost_text).
  assert.deepEqual([costText(4100, "instructions"), costText(3.24, "instructions"), costText(0.01, "instructions")], ["4 100 instructions/op", "3.2 instructions/op", "<0.1 instructions/op"]);
  assert.equal(
    flameLabel("body", 4090, 4090, "instructions", true),
    "body: 4 090 instructions/op with what it calls, 4 090 instructions/op itself (an estimate: a caller above it is called from several places)",
  );
});
