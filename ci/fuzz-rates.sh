#!/usr/bin/env bash
# Fuzz throughput per target: execs/s of every fuzz target built with ASan + UBSan (preset fuzz,
# what CI and the nightly run) and without sanitizers (preset fuzz-fast, for throughput, as
# OSS-Fuzz also builds several configurations of one target), on the same seed and corpus copy,
# and optionally of a base revision's ASan build (BASE_REV, built in build-fuzz-base/tree, a git
# worktree reused between runs), run with its own tree's libFuzzer options and with this tree's
# (ci/fuzz-options.sh; a tree without that file ran with -timeout=10 -rss_limit_mb=2048).
# Prints a markdown table for docs/fuzzing.md. Not part of CI.
# Usage: ci/fuzz-rates.sh [SECONDS_PER_TARGET] [BASE_REV]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-10}
base_rev=${2:-}
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
mapfile -t targets < <(bash ci/fuzz-targets.sh)
bash ci/build.sh fuzz >/dev/null
# Only the fuzz targets: without a sanitizer's runtime, the tools and workers (instrumented with
# -fsanitize=fuzzer-no-link) have no coverage callbacks to link against.
cmake --preset fuzz-fast >/dev/null
cmake --build --preset fuzz-fast --target "${targets[@]/#/fuzz_}" >/dev/null
base_dir=
if [ -n "$base_rev" ]; then
  rev=$(git rev-parse --verify --quiet "$base_rev^{commit}") ||
    { echo "ci/fuzz-rates.sh: unknown revision '$base_rev'" >&2; exit 2; }
  tree="build-fuzz-base/tree"
  if [ ! -d "$tree" ]; then
    mkdir -p build-fuzz-base
    git worktree add --detach "$tree" "$rev" >/dev/null
  fi
  git -C "$tree" checkout --quiet --detach "$rev"
  echo "building base $base_rev ($(git rev-parse --short "$rev")) in $tree" >&2
  (cd "$tree" && CCACHE_BASEDIR=$PWD cmake --preset fuzz >/dev/null && cmake --build --preset fuzz >/dev/null)
  base_dir=$root/$tree
fi

# The libFuzzer flags a tree runs its targets with.
flags_of() {  # TREE
  if [ -f "$1/ci/fuzz-options.sh" ]; then bash "$1/ci/fuzz-options.sh"; else
    printf '%s\n' -timeout=10 -rss_limit_mb=2048; fi
}
mapfile -t own_flags < <(flags_of "$root")
run_in() {  # DIR PRESET_DIR TARGET FLAGS...
  local work log dir=$1 build=$2 target=$3
  shift 3
  work=$(mktemp -d) log=$(mktemp)
  (cd "$dir" && "$build"/bin/fuzz_"$target" -max_total_time="$seconds" -seed=1 "$@" \
    -print_final_stats=1 "$work" "corpus/$target" >"$log" 2>&1) || true
  grep -E "stat::average_exec_per_sec" "$log" | awk '{print $2}'
  rm -rf "$work" "$log"
}

echo "Fuzz rates, $(date -u +%Y-%m-%d), ${seconds} s per target and build, seed 1, load before:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "$base_dir" ]; then
  mapfile -t base_flags < <(flags_of "$base_dir")
  echo "Flags: this tree ${own_flags[*]}; base ${base_flags[*]}."
  echo
  echo "| target | ASan + UBSan (execs/s) | base $base_rev ASan + UBSan, its flags | ratio | base, this tree's flags | ratio | no sanitizer (execs/s) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
else
  echo "| target | ASan + UBSan (execs/s) | no sanitizer (execs/s) |"
  echo "|---|---:|---:|"
fi
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
for t in "${targets[@]}"; do
  asan=$(run_in "$root" build-fuzz "$t" "${own_flags[@]}")
  fast=$(run_in "$root" build-fuzz-fast "$t" "${own_flags[@]}")
  if [ -n "$base_dir" ]; then
    base="" same=""
    if [ -x "$base_dir/build-fuzz/bin/fuzz_$t" ]; then
      base=$(run_in "$base_dir" build-fuzz "$t" "${base_flags[@]}")
      same=$(run_in "$base_dir" build-fuzz "$t" "${own_flags[@]}")
    fi
    echo "| $t | ${asan:-?} | ${base:--} | $(ratio "$asan" "$base") | ${same:--} |" \
      "$(ratio "$asan" "$same") | ${fast:-?} |"
  else
    echo "| $t | ${asan:-?} | ${fast:-?} |"
  fi
done
