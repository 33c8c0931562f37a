#!/usr/bin/env bash
# Regenerates docs/report-screenshot.png: the page of a real run of the main job
# (reports/campaign/report.html, written by ci/campaign.sh; run it first, or pass another page),
# the top of it as headless chromium draws it at 1400 x 1000 (docs/report.md).
# Usage: ci/report-screenshot.sh [PAGE]
set -euo pipefail
cd "$(dirname "$0")/.."
page=${1:-reports/campaign/report.html}
[[ -f "$page" ]] || { echo "ci/report-screenshot.sh: no $page: run bash ci/campaign.sh first" >&2; exit 2; }
bash ci/setup-browser.sh
NODE_PATH="$PWD/tests/browser/node_modules" node tests/browser/screenshot.cjs "$page" \
  docs/report-screenshot.png
echo "docs/report-screenshot.png"
