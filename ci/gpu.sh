#!/usr/bin/env bash
# The GPU job (docs/cuda.md). Two ways to run it:
#   ci/gpu.sh [--seconds N] [--out DIR]
#       builds the bundle here (ci/gpu-bundle.sh: needs this checkout, apt and nvcc), then runs it;
#   bash BUNDLE/gpu.sh --bundle BUNDLE [--seconds N] [--original-seconds N] [--limit S] [--out DIR]
#       runs a bundle made elsewhere, with no build and no package manager: a bare GPU machine
#       with the NVIDIA driver and the CUDA toolkit is enough.
# The run: `cvmcheck ops` (cuda must be available), every test of the test binary (sharded over
# the cores), golden verify of golden/ and golden-mrt/ on cuda, `mrt --backend cuda`, a campaign
# of cuda and its variants against the reference, cuda-host and its variants (--seconds,
# default 120), compute-sanitizer's
# memcheck, racecheck, initcheck and synccheck over the device tests and golden verify, then the
# CUDA benchmark alone on the device (JSON). With the original runtime's GPU worker in the bundle
# (ci/gpu-bundle.sh packs it when built): golden verify of it, a campaign of it against the
# reference (--original-seconds, default --seconds) with its known-difference lists, and
# memcheck over its golden verify, its errors judged by its list of known bad kernels
# (ci/sanitizer-known.sh). Reports go to --out (default reports/gpu), a summary table
# last. --limit: seconds each step may take (default 600) before it counts as
# timed out.
# Exit status: 0 all passed; 1 something failed; 3 no CUDA device (nothing was checked: a GPU
# job that checked nothing must not pass); 64 bad arguments.
set -euo pipefail
seconds=120
original_seconds=""
limit=600
out=reports/gpu
bundle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --original-seconds) original_seconds="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/gpu.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
if [ -z "$bundle" ]; then
  cd "$(dirname "$0")/.."
  bash ci/gpu-bundle.sh --out gpu-bundle
  exec bash gpu-bundle/gpu.sh --bundle gpu-bundle --seconds "$seconds" --limit "$limit" --out "$out"
fi

bundle=$(cd "$bundle" && pwd)
original_seconds="${original_seconds:-$seconds}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cvmcheck-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
tar xzf "$bundle/source.tar.gz" -C "$work/src"
cd "$work/src"

# Libraries: the bundle's, then the machine's CUDA toolkit (cuBLASLt), wherever it is.
libs="$bundle/lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && libs="$libs:$d"
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CVMCHECK_BINARY="$bundle/bin/cvmcheck" CVMCHECK_SOURCE_DIR="$work/src"
export CVMCHECK_EXAMPLE_CPP_WORKER="$bundle/bin/example_cpp_worker"
export CVMCHECK_BROKEN_WORKER="$bundle/bin/broken_worker"
export CVMCHECK_BREAKING_PROXY="$bundle/bin/breaking_proxy"
# The worker tests' Python must have numpy: the first python3 on the PATH that does.
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then
    CVMCHECK_PYTHON=$(command -v "$p")
    export CVMCHECK_PYTHON
    break
  fi
done
cvm="$bundle/bin/cvmcheck"
tests="$bundle/bin/cvmcheck_tests"

if ! "$cvm" ops >"$out/ops.txt" 2>&1; then
  echo "ci/gpu.sh: the bundle's cvmcheck does not run here:" >&2
  tail -n 5 "$out/ops.txt" >&2
  exit 1
fi
if grep -q 'cuda(unavailable' "$out/ops.txt"; then
  echo "ci/gpu.sh: no CUDA device found, nothing was checked: $(grep -o 'cuda(unavailable[^)]*)' "$out/ops.txt" | head -n 1)" >&2
  exit 3
fi
{ nvidia-smi -L 2>/dev/null || true; head -n 3 "$bundle/MANIFEST.txt"; } >"$out/device.txt"

# One step: its log in $out/NAME.log, its status and time in $out/steps.tsv.
step() {
  local name="$1" t0=$SECONDS status=0
  shift
  "$@" >"$out/$name.log" 2>&1 || status=$?
  printf '%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - t0))" >>"$out/steps.tsv"
}
# shellcheck disable=SC2317  # runs through step()
limited() { timeout --kill-after=10 "$limit" "$@"; }
# shellcheck disable=SC2317  # runs through step()
# The test binary in shards, one per core (at most 16), as one step.
sharded_tests() {
  local n i status=0
  n=$(nproc); [ "$n" -gt 16 ] && n=16
  for ((i = 0; i < n; i++)); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i limited "$tests" --gtest_brief=1 \
      >"$work/shard$i.log" 2>&1 &
  done
  for ((i = 0; i < n; i++)); do wait -n || status=$?; done
  cat "$work"/shard*.log
  return "$status"
}
sanitizer=(limited compute-sanitizer --error-exitcode 1 --print-limit 20 --tool)
# Under the sanitizers, the device tests less the two that replay every example with edge
# attributes and odd shapes (thousands of calls, run unsanitized in the tests step).
device_tests='CudaDevice.*:-CudaDevice.EdgeAttributes*:CudaDevice.UnrelatedInputShapes*'

: >"$out/steps.tsv"
step tests sharded_tests &
step golden limited "$cvm" golden verify golden --backend cuda &
step golden-mrt limited "$cvm" golden verify golden-mrt --backend cuda &
step mrt limited "$cvm" mrt --backend cuda --seconds 30 &
variants=cuda,cuda@tile,cuda@warp,cuda@split,cuda@nms8,cuda/simple
host_variants=cuda-host,cuda-host@tile,cuda-host@warp,cuda-host@split,cuda-host@nms8
step campaign timeout --kill-after=10 $((seconds + 120)) "$cvm" campaign \
  --backends "$variants,$host_variants" --seconds "$seconds" --quiet --report "$out/campaign" &
if command -v compute-sanitizer >/dev/null; then
  step memcheck "${sanitizer[@]}" memcheck "$tests" --gtest_filter="$device_tests" &
  step memcheck-golden "${sanitizer[@]}" memcheck "$cvm" golden verify golden --backend cuda &
  step racecheck "${sanitizer[@]}" racecheck "$tests" --gtest_filter="$device_tests" &
  step initcheck "${sanitizer[@]}" initcheck "$cvm" golden verify golden --backend cuda &
  step synccheck "${sanitizer[@]}" synccheck "$tests" --gtest_filter="$device_tests" &
else
  printf 'sanitizers\tskipped: compute-sanitizer not found\t0\n' >>"$out/steps.tsv"
fi
wait
# The original runtime's GPU backend (docs/conformance/cvm-runtime.md): a GPU implementation
# this project did not write, diffed with the lists that explain its known differences. Its
# steps run one after another, after ours, alone on the device: shared with the sanitizers and
# the test shards, its worker's calls stalled past the call timeout (hangs the same calls do
# not show alone), which would be judged as its bugs.
original="$bundle/bin/cvm-runtime-worker"
if [ -x "$original" ]; then
  lists=adapters/cvm-runtime
  # No address-space limit on this worker (--worker-memory 0): the CUDA runtime reserves virtual
  # address space for the device's memory and the host's at start, and under the default 4 GiB
  # cap cudaGetDeviceCount fails with "out of memory", every call a runtime_error.
  def=(--backend-def "cvm-runtime-gpu=$original --device gpu" --worker-memory 0)
  # shellcheck disable=SC2317  # runs through step()
  # memcheck over the original's golden verify, judged by its list of known bad kernels (its own
  # bugs, docs/conformance/cvm-runtime.md) rather than by the sanitizer's exit status.
  original_memcheck() {
    limited compute-sanitizer --print-limit 1000 --tool memcheck --target-processes all "$cvm" \
      golden verify golden --call-timeout 60 "${def[@]}" --backend cvm-runtime-gpu \
      --xfail "$lists/known-differences.txt" --xfail "$lists/known-gpu.txt" >"$work/memcheck-original.txt" 2>&1 || true
    cat "$work/memcheck-original.txt"
    bash ci/sanitizer-known.sh "$work/memcheck-original.txt" "$lists/gpu-memcheck-kernels.txt"
  }
  step cvm-runtime-golden limited "$cvm" golden verify golden --call-timeout 20 "${def[@]}" \
    --backend cvm-runtime-gpu --xfail "$lists/known-differences.txt" --xfail "$lists/known-gpu.txt"
  step cvm-runtime-campaign timeout --kill-after=10 $((original_seconds + 120)) "$cvm" campaign \
    --seconds "$original_seconds" --call-timeout 20 --quiet --report "$out/cvm-runtime-campaign" "${def[@]}" \
    --backends cvm-runtime-gpu --xfail-for "cvm-runtime-gpu=$lists/known-differences.txt" \
    --xfail-for "cvm-runtime-gpu=$lists/known-gpu.txt"
  if command -v compute-sanitizer >/dev/null; then
    step memcheck-cvm-runtime original_memcheck
  fi
else
  printf 'cvm-runtime\tskipped: no cvm-runtime-worker in the bundle\t0\n' >>"$out/steps.tsv"
fi
# Alone on the device, so that nothing else shares its time: the benchmark, and where a cuda
# campaign call's time goes (cuda against the reference and cuda-host, as the speed figures of
# docs/performance.md were taken; --profile splits the phases), in one process and in one job
# per core.
step bench limited "$bundle/bin/cvmcheck_cuda_bench" --reps=10 --json="$out/bench.json"
step campaign-speed-1 limited "$cvm" campaign --backends cuda,cuda-host --seconds 30 --jobs 1 \
  --quiet --profile --allow-unreached-paths
step campaign-speed limited "$cvm" campaign --backends cuda,cuda-host --seconds 30 \
  --quiet --profile --allow-unreached-paths

# The summary: each step's status and time, and its last words where it failed.
failed=0
{
  echo "GPU job on: $(head -n 1 "$out/device.txt")"
  printf '%-16s %-10s %6s\n' step result seconds
  while IFS=$'\t' read -r name status secs; do
    case "$status" in
      0) result=passed ;;
      124|137) result="TIMED OUT"; failed=1 ;;
      skipped*) result="$status" ;;
      *) result="FAILED($status)"; failed=1 ;;
    esac
    printf '%-16s %-10s %6s\n' "$name" "$result" "$secs"
  done <"$out/steps.tsv"
  for log in "$out"/*.log; do
    name=$(basename "$log" .log)
    if ! grep -q "^$name	0	" "$out/steps.tsv"; then
      echo "--- $name (last lines)"
      tail -n 8 "$log"
    fi
  done
} >"$out/summary.txt"
cat "$out/summary.txt"
exit "$failed"
