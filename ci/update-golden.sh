#!/usr/bin/env bash
# Regenerates the checked-in golden/ from the reference (after a deliberate contract or
# generator change). Review `git diff --stat golden/` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh release >/dev/null
rm -rf golden
build/bin/cvmcheck golden generate --out golden
du -sh golden
