#!/usr/bin/env bash
# ARM64 on an x86 machine (docs/architecture.md, "What runs where"): cross-builds the arm64 preset
# (cmake/aarch64-linux-gnu.cmake: Debian's g++-aarch64-linux-gnu and arm64 multiarch libraries,
# which ci/setup.sh --arm64 installs) and runs the aarch64 binaries under qemu-aarch64 (user
# mode, -L the cross toolchain's root), whose default CPU has the dot product (FEAT_DotProd), so
# the NEON kernels run; QEMU_CPU=cortex-a53 (none) runs the portable ones instead.
#   ci/arm64.sh --smoke   what CI runs (ci/test.sh): the nn unit tests (cvmcheck_nn_tests: the
#                         dispatch, the conv2d and dense paths of every ISA, the NEON planted
#                         faults) and a 20-s campaign of conv2d and dense; builds only those two.
#   ci/arm64.sh           the nightly: every test of the aarch64 test binary, then a 60-s campaign
#                         over every operator of optimized and its ARM variants against the
#                         reference, and a 60-s one of conv2d alone, which must reach every
#                         declared conv2d path (emulated, 60 s of every operator make some 800
#                         conv2d calls, too few to judge its panel paths: as on x86, conv2d's
#                         paths are a run of its own, tests/paths_test.cc).
# Nothing here is timed: emulated code's speed says nothing of an ARM CPU's (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=full
case "${1:-}" in
  --smoke) mode=smoke ;;
  "") ;;
  *)
    echo "usage: ci/arm64.sh [--smoke]" >&2
    exit 2
    ;;
esac
bash ci/setup.sh --arm64
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
cmake --preset arm64 >/dev/null
emulate=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
# cvmcheck re-executes itself to set this (tools/cvmcheck/main.cc), which the host kernel cannot
# do for an aarch64 binary: set here, the re-execution is skipped.
export OMP_WAIT_POLICY=passive
backends=optimized,optimized/neon-dotprod,optimized/portable,optimized@3
if [[ $mode == smoke ]]; then
  cmake --build --preset arm64 --target cvmcheck_nn_tests cvmcheck
  echo "== aarch64 nn unit tests under qemu-aarch64"
  "${emulate[@]}" build-arm64/bin/cvmcheck_nn_tests --gtest_brief=1
  campaign=(--seconds 20 --ops "conv2d,dense")
else
  cmake --build --preset arm64 --target cvmcheck_tests
  echo "== aarch64 unit tests under qemu-aarch64"
  # Two tests watch a process from outside in ways qemu-user does not reproduce; they run in
  # every x86 run and would run on an ARM machine: MrtStopsAtACaseBoundary waits for the CLI's
  # SIGTERM handler in /proc/PID/status (SigCgt), where qemu shows its own handlers for every
  # signal from the start, so the signal comes before the guest's handler; and
  # AMemoryBlowUpIsStoppedByTheRlimit expects the worker's allocation to fail under RLIMIT_AS,
  # which qemu's own address-space reservation turns into a hang.
  "${emulate[@]}" build-arm64/bin/cvmcheck_tests --gtest_brief=1 \
    --gtest_filter=-CampaignStopTest.MrtStopsAtACaseBoundary:WorkerClient.AMemoryBlowUpIsStoppedByTheRlimit
  campaign=(--seconds 60)
fi
echo "== aarch64 campaign under qemu-aarch64: $backends against the reference"
"${emulate[@]}" build-arm64/bin/cvmcheck campaign --backends "$backends" --seed 55 \
  --report reports/arm64 "${campaign[@]}"
if [[ $mode == full ]]; then
  echo "== aarch64 conv2d campaign under qemu-aarch64: every declared conv2d path required"
  "${emulate[@]}" build-arm64/bin/cvmcheck campaign --backends "$backends" --seed 55 \
    --report reports/arm64-conv2d --ops conv2d --seconds 60 --require-paths
fi
