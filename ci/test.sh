#!/usr/bin/env bash
# The test command of the README, and what CI runs: release build + every test, then the same
# tests under ASan + UBSan (clang), where any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== release build and tests"
bash ci/build.sh release
ctest --preset release

echo "== ASan + UBSan build and tests"
bash ci/build.sh asan-ubsan
ctest --preset asan-ubsan
