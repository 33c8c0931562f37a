#!/usr/bin/env bash
# The nightly's bisect step (docs/bisect.md): after a campaign run with --store, bisects the
# store's new and regressed findings within one time budget and records each culprit in the
# store (tools/bisect/nightly.py). Needs the whole history (a shallow clone has no revisions to
# bisect) and this tree's release build, which reads and writes the store.
# Usage: ci/nightly-bisect.sh [STORE] [SECONDS] [-- cvm_bisect.py options, e.g. --repeat 3]
set -euo pipefail
cd "$(dirname "$0")/.."
store="${1:-reports/findings.sqlite}"
seconds="${2:-1800}"
shift "$(($# < 2 ? $# : 2))"
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  echo "nightly-bisect: a shallow clone has no history to bisect (checkout with fetch-depth: 0)" >&2
  exit 3
fi
[ -x build/bin/cvmcheck ] || bash ci/build.sh release
exec python3 tools/bisect/nightly.py --store "$store" --budget "$seconds" \
  --cvmcheck build/bin/cvmcheck "$@"
