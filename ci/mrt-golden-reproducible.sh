#!/usr/bin/env bash
# Regenerates the MRT expansion fixtures into a temporary directory and requires them to be
# byte-identical to the checked-in golden-mrt/ (docs/mrt.md).
# Usage: ci/mrt-golden-reproducible.sh CVMCHECK_BINARY GOLDEN_MRT_DIR
set -euo pipefail
binary="$1"
golden="$2"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$binary" mrt --write-golden "$scratch/golden-mrt" >/dev/null
if ! diff -r -q "$golden" "$scratch/golden-mrt"; then
  echo "golden-mrt/ differs from a fresh generation: regenerate with" \
       "'cvmcheck mrt --write-golden golden-mrt' and review the diff" >&2
  exit 1
fi
echo "golden-mrt/ is reproducible: $(find "$golden" -name case.json | wc -l) step cases identical"
