#!/usr/bin/env bash
# The report page's browser tests (docs/report.md): installs chromium and playwright-core if
# missing (ci/setup-browser.sh), writes two small real runs with planted bugs and their page, and
# three runs into one findings store with its page (tests/browser/make-fixture.sh), then runs tests/browser/*.test.cjs with node's test runner in
# headless chromium. Usage: ci/browser-test.sh [CVMCHECK_BINARY] (default build/bin/cvmcheck).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/bin/cvmcheck}
bash ci/setup-browser.sh
fixture=$(mktemp -d)
trap 'rm -rf "$fixture"' EXIT
bash tests/browser/make-fixture.sh "$bin" "$fixture"
echo "report page under test: $(wc -c <"$fixture/head/report.html") bytes"
CVMCHECK_FIXTURE="$fixture" NODE_PATH="$PWD/tests/browser/node_modules" \
  node --test --test-reporter=spec tests/browser/
