// Writes fixture-data.json: a PanelData message for the results panel's page test, made with
// a seeded generator (so it never changes) in the shape the extension host posts.
import { writeFileSync } from "node:fs";

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const normal = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
const r2 = (x) => Math.round(x * 100) / 100;
const samples = (median, spread, n) =>
  Array.from({ length: n }, () => r2(median * Math.exp(spread * normal()) + (rand() < 0.02 ? median * 0.4 * rand() : 0)));
const history = (median, n, budgetMs = 1000, key = "m|budget=1000ms", first = 1) =>
  Array.from({ length: n }, (_, i) => {
    const m = median * (1 + 0.08 * Math.sin(i / 2) - (i > n - 4 ? 0.05 : 0));
    return { run: first + i * 2, timestamp: 1_764_000_000 + i * 3600, gitCommit: null, machineKey: key, baseline: null, medianNs: m, lowNs: m * 0.985, highNs: m * 1.015, verdict: null, budgetMs };
  });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kase = (id, label, s, h, line, notes = [], outcome = "passed") => ({
  id, label, line, outcome, median: median(s), low: median(s) * 0.996, high: median(s) * 1.004, measured: true, samples: s, notes, history: h,
});

const a = samples(5210, 0.03, 1500);
const b = samples(3120, 0.05, 1500);
const data = {
  benchId: "quickstart::sort_unstable",
  title: "sort_unstable",
  cases: [
    kase("quickstart::sort_unstable", "sort_unstable", b, [
      { label: "full", points: history(3200, 12) },
      { label: "quick", points: history(3300, 6, 100, "m|budget=100ms", 2) },
    ], "3.12 µs ±1.5% · 40.1% faster than sort_stable"),
  ],
  group: {
    name: "sort",
    rows: [
      { id: "quickstart::sort_stable", name: "sort_stable", baseline: true, figure: "5.21 µs", ratio: 1, text: "baseline" },
      { id: "quickstart::sort_unstable", name: "sort_unstable", baseline: false, figure: "3.12 µs", ratio: 0.599, low: 0.591, high: 0.607, verdict: "faster", text: "40.1% faster than sort_stable" },
    ],
  },
};
const ns = [10, 100, 1000];
const args = {
  benchId: "quickstart::chain_n",
  title: "chain_n",
  cases: ns.map((n, i) => kase(`quickstart::chain_n/${n}`, String(n), samples(n * 1.9, 0.02 + i * 0.01, 800), [{ label: "full", points: history(n * 1.9, 8) }], `${(n * 1.9).toFixed(0)} ns ±2.1%`)),
  scaling: {
    complexity: "O(n)",
    class: "O(n)",
    points: ns.map((n) => ({ n, label: String(n), median: n * 1.9, low: n * 1.88, high: n * 1.93 })),
    curve: Array.from({ length: 41 }, (_, i) => {
      const n = Math.exp(Math.log(10) + ((Math.log(1000) - Math.log(10)) * i) / 40);
      return { n, ns: 0.5 + 1.9 * n };
    }),
    notes: [],
    warned: false,
  },
};
args.cases[1].notes = [{ severity: "warning", text: "⚠ imprecise: the interval is wider than ±5%: run longer or on a quieter machine" }];
args.cases[1].outcome = "warned";
// The latest "Compare with base" run took these cases (words as knotmeter-format gives them).
args.comparison = {
  heading: "working tree (HEAD 1a2b3c4d5e, uncommitted changes) against main (9f8e7d6c5b)",
  base: "main",
  summary: "2 compared (1 slower, 0 faster, 1 same), 1 not compared",
  cancelled: false,
  rows: [
    { id: "quickstart::chain_n/10", status: "compared", base: "18.5 ns", head: "19.0 ns", change: "+3.1% [2.6, 3.7]", verdict: "slower", outcome: "slower than main", why: "" },
    { id: "quickstart::chain_n/100", status: "compared", base: "190 ns", head: "190 ns", change: "+0.1% [-0.3, 0.4]", verdict: "same", outcome: "same as main", why: "" },
    { id: "quickstart::chain_n/1000", status: "not_compared", base: "≈ 0 (indistinguishable from empty)", head: "1.90 µs", change: "", outcome: "not compared", why: "the base build's body is indistinguishable from an empty one (base: main)" },
  ],
};
// The last profile's call tree of the group's case: the engine's loop, the body, the sort, and a
// helper below a shared caller (an estimated frame).
data.cases[0].flame = {
  unit: "instructions",
  root: {
    name: "knotmeter::measure::routine::time_batch", value: 24610, own: 40, estimated: false, children: [
      {
        name: "core::slice::sort::unstable::quicksort", value: 24570, own: 18200, estimated: false, file: "/ws/benches/quickstart.rs", line: 33, children: [
          { name: "core::slice::sort::shared::smallsort::insertion_sort_shift_left", value: 5200, own: 5200, estimated: true, children: [] },
          { name: "core::slice::sort::unstable::heapsort::heapsort", value: 1170, own: 1170, estimated: false, children: [] },
        ],
      },
    ],
  },
};
// The same case profiled on two builds ("Compare profiles with base"): the head's tree, each
// frame with the base's cost at its path; the heapsort is new, the insertion sort unchanged.
data.cases[0].flameDiff = {
  unit: "instructions",
  heading: "quickstart::sort_unstable: 20 000 instructions → 24 610 instructions per operation (+23%), main (9f8e7d6c5b) → working tree; instructions counted by callgrind in the timed region only (no cache misses or stalls: a count, not a time)",
  root: {
    name: "knotmeter::measure::routine::time_batch", value: 24610, own: 40, estimated: false, base: 20000, delta: 4610, children: [
      {
        name: "core::slice::sort::unstable::quicksort", value: 24570, own: 18200, estimated: false, base: 19960, delta: 4610, file: "/ws/benches/quickstart.rs", line: 33, children: [
          { name: "core::slice::sort::shared::smallsort::insertion_sort_shift_left", value: 5200, own: 5200, estimated: false, base: 5200, delta: 0, children: [] },
          { name: "core::slice::sort::unstable::heapsort::heapsort", value: 1170, own: 1170, estimated: false, base: 0, delta: 1170, children: [] },
        ],
      },
    ],
  },
};
writeFileSync(new URL("./fixture-data.json", import.meta.url), JSON.stringify({ group: data, args }));
