#!/usr/bin/env node
// A stand-in for `knotmeter serve`, for developing the extension's UI without a Rust build:
// it speaks the `knotmeter/*` methods with made-up results. It discovers `#[bench]` functions
// with a regular expression, "runs" each case in 150 ms, and re-runs a saved file's benchmarks
// when run-on-save is on. Never used by the tests that CI runs (they use the real daemon).
//
//   KNOTMETER_BIN=test/e2e/fake-daemon.cjs scripts/e2e.sh

const path = require("node:path");
const fs = require("node:fs");
const rpc = require(path.join(__dirname, "../../node_modules/vscode-jsonrpc/node"));

const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
let root = process.cwd();
let runOnSave = false;
let nextRun = 1;
const cancelled = new Set();
const history = new Map();

function discover() {
  const items = [];
  const benches = path.join(root, "benches");
  if (!fs.existsSync(benches)) return items;
  items.push({ id: "pkg:quickstart", label: "quickstart", kind: "package", uri: `file://${root}/Cargo.toml` });
  for (const f of fs.readdirSync(benches).filter((f) => f.endsWith(".rs"))) {
    const target = f.replace(/\.rs$/, "");
    const uri = `file://${path.join(benches, f)}`;
    items.push({ id: `target:quickstart/${target}`, label: target, kind: "target", parent: "pkg:quickstart", uri });
    const lines = fs.readFileSync(path.join(benches, f), "utf8").split("\n");
    lines.forEach((line, i) => {
      const m = /^#\[bench(?:\((.*)\))?\]/.exec(line);
      if (!m) return;
      let j = i + 1;
      while (j < lines.length && !/\bfn\s+(\w+)/.test(lines[j])) j++;
      const name = /\bfn\s+(\w+)/.exec(lines[j])[1];
      let end = j;
      while (end < lines.length && lines[end] !== "}") end++;
      const id = `${target}::${name}`;
      const group = /group\s*=\s*"(\w+)"/.exec(m[1] ?? "")?.[1];
      items.push({ id, label: name, kind: "bench", parent: `target:quickstart/${target}`, uri, range: { start: { line: i, character: 0 }, end: { line: end, character: 1 } }, ...(group ? { group } : {}) });
      const args = /args\s*=\s*\[([^\]]*)\]/.exec(m[1] ?? "");
      if (args) for (const a of args[1].split(",").map((s) => s.trim())) items.push({ id: `${id}/${a}`, label: a, kind: "case", parent: id, uri, range: { start: { line: i, character: 0 }, end: { line: i, character: line.length } } });
    });
  }
  return items;
}

function result(id, item, items) {
  const parent = items.find((x) => x.id === item.parent);
  const name = item.kind === "case" ? parent.label : item.label;
  const base = 5 + (id.length % 7) * 13 * (item.kind === "case" ? Number(item.label) / 10 : 1);
  const median = base * (0.95 + Math.random() * 0.1);
  const samples = Array.from({ length: 400 }, () => median * Math.exp(0.03 * (Math.random() + Math.random() + Math.random() - 1.5)) + 0.3);
  const prev = history.get(id);
  const ratio = prev ? median / prev : 1;
  history.set(id, median);
  return {
    id, name, args: item.kind === "case" ? item.label : null, group: item.group ?? parent?.group ?? null, baseline: false,
    file: "benches/quickstart.rs", line: (item.range?.start.line ?? 0) + 2,
    estimate: { median_ns: median, low_ns: median * 0.996, high_ns: median * 1.004, mean_ns: median * 1.01 },
    quantiles: { min_ns: median * 0.9, p5_ns: median * 0.95, q1_ns: median * 0.98, q3_ns: median * 1.02, p95_ns: median * 1.06, max_ns: median * 1.3, std_dev_ns: median * 0.03, outliers: 3 },
    precision: 0.004, overhead: { per_op_ns: 0.3, drift: 0.01, capped: 0 }, cold_ns: median * 20, ops_per_sample: 1024, samples: 400, wall_ns: 1.2e8, partial: false,
    warnings: name === "async_chain_100" ? [{ code: "imprecise", message: "the interval is wider than ±5%" }] : [],
    comparison: prev ? { against: "previous run", ratio, low: ratio * 0.99, high: ratio * 1.01, p_value: 0.01, verdict: ratio < 0.98 ? "faster" : ratio > 1.02 ? "slower" : "same" } : null,
    allocations: null, raw: { workload_ns: samples, baseline_ns: samples.map(() => 0.3) },
  };
}

function leaves(items, include, exclude) {
  const ex = new Set(exclude ?? []);
  const under = (id, anc) => { for (let x = items.find((i) => i.id === id); x; x = items.find((i) => i.id === x.parent)) if (anc.has(x.id)) return true; return false; };
  const inc = include ? new Set(include) : undefined;
  return items.filter((i) => (i.kind === "case" || (i.kind === "bench" && !items.some((c) => c.parent === i.id))) && (!inc || under(i.id, inc)) && !under(i.id, ex));
}

async function run(runId, todo, items) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for (const i of todo) conn.sendNotification("knotmeter/runState", { runId, id: i.id, state: "enqueued" });
  for (const i of todo) conn.sendNotification("knotmeter/runState", { runId, id: i.id, state: "building" });
  conn.sendNotification("knotmeter/output", { runId, text: "   Compiling quickstart v0.1.0\r\n    Finished `bench` profile [optimized] target(s)\r\n" });
  await sleep(300);
  for (const i of todo) {
    if (cancelled.has(runId)) { conn.sendNotification("knotmeter/runState", { runId, id: i.id, state: "skipped", message: "cancelled" }); continue; }
    conn.sendNotification("knotmeter/runState", { runId, id: i.id, state: "started" });
    await sleep(150);
    conn.sendNotification("knotmeter/runState", { runId, id: i.id, state: "passed", result: result(i.id, i, items) });
  }
  conn.sendNotification("knotmeter/runEnd", { runId });
}

conn.onRequest("initialize", (p) => {
  if (p.rootUri) root = new URL(p.rootUri).pathname;
  runOnSave = !!(p.initializationOptions?.runOnSave);
  return { capabilities: { textDocumentSync: { openClose: true, save: true, change: 0 } } };
});
conn.onNotification("initialized", () => conn.sendNotification("knotmeter/discovered", { items: discover() }));
conn.onNotification("workspace/didChangeConfiguration", (p) => {
  const s = p.settings?.knotmeter ?? p.settings;
  if (s && "runOnSave" in s) runOnSave = !!s.runOnSave;
});
conn.onNotification("textDocument/didSave", (p) => {
  const items = discover();
  conn.sendNotification("knotmeter/discovered", { items });
  if (!runOnSave) return;
  const todo = leaves(items).filter((i) => i.uri === p.textDocument.uri);
  if (todo.length) run(nextRun++, todo, items);
});
conn.onRequest("knotmeter/discover", () => ({ items: discover() }));
conn.onRequest("knotmeter/run", (p) => {
  const runId = nextRun++;
  const items = discover();
  setTimeout(() => run(runId, leaves(items, p.include, p.exclude), items), 10);
  return { runId };
});
conn.onRequest("knotmeter/cancel", (p) => { cancelled.add(p.runId); return null; });
conn.onRequest("knotmeter/history", (p) => ({
  points: Array.from({ length: 6 }, (_, i) => { const m = 10 + i + Math.random(); return { run: 6 - i, timestamp: 1764000000 - i * 3600, gitCommit: null, machineKey: "m", baseline: null, medianNs: m, lowNs: m * 0.98, highNs: m * 1.02, verdict: null }; }),
}));
conn.onRequest("shutdown", () => null);
conn.onNotification("exit", () => process.exit(0));
conn.listen();
