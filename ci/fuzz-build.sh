#!/usr/bin/env bash
# Sourced by the fuzz scripts: which build holds the fuzz targets. The `fuzz` preset by default
# (build-fuzz/); CVMCHECK_FUZZ_PRESET=asan-ubsan takes the sanitizer test build instead, which
# builds the fuzz targets too, so that ci/test.sh compiles the sanitized library once, not twice.
# Sets fuzz_preset and fuzz_dir, and builds the preset: all of it, or only the targets the sourcing
# script names in the array fuzz_build_targets (e.g. fuzz_reduce: ci/slurm/night.sh).
fuzz_preset="${CVMCHECK_FUZZ_PRESET:-fuzz}"
case "$fuzz_preset" in
  fuzz) fuzz_dir=build-fuzz ;;
  asan-ubsan) fuzz_dir=build-asan ;;
  *) echo "CVMCHECK_FUZZ_PRESET: '$fuzz_preset' is not a preset with fuzz targets (fuzz, asan-ubsan)" >&2
     exit 64 ;;
esac
# shellcheck disable=SC2154  # fuzz_build_targets: set by the sourcing script, or unset
bash ci/build.sh "$fuzz_preset" ${fuzz_build_targets[@]+"${fuzz_build_targets[@]}"} >/dev/null
export fuzz_preset fuzz_dir
