#!/usr/bin/env bash
# Every Python tool (an executable .py under tools/, adapters/, worker_sdk/) answers --help with
# exit 0 and no traceback, and one that needs numpy says so in one line when the python3 has
# none (a numpy package that fails to import stands in for a python3 without numpy).
# Usage: python_tools_test.sh SOURCE_DIR [PYTHON]
set -uo pipefail
src=$1
python=${2:-/usr/bin/python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/numpy"
echo 'raise ImportError("No module named numpy (hidden by python_tools_test.sh)")' \
  >"$scratch/numpy/__init__.py"
passed=0 failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
mapfile -t tools < <(cd "$src" && grep -l -m1 '^#!/usr/bin/env python3' \
  tools/*.py tools/*/*.py adapters/*/*.py worker_sdk/*/*.py 2>/dev/null | sort)
[[ ${#tools[@]} -ge 10 ]] || fail "found only ${#tools[@]} tools"
for tool in "${tools[@]}"; do
  out=$(cd "$scratch" && timeout 60 "$python" "$src/$tool" --help 2>&1 </dev/null)
  status=$?
  if [[ $status -ne 0 || "$out" == *Traceback* || -z "$out" ]]; then
    fail "$tool --help: exit $status: ${out:0:300}"
  else
    passed=$((passed + 1))
  fi
  if grep -q '^ *import numpy' "$src/$tool"; then
    err=$(cd "$scratch" && PYTHONPATH="$scratch" timeout 60 "$python" "$src/$tool" --help 2>&1 \
      </dev/null)
    status=$?
    lines=$(printf '%s\n' "$err" | wc -l)
    if [[ $status -eq 0 || $lines -ne 1 || "$err" != *"needs numpy"* ]]; then
      fail "$tool without numpy: exit $status, $lines lines: ${err:0:300}"
    else
      passed=$((passed + 1))
    fi
  fi
done
out=$(timeout 60 "$python" "$src/tools/golden_consumer.py" "$scratch/no-such-suite" 2>&1)
status=$?
if [[ $status -ne 2 || "$out" == *Traceback* || "$out" != *"no MANIFEST.json"* ]]; then
  fail "golden_consumer.py on a missing directory: exit $status: ${out:0:300}"
else
  passed=$((passed + 1))
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
