#!/usr/bin/env bash
# (Re)seeds corpus/<target>/ from the operator and generator records, merged and minimized
# with libFuzzer's -merge=1 into what the checked-in corpus does not already cover.
# Usage: ci/fuzz-corpus.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh release >/dev/null
source ci/fuzz-build.sh
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(bash ci/fuzz-targets.sh --operators)
for t in "${targets[@]}"; do
  seeds=$(mktemp -d)
  build/bin/cvmcheck corpus --target "$t" --out "$seeds" >/dev/null
  mkdir -p "corpus/$t"
  "$fuzz_dir"/bin/fuzz_"$t" -merge=1 "corpus/$t" "$seeds" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
  rm -rf "$seeds"
  echo "corpus/$t: $(find "corpus/$t" -type f | wc -l) files, $(du -sk "corpus/$t" | cut -f1) KiB"
done
