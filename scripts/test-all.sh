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
echo "== the comparisons workspace builds (\`cargo xtask compare\` runs it; CI does not)"
cargo build --manifest-path comparisons/Cargo.toml --all-targets --locked
echo "== VS Code extension: types, unit tests, results panel page, end-to-end in a real VS Code"
(cd vscode-extension && npm run --silent check && npm test && npm run --silent build \
  && npm run --silent test:panel && scripts/e2e.sh)
