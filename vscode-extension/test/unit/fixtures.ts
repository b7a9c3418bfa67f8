// Fixtures typed with the generated protocol types, so a change of the Rust shapes that the
// extension depends on fails to compile here.

import type { BenchResult, Shown, TestItem } from "../../src/wire";

export function result(over: Partial<BenchResult> = {}): BenchResult {
  return {
    id: "quickstart::chain_1000",
    name: "chain_1000",
    args: null,
    group: null,
    baseline: false,
    file: "benches/quickstart.rs",
    line: 8,
    estimate: { median_ns: 12.34, low_ns: 12.29, high_ns: 12.39, mean_ns: 12.4 },
    quantiles: { min_ns: 12.0, p5_ns: 12.1, q1_ns: 12.2, q3_ns: 12.5, p95_ns: 13.0, max_ns: 20.0, std_dev_ns: 0.3, outliers: 2 },
    precision: 0.004,
    overhead: { per_op_ns: 0.31, drift: 0.01, capped: 0 },
    cold_ns: 250,
    ops_per_sample: 4096,
    samples: 120,
    wall_ns: 1_250_000_000,
    partial: false,
    warnings: [],
    comparison: { against: "run 7", ratio: 0.969, low: 0.96, high: 0.978, p_value: 0.0001, verdict: "faster" },
    reproducibility: { spread: 0.015, runs: 9, runs_needed: 5 },
    allocations: null,
    raw: { workload_ns: [12.6, 12.7, 12.5, 12.9], baseline_ns: [0.3, 0.32, 0.3, 0.31] },
    ...over,
  };
}

/** The daemon's presentation of a result, with the given line and outcome. */
export function shown(over: Partial<Shown> = {}): Shown {
  return {
    outcome: "passed",
    figure: "12.3 ns",
    spread: "±1.5%",
    headline: "12.3 ns ±1.5%",
    verdict: "3.1% faster than run 7",
    notes: [],
    line: "12.3 ns ±1.5% · 3.1% faster than run 7",
    detail: "12.3 ns ±1.5%\n±1.5%: the 95% interval of the estimate, [12.1 ns, 12.5 ns], over 10 rounds, each in a fresh process: where a rerun on this machine should land",
    ...over,
  };
}

const uri = "file:///ws/benches/quickstart.rs";
const at = (line: number, endLine = line + 3) => ({ start: { line, character: 0 }, end: { line: endLine, character: 1 } });

/** The tree `knotmeter/discover` gives for a part of examples/quickstart. */
export const items: TestItem[] = [
  { id: "pkg:quickstart", label: "quickstart", kind: "package", uri: "file:///ws/Cargo.toml" },
  { id: "target:quickstart/quickstart", label: "quickstart", kind: "target", parent: "pkg:quickstart", uri },
  { id: "quickstart::chain_1000", label: "chain_1000", kind: "bench", parent: "target:quickstart/quickstart", uri, range: at(6) },
  { id: "quickstart::chain_n", label: "chain_n", kind: "bench", parent: "target:quickstart/quickstart", uri, range: at(12) },
  { id: "quickstart::chain_n/10", label: "10", kind: "case", parent: "quickstart::chain_n", uri, range: at(13, 13) },
  { id: "quickstart::chain_n/100", label: "100", kind: "case", parent: "quickstart::chain_n", uri, range: at(13, 13) },
  { id: "quickstart::sort_stable", label: "sort_stable", kind: "bench", parent: "target:quickstart/quickstart", uri, range: at(18), group: "sort" },
];
