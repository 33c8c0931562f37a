#!/usr/bin/env bash
# The CI gate (docs/gate.md): checks a change against the operators it can affect.
#   ci/gate.sh --base REV [--head REV] [--out DIR] [--campaign-seconds N] [--max-mutants N]
#              [--store PATH]  (the findings store of the campaign step; default OUT/findings.sqlite)
# Installs what is missing, then runs tools/gate/gate.py, which builds the release preset only
# when the change needs it. Exit codes: 0 pass (docs-only included), 1 a check failed,
# 2 usage, 3 bad revision or shallow clone, 4 dirty tree, 5 no changes, 6 a check could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
exec python3 tools/gate/gate.py "$@"
