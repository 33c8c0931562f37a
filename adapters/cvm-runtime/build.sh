#!/usr/bin/env bash
# Builds the original CVM runtime from a checkout given by path (never copied into this
# repository) and the cvmcheck worker against it.
#
#   bash adapters/cvm-runtime/build.sh [--cuda] CVM_RUNTIME_DIR [BUILD_DIR]
#
# BUILD_DIR defaults to build-cvm-runtime/ at the repository root (build-cvm-runtime-cuda/ with
# --cuda; both ignored by git). Results:
#   BUILD_DIR/runtime/libcvm_runtime.so       the original's runtime library, formal + cpu backends
#                                             (+ gpu with --cuda)
#   BUILD_DIR/bin/cvm-runtime-worker          the worker (--device formal|cpu|gpu), rpath to the above
#   BUILD_DIR/cvm-runtime.commit              the commit built (or "unknown (not a git checkout)")
#
# The runtime is configured with the options of its own cmake/config.cmake except that the
# formal backend is switched on (ENABLE_CPU=ON ENABLE_FORMAL=ON ENABLE_CUDA=OFF
# ENABLE_OPENCL=OFF) and only its runtime library target is built. Nothing in the checkout is
# patched or written: the build is out of tree.
#
# --cuda also builds the original's CUDA backend (ENABLE_CUDA=ON) for sm_90, with two nvcc
# options that its sources need under CUDA 12 and later, both from this adapter: cuda_compat.h
# pre-included (conv.cu declares legacy texture references; the header gives them a type) and
# -std=c++17 (the CUDA 13 headers require it). CUDA_ARCH overrides the architecture (90).
#
# CVM_RUNTIME_CXXFLAGS adds compiler flags to both builds, e.g. -D_GLIBCXX_ASSERTIONS (checked
# std::vector::operator[], which makes the bug nms-shape-clear abort) or -fsanitize=address.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cuda=OFF
if [ "${1:-}" = --cuda ]; then cuda=ON; shift; fi
src="${1:?usage: build.sh [--cuda] CVM_RUNTIME_DIR [BUILD_DIR]}"
src="$(cd "$src" && pwd)"
default_out="$root/build-cvm-runtime"
[ "$cuda" = ON ] && default_out="$root/build-cvm-runtime-cuda"
out="${2:-$default_out}"
mkdir -p "$out/bin"
out="$(cd "$out" && pwd)"

[ -f "$src/CMakeLists.txt" ] && [ -f "$src/include/cvm/c_api.h" ] ||
  { echo "build.sh: $src is not a cvm-runtime checkout" >&2; exit 2; }
if [ -f "$src/config.cmake" ]; then
  # The original's CMakeLists includes config.cmake from the source tree, which would override
  # the options given here.
  echo "build.sh: $src/config.cmake exists and would override the build options; move it away" >&2
  exit 2
fi
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
  commit="$(git -C "$src" rev-parse HEAD)"
  if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then commit="$commit (modified)"; fi
else
  commit="unknown (not a git checkout)"
fi
echo "$commit" > "$out/cvm-runtime.commit"
echo "build.sh: cvm-runtime $commit"

jobs="${JOBS:-$(nproc)}"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cuda_args=()
if [ "$cuda" = ON ]; then
  arch="${CUDA_ARCH:-90}"
  cuda_args=(-DCUDA_NVCC_FLAGS="-gencode=arch=compute_$arch,code=sm_$arch;--pre-include=$here/cuda_compat.h;-std=c++17")
  [ -d /usr/local/cuda ] && cuda_args+=(-DCUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda)
fi
cmake -S "$src" -B "$out/runtime" "${gen[@]}" "${launcher[@]}" \
  -DENABLE_CPU=ON -DENABLE_FORMAL=ON -DENABLE_CUDA="$cuda" -DENABLE_OPENCL=OFF \
  ${cuda_args[@]+"${cuda_args[@]}"} -DCMAKE_CXX_FLAGS="${CVM_RUNTIME_CXXFLAGS:-}" >/dev/null
cmake --build "$out/runtime" --target cvm_runtime -j "$jobs"

CXX="${CXX:-g++}"
# A --coverage build: the worker's forked children write their counters with __gcov_dump before
# _exit (worker.cc refers to it weakly, which alone links nothing in).
worker_ldflags=()
case "${CVM_RUNTIME_CXXFLAGS:-}" in *--coverage*) worker_ldflags=(-Wl,-u,__gcov_dump) ;; esac
# -fsigned-char as the original's own build and test programs use. model_probe.cc includes the
# original's src/runtime/graph_runtime.h: whole models run entry by entry through its CvmRuntime.
# shellcheck disable=SC2086
$CXX -std=c++17 -O2 -fsigned-char -Wall -Wno-unknown-pragmas ${CVM_RUNTIME_CXXFLAGS:-} \
  -I"$root/worker_sdk/include" -I"$root/core/include" -I"$src/include" -I"$src/src/runtime" \
  "$here/worker.cc" "$here/model_runner.cc" "$here/model_probe.cc" -o "$out/bin/cvm-runtime-worker" \
  -L"$out/runtime" -lcvm_runtime -Wl,-rpath,"$out/runtime" -pthread -ldl ${worker_ldflags[@]+"${worker_ldflags[@]}"}
echo "build.sh: $out/bin/cvm-runtime-worker"
