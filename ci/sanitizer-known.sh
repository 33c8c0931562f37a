#!/usr/bin/env bash
# Judges a compute-sanitizer log of an implementation this project did not write (the original
# runtime's GPU worker) by its list of known bad kernels (adapters/cvm-runtime/gpu-memcheck-kernels.txt:
# a kernel name, two spaces, [rule-id] and the reason; docs/conformance/cvm-runtime.md):
# passes when every error the sanitizer reports is an access by a listed kernel, or a launch
# failure that such an access causes (the context is lost: error 719 on the calls after it).
# Prints the errors per kernel, then the unexplained ones. The application's own exit status is
# not judged here: the golden verify step judges its outputs. Errors the summaries count but the
# log does not show (past the sanitizer's --print-limit) are unexplained.
# Usage: ci/sanitizer-known.sh LOG LIST     Exit: 0 all explained, 1 not, 64 bad arguments.
set -euo pipefail
if [ $# -ne 2 ] || [ ! -f "$1" ] || [ ! -f "$2" ]; then
  sed -n "2,12p" "$0" | sed "s/^# \{0,1\}//" >&2
  exit 64
fi
awk -v list="$2" '
  # A kernel name without "void ", its template and argument lists, and the +0x offset.
  function kernel(s) {
    sub(/^void /, "", s); sub(/\+0x[0-9a-f]+$/, "", s)
    while (s ~ /\([^()]*\)$/) sub(/\([^()]*\)$/, "", s)
    while (s ~ /<[^<>]*>/) gsub(/<[^<>]*>/, "", s)
    return s
  }
  BEGIN {
    while ((getline line < list) > 0) {
      if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
      split(line, f, "  "); known[kernel(f[1])] = f[2]
    }
  }
  /^========= (Invalid|Out-of-range|Misaligned|Malformed|Barrier|Race|Uninitialized)/ { what = $0; next }
  what != "" && /^=========     at / {
    name = $0; sub(/^=========     at /, "", name); name = kernel(name)
    if (name in known) { explained[name]++; any_known = 1 } else { bad[name " (" what ")"]++ }
    what = ""; next
  }
  /^========= Program hit / {
    if ($0 ~ /cudaErrorLaunchFailure|error 719/ && any_known) { lost++ } else { sub(/^========= /, ""); bad[$0]++ }
    next
  }
  /^========= (LEAK|Leaked)/ { sub(/^========= /, ""); bad[$0]++ }
  /^========= ERROR SUMMARY: [0-9]+ error/ { summed += $4 }
  END {
    for (k in explained) seen += explained[k]
    for (k in bad) seen += bad[k]
    seen += lost
    if (summed > seen) bad["errors the log does not show (past --print-limit)"] = summed - seen
    for (k in explained) printf "known: %s: %d errors %s\n", k, explained[k], known[k]
    if (lost) printf "known: %d launch failures after a known bad access (the context was lost)\n", lost
    n = 0
    for (k in bad) { printf "UNEXPLAINED: %s: %d\n", k, bad[k]; n++ }
    if (n) exit 1
  }' "$1"
