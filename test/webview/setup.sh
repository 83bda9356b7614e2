#!/usr/bin/env bash
# What the webview tests need: Debian's Chromium (driven by playwright-core, a devDependency). The
# first step of `npm test`, so that `npm ci && npm test` passes on a fresh Debian machine: when Chromium
# is missing it installs it with apt-get if it runs as root, and otherwise says exactly what to run.
# Idempotent: with Chromium there it only prints its version.
# DOCQA_CHROMIUM_BIN names another binary to look for (the tests of this script use it).
set -euo pipefail
CHROMIUM="${DOCQA_CHROMIUM_BIN:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  "$CHROMIUM" --version 2>/dev/null | head -1
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "npm test: Chromium ($CHROMIUM) is missing and this machine has no apt-get: install Chromium so that $CHROMIUM runs it (the webview tests drive it), then run npm test again." >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "npm test: Debian's Chromium ($CHROMIUM) is missing; the webview tests drive it, and installing it needs root. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium" >&2
  echo "then npm test again." >&2
  exit 1
fi
echo "npm test: installing Debian's chromium for the webview tests (apt-get, about a minute)"
trap 'echo "npm test: installing chromium with apt-get failed (above); run: apt-get update && apt-get install -y --no-install-recommends chromium" >&2' ERR
# Another apt-get (an e2e setup beside this one) may hold the lock for a while: wait for it.
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x "$CHROMIUM" ]; then
  echo "npm test: apt-get installed chromium, but $CHROMIUM is still missing" >&2
  exit 1
fi
"$CHROMIUM" --version 2>/dev/null | head -1
