#!/usr/bin/env bash
# Prints the repository's cargo target directory, as cargo itself resolves it
# (CARGO_TARGET_DIR, .cargo/config.toml or target/). Used by e2e.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo metadata --no-deps --format-version 1 --locked \
  | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))'
