import assert from "node:assert/strict";
import { test } from "node:test";
import { annotationText, functionName, signatureLine } from "../../src/model";
import { ResultStore } from "../../src/store";
import { items, result } from "./fixtures";

test("one case: the summary as the annotation", () => {
  assert.equal(annotationText([result()]), "12.3 ns ±0.4% · 3.1% faster");
  assert.equal(annotationText([]), undefined);
});

test("args cases: each case's median, then the verdicts", () => {
  const a = result({ id: "q::chain_n/10", args: "10", estimate: { median_ns: 5.1, low_ns: 5, high_ns: 5.2, mean_ns: 5.1 } });
  const b = result({ id: "q::chain_n/100", args: "100", estimate: { median_ns: 48.2, low_ns: 48, high_ns: 48.4, mean_ns: 48.2 }, comparison: null, warnings: [{ code: "imprecise", message: "", severity: "warning" }] });
  assert.equal(annotationText([a, b]), "10: 5.10 ns · 100: 48.2 ns · 1 faster · ⚠ 1 warned");
});

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

test("the store gives a benchmark's own result or its cases', in the daemon's order", () => {
  const s = new ResultStore();
  const seen: string[] = [];
  s.onChange((id) => seen.push(id));
  s.set("quickstart::chain_n/100", result({ id: "quickstart::chain_n/100", args: "100" }));
  s.set("quickstart::chain_n/10", result({ id: "quickstart::chain_n/10", args: "10" }));
  s.set("quickstart::chain_1000", result());
  assert.deepEqual(s.resultsOf("quickstart::chain_n", items).map((r) => r.args), ["10", "100"]);
  assert.deepEqual(s.resultsOf("quickstart::chain_1000", items).map((r) => r.id), ["quickstart::chain_1000"]);
  assert.deepEqual(s.resultsOf("quickstart::sort_stable", items), []);
  assert.deepEqual(seen, ["quickstart::chain_n/100", "quickstart::chain_n/10", "quickstart::chain_1000"]);
});
