import assert from "node:assert/strict";
import { test } from "node:test";
import { functionName, Measuring, signatureLine } from "../../src/model";
import { ResultStore } from "../../src/store";
import { items, result, shown } from "./fixtures";

test("the signature line skips attributes and doc comments", () => {
  const src = ["", "/// docs", "#[bench(args = [1, 2])]", "fn chain_n(n: u64) -> u64 {", "    chain(n)", "}"];
  const range = { start: { line: 1, character: 0 }, end: { line: 5, character: 1 } };
  assert.equal(signatureLine((i) => src[i], range, "chain_n"), 3);
  assert.equal(signatureLine((i) => src[i], range, "other"), 1);
  assert.equal(signatureLine((i) => ["async fn lookup() {"][i], { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }, "lookup"), 0);
});

test("function names from ids", () => {
  assert.equal(functionName("quickstart::chain_n/1000"), "chain_n");
  assert.equal(functionName("quickstart::parsing::parse_csv"), "parse_csv");
});

test("the store gives a benchmark's own result or its cases', in the daemon's order, with their presentation", () => {
  const s = new ResultStore();
  const seen: string[] = [];
  s.onChange((id) => seen.push(id));
  s.set("quickstart::chain_n/100", result({ id: "quickstart::chain_n/100", args: "100" }), shown({ figure: "100 ns" }));
  s.set("quickstart::chain_n/10", result({ id: "quickstart::chain_n/10", args: "10" }), shown({ figure: "10 ns" }));
  s.set("quickstart::chain_1000", result(), shown());
  assert.deepEqual(s.resultsOf("quickstart::chain_n", items).map((r) => r.args), ["10", "100"]);
  assert.deepEqual(s.presentedOf("quickstart::chain_n", items).map((p) => p.shown.figure), ["10 ns", "100 ns"]);
  assert.deepEqual(s.resultsOf("quickstart::chain_1000", items).map((r) => r.id), ["quickstart::chain_1000"]);
  assert.deepEqual(s.resultsOf("quickstart::sort_stable", items), []);
  assert.deepEqual(seen, ["quickstart::chain_n/100", "quickstart::chain_n/10", "quickstart::chain_1000"]);
});

test("an item measuring when its daemon stops is measuring no longer", () => {
  const m = new Measuring();
  m.state({ id: "quickstart::chain_n/10", state: "started" });
  m.state({ id: "quickstart::chain_1000", state: "started" });
  m.state({ id: "quickstart::chain_1000", state: "passed" });
  assert.equal(m.any(["quickstart::chain_n", "quickstart::chain_n/10"]), true);
  assert.equal(m.any(["quickstart::chain_1000"]), false);
  // The daemon was killed mid-run: no run end comes, the annotations must stop saying "measuring…".
  m.clear();
  assert.equal(m.any(["quickstart::chain_n", "quickstart::chain_n/10"]), false);
});
