// The latest result of every item seen this session, keyed by the daemon's item id, from
// `knotmeter/runState` notifications. The annotations, the code lenses and the results panel
// read it. Pure (no `vscode`).

import type { BenchResult, TestItem } from "./wire";

export class ResultStore {
  private readonly byId = new Map<string, BenchResult>();
  private readonly listeners = new Set<(id: string) => void>();

  /** Stores an item's result (replacing its previous one) and tells the listeners. */
  set(id: string, result: BenchResult): void {
    this.byId.set(id, result);
    for (const l of this.listeners) l(id);
  }

  get(id: string): BenchResult | undefined {
    return this.byId.get(id);
  }

  /**
   * The results of a benchmark function: its own (a benchmark without `args`) or its cases',
   * in the daemon's order.
   */
  resultsOf(benchId: string, items: readonly TestItem[]): BenchResult[] {
    const own = this.byId.get(benchId);
    const cases = items
      .filter((i) => i.parent === benchId && i.id !== benchId)
      .map((i) => this.byId.get(i.id))
      .filter((r): r is BenchResult => r !== undefined);
    return own && cases.length === 0 ? [own] : cases.length > 0 ? cases : own ? [own] : [];
  }

  /** The latest results of a comparison group's members. */
  group(name: string): BenchResult[] {
    const seen = new Set<string>();
    return [...this.byId.values()].filter((r) => r.group === name && !seen.has(r.id) && seen.add(r.id));
  }

  onChange(listener: (id: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}
