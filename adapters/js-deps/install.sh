#!/usr/bin/env bash
# Installs the npm packages of the JavaScript adapters (adapters/onnxruntime, adapters/tfjs) into
# adapters/js-deps/node_modules (ignored by git), at the versions of package.json and
# package-lock.json: onnxruntime-node (its CPU binaries ship inside the package), onnx-proto (the
# ONNX protobuf classes, on protobufjs), @tensorflow/tfjs-core and @tensorflow/tfjs-backend-cpu
# (TensorFlow.js's pure JavaScript CPU backend).
#
#   bash adapters/js-deps/install.sh
#
# No install script of any package runs (--ignore-scripts): onnxruntime-node's would download
# its CUDA execution provider from outside the npm registry (ONNXRUNTIME_NODE_INSTALL=skip says
# the same, for an npm that runs it anyway). Needs node and npm (ci/setup.sh installs both).
# Idempotent: with node_modules matching the lock file it does nothing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
command -v npm >/dev/null || { echo "install.sh: no npm (Debian: apt-get install npm; ci/setup.sh)" >&2; exit 1; }
stamp="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat node_modules/.cvmcheck-lock-sha256 2>/dev/null)" = "$stamp" ]; then
  echo "install.sh: $here/node_modules is up to date"
  exit 0
fi
start=$(date +%s)
ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
echo "$stamp" > node_modules/.cvmcheck-lock-sha256
echo "install.sh: installed into $here/node_modules in $(( $(date +%s) - start )) s," \
     "$(du -sh node_modules | cut -f1)"
