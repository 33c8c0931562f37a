#!/usr/bin/env bash
# The cvm-runtime adapter's test (ctest cvm_runtime_adapter): builds the original runtime from the
# checkout named by CVM_RUNTIME_DIR and the worker against it, then replays golden/ on its formal
# and cpu backends with their expected-failure lists: any unexpected failure, or an expected
# failure that now passes, fails the test. Then the graph repros through the worker's whole-model
# path (run_model.py), each answered as recorded.
#
#   CVM_RUNTIME_DIR=/path/to/cvm-runtime bash adapters/cvm-runtime/ci_test.sh [CVMCHECK_BINARY]
#
# With CVMCHECK_BINARY (the ctest passes build/bin/cvmcheck) the replay is `cvmcheck golden verify`
# with the worker as an exec backend and the known-difference lists (known-differences.txt, then
# known-cpu.txt), as a campaign applies them; without it, replay_golden.py (numpy alone)
# with the lists by case name that classify.py writes from them (xfail-formal.txt, xfail-cpu.txt).
#
# Where nvcc is (and a cvmcheck binary is given), the gpu backend too (build.sh --cuda): on a
# machine with a GPU, golden/ with its lists (known-differences.txt, then known-gpu.txt); without
# one, a call must be a runtime_error that says there is no device (not a crash or a hang).
#
# Without CVM_RUNTIME_DIR (CI has no checkout of the original), or with one that is not a
# cvm-runtime checkout, it prints the reason and exits 77, which ctest reports as skipped.
# CVM_RUNTIME_BUILD_DIR chooses the build directory (default build-cvm-runtime/).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ -z "${CVM_RUNTIME_DIR:-}" ]; then
  echo "SKIP: CVM_RUNTIME_DIR is not set: no checkout of the original CVM runtime" \
       "(github.com/CortexFoundation/cvm-runtime) to build the adapter against"
  exit 77
fi
if [ ! -f "$CVM_RUNTIME_DIR/include/cvm/c_api.h" ]; then
  echo "SKIP: CVM_RUNTIME_DIR=$CVM_RUNTIME_DIR is not a cvm-runtime checkout (no include/cvm/c_api.h)"
  exit 77
fi
if ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no numpy (Debian: python3-numpy), which replay_golden.py needs"
  exit 77
fi
build="${CVM_RUNTIME_BUILD_DIR:-$root/build-cvm-runtime}"
bash "$here/build.sh" "$CVM_RUNTIME_DIR" "$build" || { echo "FAIL: build.sh failed"; exit 1; }
echo "cvm-runtime commit: $(cat "$build/cvm-runtime.commit")"
cvmcheck="${1:-}"
status=0
for device in formal cpu; do
  echo "== golden/ on cvm-runtime/$device"
  # upsampling/example_scale_4096 runs (8192 x 8192 output) where the contract refuses it; the
  # timeout bounds it (expected failure max-attr-inclusive).
  if [ -n "$cvmcheck" ]; then
    lists=(--xfail "$here/known-differences.txt")
    [ "$device" = cpu ] && lists+=(--xfail "$here/known-cpu.txt")
    "$cvmcheck" golden verify "$root/golden" --call-timeout 20 \
      --backend-def "cvm-runtime-$device=$build/bin/cvm-runtime-worker --device $device" \
      --backend "cvm-runtime-$device" "${lists[@]}" || status=1
  else
    /usr/bin/python3 "$here/replay_golden.py" --golden "$root/golden" --timeout 20 \
      --worker "$build/bin/cvm-runtime-worker --device $device" \
      --xfail "$here/xfail-$device.txt" || status=1
  fi
done
# Whole models: the worker's graph requests, on the repros of the original's graph-level bugs
# (each must still be answered as its original.json records).
for device in formal cpu; do
  echo "== whole models on cvm-runtime/$device (docs/conformance/cvm-runtime-repros/graph-*)"
  /usr/bin/python3 "$here/run_model.py" --worker "$build/bin/cvm-runtime-worker --device $device" \
    --check original.json "$root"/docs/conformance/cvm-runtime-repros/graph-{argmax,detection}-*/ >/dev/null || status=1
done
# The cpu backend's own: its non_max_suppression overwrites its input entry.
/usr/bin/python3 "$here/run_model.py" --worker "$build/bin/cvm-runtime-worker --device cpu" \
  --check original.json "$root"/docs/conformance/cvm-runtime-repros/graph-cpu-nms-overwrites-input/ \
  >/dev/null || status=1
# The formal backend's cvm_precision spinning on INT32_MIN (a model's where leaves it): still a
# hang, bounded by the call timeout. The JSON line cvmcheck prints names the finding.
if [ -n "$cvmcheck" ]; then
  hang="$root/docs/conformance/cvm-runtime-repros/graph-formal-precision-int32-min-hang"
  echo "== $hang on cvm-runtime/formal"
  line=$("$cvmcheck" run "$hang" --call-timeout 3 --backend cvm-runtime-formal \
    --backend-def "cvm-runtime-formal=$build/bin/cvm-runtime-worker --device formal" || true)
  if ! grep -q '"signature":"graph|graph|cvm-runtime-formal|hang"' <<<"$line"; then
    echo "FAIL: the repro no longer hangs on formal: $line"
    status=1
  fi
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -n "$cvmcheck" ] && [ -x "$nvcc" ]; then
  cuda_build="${CVM_RUNTIME_CUDA_BUILD_DIR:-$root/build-cvm-runtime-cuda}"
  if PATH="$(dirname "$nvcc"):$PATH" bash "$here/build.sh" --cuda "$CVM_RUNTIME_DIR" "$cuda_build"; then
    def="cvm-runtime-gpu=$cuda_build/bin/cvm-runtime-worker --device gpu"
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
      echo "== golden/ on cvm-runtime/gpu"
      "$cvmcheck" golden verify "$root/golden" --call-timeout 20 --backend-def "$def" \
        --backend cvm-runtime-gpu --xfail "$here/known-differences.txt" \
        --xfail "$here/known-gpu.txt" || status=1
    else
      echo "== cvm-runtime/gpu without a GPU: one call must be a runtime_error naming the cause"
      reply=$(timeout 60 "$cvmcheck" run "$root/golden/abs/example_precision_1" --backend-def "$def" \
        --backend cvm-runtime-gpu 2>&1)
      echo "$reply"
      if [[ "$reply" != *'"outcome":"runtime_error"'* || "$reply" != *"cvm-runtime/gpu: no CUDA device"* ]]; then
        echo "FAIL: the gpu worker without a device did not answer a runtime_error naming it"
        status=1
      fi
    fi
  else
    echo "FAIL: build.sh --cuda failed"
    status=1
  fi
fi
exit $status
