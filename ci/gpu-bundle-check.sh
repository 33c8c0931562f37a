#!/usr/bin/env bash
# The ctest gpu_bundle_no_device: a bundle packed from this build (ci/gpu-bundle.sh --from)
# runs through its gpu.sh --bundle and, on a machine without a CUDA device, stops with status 3
# and says that no device was found. Skipped (77) where the build has no CUDA backend, or where
# a device is present (then the GPU job itself is the check).
# Usage: ci/gpu-bundle-check.sh BUILD_BIN_DIR
set -uo pipefail
bin_dir="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! grep -q '^CVMCHECK_CUDA:BOOL=ON' "$bin_dir/../CMakeCache.txt" 2>/dev/null; then
  echo "skipped: this build has no CUDA backend (CVMCHECK_CUDA is off)"
  exit 77
fi
ops=$("$bin_dir/cvmcheck" ops)
if ! grep -q 'cuda(unavailable' <<<"$ops"; then
  echo "skipped: a CUDA device is present here; ci/gpu.sh is the check"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/ci/gpu-bundle.sh" --from "$bin_dir" --out "$tmp/bundle" || exit 1
status=0
bash "$tmp/bundle/gpu.sh" --bundle "$tmp/bundle" --out "$tmp/reports" >"$tmp/log" 2>&1 || status=$?
cat "$tmp/log"
if [ "$status" != 3 ]; then
  echo "FAILED: expected exit status 3 (no CUDA device), got $status"
  exit 1
fi
if ! grep -q 'no CUDA device found, nothing was checked' "$tmp/log"; then
  echo "FAILED: the no-device message is missing"
  exit 1
fi
echo "passed: no device, exit status 3"
