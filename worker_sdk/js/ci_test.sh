#!/usr/bin/env bash
# The JavaScript worker codec's tests (ctest js_worker_codec): node's test runner over
# worker_sdk/js/test/, with the cvmcheck binary given (its `worker` command and `golden verify`
# drive the codec from the C++ side). Without node it prints the reason and exits 77 (ctest: skipped).
#
#   bash worker_sdk/js/ci_test.sh CVMCHECK_BINARY
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null; then
  echo "SKIP: no node (Debian: nodejs; ci/setup.sh installs it)"
  exit 77
fi
CVMCHECK_BINARY="$1" node --test "$here/test/"
