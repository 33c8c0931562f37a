#!/usr/bin/env bash
# Regenerates the golden suite into a temporary directory and requires it to be byte-identical
# to the checked-in golden/, so fixtures can never drift from the reference silently.
# Usage: ci/golden-reproducible.sh CVMCHECK_BINARY GOLDEN_DIR
set -euo pipefail
binary="$1"
golden="$2"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$binary" golden generate --out "$scratch/golden" >/dev/null
if ! diff -r -q "$golden" "$scratch/golden"; then
  echo "golden/ differs from a fresh generation: run ci/update-golden.sh and review the diff" >&2
  exit 1
fi
echo "golden/ is reproducible: $(find "$golden" -name case.json | wc -l) cases identical"
