#!/usr/bin/env bash
# Prints fuzz/libfuzzer.options (the [libfuzzer] section) as libFuzzer flags, one a line:
#   mapfile -t fuzz_flags < <(bash ci/fuzz-options.sh)
# so that every script runs the targets with the options ClusterFuzzLite reads from that file.
set -euo pipefail
cd "$(dirname "$0")/.."
awk -F' *= *' '/^\[/ { on = ($0 == "[libfuzzer]"); next }
  on && !/^#/ && NF == 2 { print "-" $1 "=" $2 }' fuzz/libfuzzer.options
