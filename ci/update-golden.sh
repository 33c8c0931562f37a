#!/usr/bin/env bash
# Regenerates the checked-in golden/ and golden-graphs/ from the reference (after a deliberate
# contract or generator change). Review `git diff --stat golden/ golden-graphs/` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh release >/dev/null
rm -rf golden golden-graphs
build/bin/cvmcheck golden generate --out golden
build/bin/cvmcheck golden generate --graphs --out golden-graphs
du -sh golden golden-graphs
