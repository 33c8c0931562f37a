#!/usr/bin/env bash
# Prints the fuzz targets, one per line: "all", then one per operator family in the order of the
# family list (core/op_list.json, generated from cvmcheck/op_list.h), as fuzz/CMakeLists.txt
# derives them, then the targets that fuzz no operator call: worker_reply (the worker protocol's
# decoders), declared by name in fuzz/CMakeLists.txt. With --operators, only the operator targets
# (those that `cvmcheck corpus` seeds and `cvmcheck repro` decodes).
set -euo pipefail
cd "$(dirname "$0")/.."
echo all
python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)["families"]))' < core/op_list.json
[ "${1:-}" = "--operators" ] || echo worker_reply
