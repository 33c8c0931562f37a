#!/usr/bin/env bash
# The JavaScript adapters' test (ctest onnxruntime_adapter, tfjs_adapter): golden/ replayed through
# the adapter's worker by `cvmcheck golden verify`, against its known differences (the list the
# campaign applies, adapters/ADAPTER/known-differences.txt); an unexpected failure fails the test
# (an expected failure that passes is reported, not failed).
#
#   bash adapters/js-deps/ci_test.sh onnxruntime|tfjs CVMCHECK_BINARY
#
# Without node, or without the npm packages (bash adapters/js-deps/install.sh installs them), it
# prints the reason and exits 77, which ctest reports as skipped.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
adapter="$1"
cvmcheck="$2"
case "$adapter" in
  onnxruntime) packages=(onnxruntime-node onnx-proto) ;;
  tfjs) packages=(@tensorflow/tfjs-core @tensorflow/tfjs-backend-cpu) ;;
  *) echo "ci_test.sh: unknown adapter '$adapter'" >&2; exit 2 ;;
esac
if ! command -v node >/dev/null; then
  echo "SKIP: no node (Debian: nodejs; ci/setup.sh installs it)"
  exit 77
fi
missing="$(node -e 'console.log(require(process.argv[1]).missing(process.argv.slice(2)).join(" "))' \
            "$here/deps.js" "${packages[@]}")"
if [ -n "$missing" ]; then
  echo "SKIP: npm packages not installed: $missing (bash adapters/js-deps/install.sh installs them into" \
       "adapters/js-deps/node_modules)"
  exit 77
fi
"$cvmcheck" golden verify "$root/golden" --call-timeout 60 \
  --backend-def "$adapter=node $root/adapters/$adapter/worker.js" --backend "$adapter" \
  --xfail-for "$adapter=$root/adapters/$adapter/known-differences.txt"
