#!/usr/bin/env bash
# End-to-end test in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) driven by
# playwright-core and Debian's Chromium: packages the .vsix, installs it, opens a copy of
# examples/quickstart (plus a flat and a slow benchmark, test/e2e/flat.rs), lists its benchmarks in the
# Test Explorer, runs them, checks what a user sees (results, a flat benchmark never green, a
# group member's verdict, one hover, the status bar's counts after a cancel, a daemon killed
# mid-run (its run ends, the client restarts it, the tree comes back), an inline
# annotation), re-runs on save with continuous run on, opens the results panel, and compares
# with a base from a code lens (in a folder without git: measured alone, warned not_compared).
# Screenshots go to vscode-extension/test-artifacts/.
#
#   scripts/e2e.sh            (from vscode-extension/, or anywhere)
#
# Environment: KNOTMETER_SHARED (default: ../shared beside the repository), KNOTMETER_BIN (the
# daemon; default: built with cargo into the repository's target dir, `$CARGO_TARGET_DIR` when
# set), E2E_TIMEOUT (seconds, default 480). Every process it starts is killed by PID on exit.
#
# It never touches the user's data: the workspace builds into `<target dir>/e2e-fixtures` (the
# daemon's end-to-end tests share it, so the engine is compiled once) and stores its runs in a
# history file of its own in a temporary directory, whatever `CARGO_TARGET_DIR` and
# `KNOTMETER_HISTORY` say.
set -euo pipefail
ext="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$ext/.." && pwd)"
shared="${KNOTMETER_SHARED:-$root/../shared}"
artifacts="$ext/test-artifacts"
budget="${E2E_TIMEOUT:-600}"
mkdir -p "$artifacts"
rm -f "$artifacts"/e2e-*.png "$artifacts"/e2e-*.log "$artifacts"/trust-*.png

tmp="$(mktemp -d)"
cs_pid=""
# Kills a process and its descendants, by PID, children first.
killtree() {
  local pid=$1 child
  for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do killtree "$child"; done
  kill "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  if [ -n "$cs_pid" ]; then killtree "$cs_pid"; fi
  cp "$tmp"/ud.log "$artifacts/e2e-code-server.log" 2>/dev/null || true
  find "$tmp/ud/logs" -name '*.log' \( -path '*exthost*' -o -name 'remoteagent.log' \) -exec sh -c 'cp "$1" "$2/e2e-$(basename "$(dirname "$1")")-$(basename "$1")"' _ {} "$artifacts" \; 2>/dev/null || true
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 124' INT TERM

step() { echo "== e2e: $*"; }

# The repository's cargo target directory, as cargo itself resolves it.
target="$("$ext/scripts/target-dir.sh")"
export CARGO_TARGET_DIR="$target/e2e-fixtures"
export KNOTMETER_HISTORY="$tmp/history.db"

step "daemon"
bin="${KNOTMETER_BIN:-}"
if [ -z "$bin" ]; then
  (cd "$root" && CARGO_TARGET_DIR="$target" timeout 900 cargo build -p knotmeter-server --locked --quiet)
  bin="$target/debug/knotmeter"
fi
[ -x "$bin" ] || { echo "no daemon at $bin"; exit 1; }

step "package the .vsix the standard way (npx @vscode/vsce package, which runs vscode:prepublish)"
(cd "$ext" && npx --no-install @vscode/vsce package -o "$tmp/knotmeter.vsix" >/dev/null)
# The bundles carry no legal comments: the .vsix carries the bundled packages' licences instead.
(cd "$ext" && npx --no-install @vscode/vsce ls) | grep -qx "dist/THIRD_PARTY_NOTICES.txt" \
  || { echo "the .vsix has no dist/THIRD_PARTY_NOTICES.txt"; exit 1; }
for bundled in uplot vscode-languageclient; do
  grep -q "^$bundled [0-9]" "$ext/dist/THIRD_PARTY_NOTICES.txt" \
    || { echo "dist/THIRD_PARTY_NOTICES.txt does not name $bundled, which is bundled"; exit 1; }
done

step "real VS Code"
dir="$(timeout 900 "$shared/tools/real-vscode/setup.sh" | tail -n1)"

step "workspace: a copy of examples/quickstart"
ws="$tmp/quickstart"
mkdir -p "$ws"
cp -r "$root/examples/quickstart/src" "$root/examples/quickstart/benches" "$ws/"
cp "$root/Cargo.lock" "$ws/Cargo.lock"
# Benchmarks the example does not have: a loop the compiler turns into a closed form, whose
# cost does not grow with n (its rows must not be green: flat_scaling), and a slow one that
# spends its whole budget (a run lasts long enough to cancel midway). Appended after the
# example's code so that its line numbers stay as the driver expects.
cat "$ext/test/e2e/flat.rs" >> "$ws/benches/quickstart.rs"
# The example inherits from the repository's workspace; the copy stands alone, on the same
# engine, with the same locked versions, building into the fixtures' target dir so that the
# engine's dependencies are compiled once.
sed -e 's/^edition.workspace = true/edition = "2021"/' \
    -e "s|^knotmeter.workspace = true|knotmeter = { path = \"$root/engine\" }|" \
    -e '/^\[lints\]/,/^workspace = true/d' \
    "$root/examples/quickstart/Cargo.toml" > "$ws/Cargo.toml"
printf '\n[workspace]\n\n' >> "$ws/Cargo.toml"
# The repository's bench profile (SQLite at -O1), as every crate built in the fixtures' target
# dir has it: with other settings cargo would build the engine's dependencies there again.
sed -n '/^\[profile\.bench/,/^$/p' "$root/Cargo.toml" >> "$ws/Cargo.toml"
mkdir -p "$ws/.vscode" "$tmp/ud/User"
cat > "$ws/.vscode/settings.json" <<EOF
{ "knotmeter.server.path": "$bin" }
EOF
cat > "$tmp/ud/User/settings.json" <<'EOF'
{
  "workbench.colorTheme": "Default Dark Modern",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "window.commandCenter": false,
  "editor.minimap.enabled": false,
  "chat.commandCenter.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden"
}
EOF

step "build the workspace's benchmarks once (so the UI steps wait for measurements, not a cold build)"
timeout 900 cargo bench --no-run --quiet --manifest-path "$ws/Cargo.toml" 2>&1 | tail -n 5

step "install the .vsix"
"$dir/install-ext.sh" "$tmp/ext" "$tmp/knotmeter.vsix" >/dev/null

port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
step "start code-server on 127.0.0.1:$port"
cs_pid="$("$dir/start.sh" "$port" "$ws" "$tmp/ud" "$tmp/ext")"
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { echo "code-server did not come up"; exit 1; }

step "drive it"
status=0
NODE_PATH="$dir/node_modules" E2E_URL="http://127.0.0.1:$port/?folder=$ws" E2E_WS="$ws" E2E_DAEMON="$bin" \
  E2E_ARTIFACTS="$artifacts" timeout --kill-after=10 "$budget" node "$ext/test/e2e/e2e.mjs" || status=1
killtree "$cs_pid"; cs_pid=""

step "workspace trust: the same folder, not trusted"
# start.sh disables workspace trust; this start leaves it on, and the folder is not trusted.
# The daemon's path is a user setting here: a workspace cannot name the binary to start.
mkdir -p "$tmp/ud2/User"
sed -e '$ d' "$tmp/ud/User/settings.json" > "$tmp/ud2/User/settings.json"
cat >> "$tmp/ud2/User/settings.json" <<EOF
  ,"security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.banner": "never",
  "knotmeter.server.path": "$bin"
}
EOF
node "$dir/node_modules/code-server/out/node/entry.js" --bind-addr "127.0.0.1:$port" --auth none \
  --disable-telemetry --disable-update-check --user-data-dir "$tmp/ud2" --extensions-dir "$tmp/ext" \
  "$ws" >"$tmp/ud2.log" 2>&1 &
cs_pid=$!
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 1
done
NODE_PATH="$dir/node_modules" E2E_URL="http://127.0.0.1:$port/?folder=$ws" E2E_ARTIFACTS="$artifacts" \
  timeout --kill-after=10 180 node "$ext/test/e2e/trust.mjs" || status=1
exit $status
