#!/usr/bin/env bash
# Installs what the report page's browser tests need (docs/report.md), only what is missing:
# Debian's chromium (apt; never a browser download) and playwright-core from the npm registry,
# at the version tests/browser/package-lock.json pins, into tests/browser/node_modules (ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
if [[ ! -x /usr/lib/chromium/chromium ]]; then
  echo "ci/setup-browser.sh: installing chromium" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
lock=tests/browser/package-lock.json
stamp=tests/browser/node_modules/.installed-lock
if ! cmp -s "$lock" "$stamp" 2>/dev/null; then
  echo "ci/setup-browser.sh: npm ci in tests/browser (playwright-core)" >&2
  # --ignore-scripts: playwright-core has none that we need, and no browser is downloaded.
  (cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
  cp "$lock" "$stamp"
fi
