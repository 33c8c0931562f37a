#!/usr/bin/env bash
# ci/build-progress.sh, what every build says while it runs, driven by a stand-in for ninja: in a
# log (stderr not a terminal) a line per tenth of the steps, cmake's own steps left out; on a
# terminal one updating line; every line of the build in the log; on failure the log's path and
# its lines from the failed step, and the build's status.
# Usage: tests/ci/build_progress_test.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=ci/build-progress.sh
source "$1/ci/build-progress.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect WHAT CONDITION...: one check
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what" >&2
    failures=$((failures + 1))
  fi
}

# 40 steps as ninja prints them through a pipe, after cmake's check of its globs; `fail` makes
# step 17 fail.
cat >"$work/ninja" <<'NINJA'
#!/usr/bin/env bash
echo "[0/2] Re-checking globbed directories..."
echo "[1/2] Re-running CMake..."
for ((k = 1; k <= 40; k++)); do
  echo "[$k/40] Building CXX object unit$k.o"
  if [[ ${1:-} == fail && $k == 17 ]]; then
    printf 'FAILED: unit17.o\ng++ -c unit17.cc\nunit17.cc:3:1: error: expected ;\n'
    echo "ninja: build stopped: subcommand failed."
    exit 1
  fi
done
NINJA
chmod +x "$work/ninja"

: >"$work/log"
logged_build "build" "$work/log" "$work/ninja" 2>"$work/said"
mapfile -t said <"$work/said"
# The first step's line gives the count early; then one per tenth.
expect "a line per tenth: ${said[*]}" test "${#said[@]}" -eq 11
# Each line ends with the time since the start (", 0 s"), which the checks leave out.
expect "first line: ${said[0]}" test "${said[0]%, *}" == "build: 1/40 steps (2%)"
expect "second line: ${said[1]}" test "${said[1]%, *}" == "build: 4/40 steps (10%)"
expect "last line: ${said[10]}" test "${said[10]%, *}" == "build: 40/40 steps (100%)"
expect "cmake's own steps left out" bash -c "! grep -q '/2 steps' '$work/said'"
expect "the build's lines in the log" test "$(wc -l <"$work/log")" -eq 42

: >"$work/log"
status=0
logged_build "build" "$work/log" "$work/ninja" fail 2>"$work/said" || status=$?
expect "the build's status" test "$status" -eq 1
expect "the log's path and where its excerpt starts" \
  grep -q "^build: failed; the log is $work/log (line 20 on):$" "$work/said"
expect "the failed step's error" grep -q '^  | unit17.cc:3:1: error: expected ;$' "$work/said"

# On a terminal (script(1) gives the command one): one line, rewritten in place, then a line end.
if command -v script >/dev/null; then
  script -qec "bash -c 'source \"$1/ci/build-progress.sh\"; logged_build build /dev/null \
    \"$work/ninja\"'" /dev/null >"$work/tty" 2>&1
  expect "one updating line on a terminal" test "$(tr -cd '\n' <"$work/tty" | wc -c)" -eq 1
  expect "40 updates on a terminal" test "$(tr -cd '\r' <"$work/tty" | wc -c)" -ge 40
fi

if ((failures > 0)); then
  echo "$failures checks failed" >&2
  exit 1
fi
echo "build progress: every check passed"
