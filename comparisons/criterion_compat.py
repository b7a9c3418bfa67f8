#!/usr/bin/env python3
"""The figures of docs/criterion.md: one criterion suite, measured by knotmeter-criterion and by
criterion itself.

The suite is compat/criterion-fixture/benches/suite.rs, unchanged: the fixture crate builds it
against knotmeter-criterion, and this workspace (bench target `criterion_suite`) against the
real criterion. Both binaries are built first, then each runs the whole suite once with its
default settings (knotmeter: its precision rule within its budget; criterion: 3 s warm-up and
5 s of samples per benchmark, unless the suite configures them), one after the other, on this
machine. Prints a markdown table of each benchmark's median under both, with intervals, and the
suite's wall time under each.

    python3 comparisons/criterion_compat.py            # the whole suite
    python3 comparisons/criterion_compat.py fib        # a criterion filter, passed to both
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def executable(manifest: pathlib.Path, bench: str) -> str:
    """Builds `bench` of `manifest` (release, as `cargo bench`) and returns its executable."""
    out = subprocess.run(
        ["cargo", "bench", "--manifest-path", str(manifest), "--bench", bench,
         "--no-run", "--message-format=json"],
        check=True, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == bench \
                and message.get("executable"):
            return message["executable"]
    raise SystemExit(f"cargo built no executable for {bench} of {manifest}")


def timed(command, **kwargs):
    started = time.monotonic()
    out = subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)
    return out, time.monotonic() - started


def human(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main() -> None:
    filters = sys.argv[1:]
    knotmeter_exe = executable(ROOT / "compat/criterion-fixture/Cargo.toml", "suite")
    criterion_exe = executable(ROOT / "comparisons/Cargo.toml", "criterion_suite")
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, KNOTMETER_HISTORY=f"{scratch}/history.db",
                   CRITERION_HOME=f"{scratch}/criterion")
        out, knotmeter_wall = timed(
            [knotmeter_exe, "--bench", "--format", "json", *filters], env=env)
        knotmeter = {r["id"].split("::", 1)[1]: r for r in json.loads(out.stdout)["results"]}
        _, criterion_wall = timed([criterion_exe, "--bench", *filters], env=env)
        # knotmeter once more after criterion: how far the machine drifted meanwhile.
        out, _ = timed([knotmeter_exe, "--bench", "--format", "json", "--no-history", *filters],
                       env=env)
        after = {r["id"].split("::", 1)[1]: r for r in json.loads(out.stdout)["results"]}
        criterion = {}
        for benchmark in pathlib.Path(scratch, "criterion").rglob("new/benchmark.json"):
            full_id = json.loads(benchmark.read_text())["full_id"]
            criterion[full_id] = json.loads((benchmark.parent / "estimates.json").read_text())
    print("| benchmark | knotmeter-criterion median [95% CI] | criterion median [95% CI] "
          "| criterion slope | knotmeter ÷ criterion | knotmeter again, after criterion |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, result in knotmeter.items():
        estimate = result["estimate"]
        theirs = criterion.get(name)
        if theirs is None:
            print(f"| {name} | {human(estimate['median_ns'])} | (not found) | | | |")
            continue
        median = theirs["median"]
        slope = theirs.get("slope") or {}
        ratio = estimate["median_ns"] / median["point_estimate"]
        print(f"| {name} | {human(estimate['median_ns'])} "
              f"[{human(estimate['low_ns'])}, {human(estimate['high_ns'])}] "
              f"| {human(median['point_estimate'])} "
              f"[{human(median['confidence_interval']['lower_bound'])}, "
              f"{human(median['confidence_interval']['upper_bound'])}] "
              f"| {human(slope['point_estimate']) if slope else '—'} | {ratio:.2f} "
              f"| {human(after[name]['estimate']['median_ns']) if name in after else '—'} |")
    print()
    print(f"Wall time of the suite: knotmeter-criterion {knotmeter_wall:.1f} s, "
          f"criterion {criterion_wall:.1f} s ({len(knotmeter)} benchmarks). "
          f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
