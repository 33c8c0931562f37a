#!/usr/bin/env bash
# The test command of the README, and what CI runs (.ci/run):
#   0. the lint of the CI configuration (ci/lint.sh: actionlint, shellcheck) and the unit tests
#      of the CI gate's logic (tools/gate/test_gate.py), seconds;
#   1. release build (g++) and every test through ctest: unit tests, every record example on
#      every backend, golden/ through ONNX Runtime and TensorFlow.js (adapters/js-deps, whose npm
#      packages are installed first), the JavaScript worker codec, robustness, the per-operator RapidCheck properties, the planted-bug proof,
#      the golden fixtures (reproducible, every backend, the numpy consumer), corpus replay;
#      then the test binary run directly in shuffled order (ci/shuffled-tests.sh);
#   1b. the report page's browser tests (ci/browser-test.sh: Debian's chromium, headless, driven
#      by playwright-core; docs/report.md), about 10 s;
#   2. a fixed sample of kernel mutants (ci/mutation-sample.sh), each of which the cheap harness
#      modes must kill;
#   2b. the aarch64 cross build's nn unit tests and a 20-s campaign of conv2d and dense under
#      qemu-aarch64 (ci/arm64.sh --smoke: the NEON kernels, their paths and planted faults);
#   3. the same tests under ASan + UBSan (clang), where any sanitizer report fails (the test
#      binary directly, shuffled, and ctest for the script tests);
#   4. the libFuzzer smoke run over every target, and the proof that it finds each planted bug,
#      with the fuzz targets of that same sanitizer build (one sanitized compile, not two);
#   5. a night on a real single-node Slurm (ci/slurm.sh --smoke, root only; Slurm and munge
#      installed where missing): 4 campaign shards with a planted bug, one requeued in the
#      middle, a fuzz task, the merge job; the night's reports, store and page checked.
# CVMCHECK_PROP_CASES sets the property budget (default: the tests' own).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stamp() { echo "   ($(( $(date +%s) - start )) s elapsed)"; }

echo "== lint (actionlint, shellcheck) and the gate's unit tests"
bash ci/lint.sh
python3 tools/gate/test_gate.py 2>&1 | tail -n 3
stamp

echo "== npm packages of the JavaScript adapters (ONNX Runtime, TensorFlow.js)"
# ctest onnxruntime_adapter and tfjs_adapter replay golden/ through them (about a minute); without
# the packages (the npm registry unreachable) they report themselves skipped, saying why.
bash adapters/js-deps/install.sh ||
  echo "WARNING: adapters/js-deps/install.sh failed: the ONNX Runtime and TensorFlow.js tests will be skipped"
stamp

echo "== release build and tests"
bash ci/build.sh release
ctest --preset release
echo "== the test binary run directly, shuffled (no state may leak between tests)"
bash ci/shuffled-tests.sh build/bin/cvmcheck_tests
stamp

echo "== the report page in a real browser (headless chromium, playwright-core)"
bash ci/browser-test.sh build/bin/cvmcheck
stamp

echo "== mutation sample: a fixed set of kernel mutants must each be killed"
bash ci/mutation-sample.sh
stamp

echo "== ARM64 smoke: the aarch64 cross build's nn tests and a campaign under qemu-aarch64"
bash ci/arm64.sh --smoke
stamp

echo "== ASan + UBSan build and tests"
bash ci/build.sh asan-ubsan
# The gtest binary runs directly, shuffled, one process per core: ctest would start a sanitized
# process per test (over 3,000), which cost more than the tests themselves. ctest runs the
# others (golden, adapters, tools: the names without a dot), with the preset's sanitizer options.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
bash ci/shuffled-tests.sh build-asan/bin/cvmcheck_tests
ctest --preset asan-ubsan -E '[.]'
unset ASAN_OPTIONS UBSAN_OPTIONS
stamp

echo "== fuzz smoke run (every target) and planted-bug proof"
export CVMCHECK_FUZZ_PRESET=asan-ubsan
bash ci/fuzz-smoke.sh "${CVMCHECK_FUZZ_SECONDS:-10}"
bash ci/fuzz-planted.sh 60
stamp

echo "== a night on Slurm: shards, one requeued in the middle, a fuzz task, the merge job"
bash ci/slurm.sh --smoke
stamp
