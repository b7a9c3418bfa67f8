// The last profile of each case (`knotmeter/profiled`: a "Profile" run's, or the newest stored
// one when the daemon starts), and which hot lines a file shows: those of the newest profile
// with a hot line in it, the rule the daemon follows for clients that draw nothing themselves,
// so two profiles that reach one helper never put two marks on a line. Pure (no `vscode`).

import type { HotLine, ProfileComparedParams, ProfiledParams } from "./wire";

export class ProfileStore {
  private readonly byCase = new Map<string, { params: ProfiledParams; order: number }>();
  private readonly comparisons = new Map<string, ProfileComparedParams>();
  private next = 0;
  private readonly listeners = new Set<(files: string[]) => void>();

  /** Keeps `params` as its case's profile and tells the listeners which files' marks may change. */
  keep(params: ProfiledParams): void {
    const files = new Set(params.marks.map((m) => m.file));
    const old = this.byCase.get(params.profile.id);
    for (const m of old?.params.marks ?? []) files.add(m.file);
    this.byCase.set(params.profile.id, { params, order: ++this.next });
    // A newer profile of the case makes its last comparison of two builds old news.
    this.comparisons.delete(params.profile.id);
    for (const l of this.listeners) l([...files]);
  }

  /**
   * Keeps `params` as its case's last comparison of profiles across two builds (no marks
   * change). The daemon sends the head's own profile first, so it does not drop this.
   */
  keepComparison(params: ProfileComparedParams): void {
    this.comparisons.set(params.comparison.id, params);
    for (const l of this.listeners) l([]);
  }

  /** The case's last comparison of profiles across two builds. */
  comparison(id: string): ProfileComparedParams | undefined {
    return this.comparisons.get(id);
  }

  /** The case's last profile. */
  get(id: string): ProfiledParams | undefined {
    return this.byCase.get(id)?.params;
  }

  /** The hot lines `file` (an absolute path) shows, the costliest first. */
  marksIn(file: string): HotLine[] {
    let newest: { params: ProfiledParams; order: number } | undefined;
    for (const kept of this.byCase.values()) {
      if (!kept.params.marks.some((m) => m.file === file)) continue;
      if (!newest || kept.order > newest.order) newest = kept;
    }
    return newest ? newest.params.marks.filter((m) => m.file === file) : [];
  }

  onChange(listener: (files: string[]) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

/** How hot a line's gutter mark is, from its share of the profiled region: 3 from a fifth, 2
 * from a twentieth, 1 from a hundredth, 0 below. */
export function heat(share: number): 0 | 1 | 2 | 3 {
  if (share >= 0.2) return 3;
  if (share >= 0.05) return 2;
  if (share >= 0.01) return 1;
  return 0;
}
