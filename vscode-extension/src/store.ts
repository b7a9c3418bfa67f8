// The latest result of every item seen this session, keyed by the daemon's item id, with the
// daemon's presentation of it (`Shown`) and the analysis of its benchmark, from
// `knotmeter/runState` notifications. The annotations, the Test Explorer and the results panel
// read it. Pure (no `vscode`).

import type { Presented } from "./format";
import type { BenchResult, BenchSummary, Shown, TestItem } from "./wire";

/** One item's latest measurement. */
export interface Entry {
  result: BenchResult;
  shown: Shown;
}

export class ResultStore {
  private readonly byId = new Map<string, Entry>();
  private readonly benches = new Map<string, BenchSummary>();
  private readonly listeners = new Set<(id: string) => void>();

  /** Stores an item's result and its presentation (replacing the previous ones), and tells the listeners. */
  set(id: string, result: BenchResult, shown: Shown, bench?: BenchSummary | null): void {
    this.byId.set(id, { result, shown });
    if (bench) this.benches.set(bench.id, bench);
    for (const l of this.listeners) l(id);
  }

  get(id: string): Entry | undefined {
    return this.byId.get(id);
  }

  /** The analysis of a benchmark across its `args` cases, from its last run. */
  bench(benchId: string): BenchSummary | undefined {
    return this.benches.get(benchId);
  }

  /**
   * The entries of a benchmark function: its own (a benchmark without `args`) or its cases',
   * in the daemon's order.
   */
  entriesOf(benchId: string, items: readonly TestItem[]): Array<Entry & { id: string }> {
    const own = this.byId.get(benchId);
    const cases = items
      .filter((i) => i.parent === benchId && i.id !== benchId)
      .map((i) => {
        const e = this.byId.get(i.id);
        return e ? { ...e, id: i.id } : undefined;
      })
      .filter((e): e is Entry & { id: string } => e !== undefined);
    if (cases.length > 0) return cases;
    return own ? [{ ...own, id: benchId }] : [];
  }

  /** The results of a benchmark function, as `entriesOf`. */
  resultsOf(benchId: string, items: readonly TestItem[]): BenchResult[] {
    return this.entriesOf(benchId, items).map((e) => e.result);
  }

  /** A benchmark's cases as the annotations lay them out. */
  presentedOf(benchId: string, items: readonly TestItem[]): Presented[] {
    return this.entriesOf(benchId, items).map((e) => ({
      args: e.result.args,
      verdict: e.result.comparison?.verdict ?? null,
      shown: e.shown,
    }));
  }

  /** The latest entries of a comparison group's members. */
  group(name: string): Entry[] {
    return [...this.byId.values()].filter((e) => e.result.group === name);
  }

  onChange(listener: (id: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}
