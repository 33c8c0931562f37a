#!/usr/bin/env bash
# The oneDNN adapter's test (ctest onednn_adapter): replays golden/ on the oneDNN worker (its
# operators only; the rest is skipped) with its known-difference lists, once with oneDNN's own
# choice of ISA and once each limited to AVX2 and to AVX512_CORE (DNNL_MAX_CPU_ISA: the int8
# paths without VNNI that most of the differences come from; on a CPU without the ISA oneDNN
# takes the best it has), so that every list is exercised on any x86 machine. Any unexpected
# failure fails the test. With MODEL_CHECK_BINARY it also checks, under both ISA
# settings, that oneDNN computes the arithmetic docs/conformance/onednn.md describes.
#
#   bash adapters/onednn/ci_test.sh CVMCHECK_BINARY WORKER_BINARY [MODEL_CHECK_BINARY]
#
# The lists: known-differences.txt applies on every ISA; known-no-vnni.txt too where oneDNN runs
# without VNNI, and known-avx512-core.txt on avx512_core (the worker's --print-isa says which ISA
# it runs; docs/conformance/onednn.md).
# Without the worker (no libdnnl-dev at configure time) it prints the reason and exits 77, which
# ctest reports as skipped.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cvmcheck="${1:?usage: ci_test.sh CVMCHECK_BINARY WORKER_BINARY}"
worker="${2:-}"
model_check="${3:-}"
if [ -z "$worker" ] || [ ! -x "$worker" ]; then
  echo "SKIP: no oneDNN worker (${worker:-not built}): libdnnl-dev was not found at configure time"
  exit 77
fi

# The lists for the ISA the worker runs on under the current environment.
lists_for_isa() {
  local isa
  isa=$("$worker" --print-isa) || return 1
  echo "--xfail $here/known-differences.txt"
  # The ISAs below avx512_core_vnni and avx2_vnni: int8 without VNNI.
  case "$isa" in
    sse41 | avx | avx2) echo "--xfail $here/known-no-vnni.txt" ;;
    avx512_core) echo "--xfail $here/known-no-vnni.txt --xfail $here/known-avx512-core.txt" ;;
  esac
}

status=0
for limit in "" AVX2 AVX512_CORE; do
  if [ -n "$limit" ]; then export DNNL_MAX_CPU_ISA="$limit"; else unset DNNL_MAX_CPU_ISA; fi
  isa=$("$worker" --print-isa) || { echo "FAIL: $worker --print-isa"; exit 1; }
  echo "== golden/ on oneDNN, ISA $isa${limit:+ (DNNL_MAX_CPU_ISA=$limit)}"
  # --worker-memory 0: the sanitizer build's worker reserves terabytes of address space at its
  # start, which the default address-space limit refuses; the worker is our own build.
  # shellcheck disable=SC2046
  "$cvmcheck" golden verify "$root/golden" --jobs 1 --backend-def "onednn=$worker" \
    --worker-memory 0 --backend onednn $(lists_for_isa) || status=1
  if [ -n "$model_check" ]; then
    echo "== the arithmetic of docs/conformance/onednn.md, ISA $isa"
    "$model_check" || status=1
  fi
done
exit $status
