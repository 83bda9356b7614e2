#!/usr/bin/env bash
# Installs what the webview tests need: Debian's Chromium (driven by playwright-core, a devDependency).
# Idempotent; .ci/run calls it before npm test. Installing needs root (apt-get).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version 2>/dev/null | head -1
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "webview test setup: /usr/bin/chromium is missing and installing it needs root: sudo apt-get install -y chromium" >&2
  exit 1
fi
DEBIAN_FRONTEND=noninteractive apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version 2>/dev/null | head -1
