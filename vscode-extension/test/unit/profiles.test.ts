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

test("profiles of two builds become the head's tree coloured by change, each frame matched by its path", async () => {
  const { flameDiffView, diffColor } = await import("../../src/panel/data");
  const { flameDiffLabel, runLabel } = await import("../../src/format");
  const store = new ProfileStore();
  const changed: string[][] = [];
  store.onChange((files) => changed.push(files));
  const base = profiled("q::a", []).profile;
  const head = profiled("q::a", []).profile;
  base.tree = { name: "loop", valuePerOp: 1000, ownPerOp: 0, children: [{ name: "spin", valuePerOp: 1000, ownPerOp: 1000 }, { name: "gone", valuePerOp: 50, ownPerOp: 50 }] };
  head.tree = {
    name: "loop",
    valuePerOp: 3000,
    ownPerOp: 0,
    children: [
      { name: "spin", valuePerOp: 2990, ownPerOp: 2990, line: { file: "/w/b.rs", line: 7, ownPerOp: 2990, callsPerOp: 0, share: 1 } },
      { name: "new", valuePerOp: 10, ownPerOp: 10 },
    ],
  };
  const params = { runId: 4, heading: "q::a: 1 000 → 3 000", comparison: { id: "q::a", baseLabel: "main (9f8e7d6c5b)", headLabel: "working tree", base, head, changes: [] } };
  assert.equal(flameDiffView(undefined), undefined);
  store.keepComparison(params);
  assert.deepEqual(changed, [[]], "a comparison moves no hot line");
  const view = flameDiffView(store.comparison("q::a"))!;
  assert.equal(view.heading, "q::a: 1 000 → 3 000");
  assert.equal(view.root.delta, 2000);
  const [spin, added] = view.root.children;
  assert.deepEqual([spin!.name, spin!.base, spin!.delta, spin!.file, spin!.line], ["spin", 1000, 1990, "/w/b.rs", 7]);
  assert.deepEqual([added!.name, added!.base, added!.delta], ["new", 0, 10], "a frame the base lacks is all change");
  assert.equal(view.root.children.length, 2, "a frame only the base has is not drawn");
  assert.equal(diffColor(100, 0), "rgb(220, 220, 220)");
  assert.equal(diffColor(10, 10), "rgb(230, 0, 0)", "all new: full red");
  assert.equal(diffColor(100, -50), "rgb(110, 110, 230)");
  assert.equal(flameDiffLabel("spin", 1000, 2990, "instructions"), "spin: 1 000 instructions/op → 2 990 instructions/op with what it calls (+1 990 instructions/op)");
  assert.equal(runLabel("full", false, "", true), "Compare profiles with base");
  assert.equal(runLabel("full", false, "main", true), "Compare profiles with main");
  assert.equal(runLabel("full", false, undefined, true), "Profile");
  store.keep(profiled("q::a", []));
  assert.equal(store.comparison("q::a"), undefined, "a newer profile of the case replaces its comparison in the panel");
});

test("a case profiled but not measured in this session shows its flame graph and says it has no time, never a figure", async () => {
  const { flameView, profiledOnlyCase } = await import("../../src/panel/data");
  const { PROFILED_NOT_MEASURED } = await import("../../src/format");
  const p = profiled("q::a", []);
  assert.equal(profiledOnlyCase("q::a", "a", flameView(p), undefined), undefined, "nothing to show without a tree");
  p.profile.tree = { name: "loop", valuePerOp: 100, ownPerOp: 100 };
  const c = profiledOnlyCase("q::a", "a", flameView(p), undefined)!;
  assert.equal(c.line, PROFILED_NOT_MEASURED);
  assert.equal(c.outcome, "partial", "drawn as a warning is, never as passed");
  assert.ok(c.profiledOnly && !c.measured && c.samples.length === 0 && Number.isNaN(c.median));
  assert.equal(c.flame?.root.name, "loop");
});
