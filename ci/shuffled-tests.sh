#!/usr/bin/env bash
# The test binary run directly, as gtest users run it, in one process per shard and in a
# shuffled order: a test that leaves state behind (a backend left in the process-wide registry,
# say) fails here even though ctest, one process per test, hides it. The shuffle seed is printed;
# GTEST_RANDOM_SEED=S replays an order.
# Usage: ci/shuffled-tests.sh TEST_BINARY [SHARDS (default: the cores)]
set -uo pipefail
binary="$1"
shards="${2:-$(nproc)}"
seed="${GTEST_RANDOM_SEED:-$(( (RANDOM % 99999) + 1 ))}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for ((i = 0; i < shards; i++)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$binary" --gtest_shuffle \
    --gtest_random_seed="$seed" --gtest_brief=1 >"$logs/$i.log" 2>&1 &
done
status=0
for ((i = 0; i < shards; i++)); do wait -n || status=1; done
if [ "$status" != 0 ]; then
  cat "$logs"/*.log
  echo "ci/shuffled-tests.sh: FAILED with --gtest_shuffle --gtest_random_seed=$seed ($shards shards)"
  exit 1
fi
total=$(cat "$logs"/*.log | sed -n 's/^\[==========\] \([0-9]*\) tests.*ran.*/\1/p' | awk '{s += $1} END {print s}')
echo "ci/shuffled-tests.sh: $total tests passed in $shards shuffled processes (seed $seed)"
