#!/usr/bin/env bash
# Sourced by the fuzz scripts: which build holds the fuzz targets. The `fuzz` preset by default
# (build-fuzz/); CVMCHECK_FUZZ_PRESET=asan-ubsan takes the sanitizer test build instead, which
# builds the fuzz targets too, so that ci/test.sh compiles the sanitized library once, not twice.
# Sets fuzz_preset and fuzz_dir, and builds the preset.
fuzz_preset="${CVMCHECK_FUZZ_PRESET:-fuzz}"
case "$fuzz_preset" in
  fuzz) fuzz_dir=build-fuzz ;;
  asan-ubsan) fuzz_dir=build-asan ;;
  *) echo "CVMCHECK_FUZZ_PRESET: '$fuzz_preset' is not a preset with fuzz targets (fuzz, asan-ubsan)" >&2
     exit 64 ;;
esac
bash ci/build.sh "$fuzz_preset" >/dev/null
export fuzz_preset fuzz_dir
