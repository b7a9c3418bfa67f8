#!/usr/bin/env bash
# Every test of the repository, in the order a failure is cheapest to see.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== tests (unit, integration, end-to-end, doc tests, benches run once)"
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked
