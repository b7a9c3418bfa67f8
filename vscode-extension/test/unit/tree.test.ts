import assert from "node:assert/strict";
import { test } from "node:test";
import { buildTree, walk, type TreeNode } from "../../src/model";
import { items } from "./fixtures";

/** The tree as indented lines: `kind id`. */
function render(nodes: TreeNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [`${"  ".repeat(depth)}${n.kind} ${n.id}`, ...render(n.children, depth + 1)]);
}

test("discovery becomes package → target → bench → case, in the daemon's order", () => {
  assert.deepEqual(render(buildTree(items)), [
    "package pkg:quickstart",
    "  target target:quickstart/quickstart",
    "    bench quickstart::chain_1000",
    "    bench quickstart::chain_n",
    "      case quickstart::chain_n/10",
    "      case quickstart::chain_n/100",
    "    bench quickstart::sort_stable",
  ]);
});

test("ranges and uris are kept so gutter buttons appear on the functions", () => {
  const chain = [...walk(buildTree(items))].find((n) => n.id === "quickstart::chain_1000")!;
  assert.equal(chain.uri, "file:///ws/benches/quickstart.rs");
  assert.deepEqual(chain.range, { start: { line: 6, character: 0 }, end: { line: 9, character: 1 } });
});

test("children listed before their parent still land under it", () => {
  const reversed = [...items].reverse();
  const tree = buildTree(reversed);
  assert.equal(tree.length, 1);
  assert.equal(tree[0]!.kind, "package");
  assert.equal([...walk(tree)].length, items.length);
});

test("an item whose parent is missing is shown at the top, not dropped", () => {
  const tree = buildTree([{ id: "q::orphan", label: "orphan", kind: "bench", parent: "target:gone" }, ...items]);
  assert.deepEqual(
    tree.map((n) => n.id),
    ["pkg:quickstart", "q::orphan"],
  );
});

test("a repeated id keeps its first occurrence and a parent cycle does not hang", () => {
  const tree = buildTree([
    { id: "a", label: "a", kind: "bench", parent: "b" },
    { id: "b", label: "b", kind: "bench", parent: "a" },
    { id: "a", label: "again", kind: "bench" },
  ]);
  const all = [...walk(tree)];
  assert.equal(all.length, 2);
  assert.equal(all.find((n) => n.id === "a")!.label, "a");
});

test("the same discovery twice gives the same ids (expansion state survives edits)", () => {
  const ids = (t: TreeNode[]) => [...walk(t)].map((n) => n.id);
  const edited = items.map((i) => (i.range ? { ...i, range: { start: { line: i.range.start.line + 2, character: 0 }, end: i.range.end } } : i));
  assert.deepEqual(ids(buildTree(items)), ids(buildTree(edited)));
});

test("tree changes apply in order; old ones are ignored and a gap asks for the whole tree", async () => {
  const { applyTreeChange } = await import("../../src/model");
  const held = { version: 3, items: new Map(items.map((i) => [i.id, i])) };
  const moved = { ...items.find((i) => i.id === "quickstart::chain_1000")!, range: { start: { line: 7, character: 0 }, end: { line: 10, character: 1 } } };
  const added = { id: "quickstart::new_one", label: "new_one", kind: "bench" as const, parent: "target:quickstart/quickstart" };
  // A change from version 3 to 4: one item gone (with its cases listed), one moved, one new.
  assert.equal(
    applyTreeChange(held, { base: 3, version: 4, removed: ["quickstart::chain_n", "quickstart::chain_n/10", "quickstart::chain_n/100"], items: [moved, added] }),
    "applied",
  );
  assert.equal(held.version, 4);
  assert.deepEqual(
    [...held.items.keys()].sort(),
    ["pkg:quickstart", "quickstart::chain_1000", "quickstart::new_one", "quickstart::sort_stable", "target:quickstart/quickstart"],
  );
  assert.deepEqual(held.items.get("quickstart::chain_1000")!.range, moved.range);
  // A change the client already has (a discover answer overtook it) changes nothing.
  assert.equal(applyTreeChange(held, { base: 3, version: 4, removed: ["pkg:quickstart"], items: [] }), "ignored");
  assert.ok(held.items.has("pkg:quickstart"));
  // A missed change: the client must ask for the whole tree.
  assert.equal(applyTreeChange(held, { base: 5, version: 6, removed: [], items: [] }), "stale");
  assert.equal(held.version, 4);
});
