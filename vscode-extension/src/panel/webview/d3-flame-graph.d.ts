// The parts of d3-flame-graph 5 (Apache-2.0; it ships no types) and d3-selection the panel
// uses, declared after d3-flame-graph 4.1.3's own index.d.ts.

declare module "d3-flame-graph" {
  /** A frame as the chart hands it to callbacks: the node given, and its layout. */
  export interface FlameGraphFrame<T> {
    data: T;
    value: number;
  }
  /** The chart: configured by chained setters, drawn by calling it on a selection. */
  export interface FlameGraph<T> {
    (selection: unknown): void;
    width(pixels: number): FlameGraph<T>;
    cellHeight(pixels: number): FlameGraph<T>;
    minFrameSize(pixels: number): FlameGraph<T>;
    transitionDuration(ms: number): FlameGraph<T>;
    sort(sort: boolean): FlameGraph<T>;
    onClick(handler: (frame: FlameGraphFrame<T>) => void): FlameGraph<T>;
    setColorMapper(mapper: (frame: FlameGraphFrame<T>, original: string) => string): FlameGraph<T>;
    setLabelHandler(label: (frame: FlameGraphFrame<T>) => string): FlameGraph<T>;
    destroy(): void;
  }
  export default function flamegraph<T>(): FlameGraph<T>;
}

declare module "d3-selection" {
  export function select(element: Element): { datum(data: unknown): { call(chart: (selection: unknown) => void): void } };
}
