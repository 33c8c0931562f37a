#!/usr/bin/env bash
# The GPU job (a self-hosted runner with an NVIDIA GPU and the CUDA toolkit; docs/cuda.md):
# the release build with nvcc, every test with the `cuda` backend available, the golden suite
# on the device, a campaign of `cuda` against the reference and `cuda-host`, and the kernels
# under compute-sanitizer when it is installed. Fails when the `cuda` backend is unavailable:
# a GPU job that checked nothing must not pass.
# Usage: ci/gpu.sh [CAMPAIGN_SECONDS]   (reports under reports/gpu/)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
out=reports/gpu
mkdir -p "$out"
bash ci/build.sh release
if ! build/bin/cvmcheck ops --json | python3 -c \
    'import json, sys; b = {x["name"]: x for x in json.load(sys.stdin)["backends"]}
sys.exit(0 if b.get("cuda", {}).get("available") else 1)'; then
  echo "ci/gpu.sh: the cuda backend is unavailable here:" >&2
  build/bin/cvmcheck ops | grep -i cuda >&2 || true
  exit 1
fi
status=0
ctest --preset release --output-junit "$PWD/$out/ctest.xml" || status=1
build/bin/cvmcheck golden verify golden --backend cuda || status=1
build/bin/cvmcheck campaign --backends cuda,cuda-host --seconds "$seconds" --quiet \
  --report "$out/campaign" || status=1
if command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 1 build/bin/cvmcheck_tests \
    --gtest_filter='CudaDevice*:*cuda_*' >"$out/memcheck.log" 2>&1 || status=1
  compute-sanitizer --tool racecheck --error-exitcode 1 build/bin/cvmcheck_tests \
    --gtest_filter='CudaDevice*' >"$out/racecheck.log" 2>&1 || status=1
  compute-sanitizer --tool initcheck --error-exitcode 1 build/bin/cvmcheck golden verify \
    golden --backend cuda >"$out/initcheck.log" 2>&1 || status=1
  tail -n 2 "$out"/*check.log
else
  echo "ci/gpu.sh: compute-sanitizer not found; the sanitizer runs were skipped"
fi
exit "$status"
