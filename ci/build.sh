#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release). Installs dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash ci/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
