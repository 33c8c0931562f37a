#!/usr/bin/env bash
# Packs everything the GPU job needs into one folder that runs on a bare GPU machine (the NVIDIA
# driver and CUDA toolkit there, no package registry, none of our Debian libraries):
#   bin/     cvmcheck, cvmcheck_tests, cvmcheck_cuda_bench and the tests' workers (stripped);
#   lib/     every shared library they load that such a machine lacks: all but the C library's
#            own, the driver's libcuda and the toolkit's cuBLAS/cuBLASLt (hundreds of MiB; the
#            run takes the machine's);
#   source.tar.gz  the source tree as the tests, golden verify and the campaign read it (golden/,
#            golden-mrt/, corpus/, docs/, worker_sdk/, tools/, ci/);
#   gpu.sh   this checkout's ci/gpu.sh; MANIFEST.txt what was packed, from which commit;
#   with the original runtime's GPU build (adapters/cvm-runtime/build.sh --cuda, found in
#   build-cvm-runtime-cuda/ or named by --cvm-runtime): its worker in bin/ and its library in
#   lib/, which gpu.sh then diffs too (docs/conformance/cvm-runtime.md).
# Then, on the GPU machine: bash DIR/gpu.sh --bundle DIR [--out REPORTS] (docs/cuda.md).
# Usage: ci/gpu-bundle.sh [--out DIR] [--no-build] [--from BUILD_BIN_DIR] [--cvm-runtime BUILD_DIR]
# Fails when the build has no CUDA backend or the folder would exceed 64 MiB.
set -euo pipefail
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/gpu-bundle"
build=1
bin_dir="$root/build/bin"
cvm_runtime="$root/build-cvm-runtime-cuda"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$(absolute "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --from) bin_dir=$(absolute "$2"); build=0; shift 2 ;;
    --cvm-runtime) cvm_runtime=$(absolute "$2"); shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/gpu-bundle.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
cd "$root"
limit=$((64 << 20))
start=$(date +%s)

if [ "$build" = 1 ]; then
  bash ci/build.sh release
fi
cache="$bin_dir/../CMakeCache.txt"
if ! grep -q '^CVMCHECK_CUDA:BOOL=ON' "$cache" 2>/dev/null; then
  echo "ci/gpu-bundle.sh: $bin_dir is not from a build with the CUDA backend (nvcc not found?)" >&2
  exit 2
fi

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
binaries=(cvmcheck cvmcheck_tests cvmcheck_cuda_bench example_cpp_worker broken_worker breaking_proxy)
paths=()
for b in "${binaries[@]}"; do
  [ -x "$bin_dir/$b" ] || { echo "ci/gpu-bundle.sh: $bin_dir/$b is missing" >&2; exit 2; }
  strip --strip-unneeded -o "$out/bin/$b" "$bin_dir/$b"
  paths+=("$bin_dir/$b")
done
# The original runtime's GPU backend, when built: the worker finds its library in lib/ (the
# rpath of the build folder is absent there, so LD_LIBRARY_PATH decides).
if [ -x "$cvm_runtime/bin/cvm-runtime-worker" ] && [ -f "$cvm_runtime/runtime/libcvm_runtime.so" ]; then
  strip --strip-unneeded -o "$out/bin/cvm-runtime-worker" "$cvm_runtime/bin/cvm-runtime-worker"
  strip --strip-unneeded -o "$out/lib/libcvm_runtime.so" "$cvm_runtime/runtime/libcvm_runtime.so"
  cp "$cvm_runtime/cvm-runtime.commit" "$out/cvm-runtime.commit"
  paths+=("$cvm_runtime/bin/cvm-runtime-worker")
fi

# The libraries: what the binaries load here, less what every Linux machine with the NVIDIA
# driver and the CUDA toolkit has (and must provide itself: the C library matches its kernel,
# libcuda its driver).
provided='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libcuda|libcublas|libcublasLt|libnvrtc|libnvrtc-builtins|libnvidia-.*)\.so'
for b in "${paths[@]}"; do ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
  sort -u | while read -r lib; do
    name=$(basename "$lib")
    if ! [[ "$name" =~ $provided ]] && [ ! -f "$out/lib/$name" ]; then cp -L "$lib" "$out/lib/$name"; fi
  done

git ls-files -co --exclude-standard | grep -v -E '^(gpu-bundle|reports|build[^/]*)/' |
  tar czf "$out/source.tar.gz" -T -
cp ci/gpu.sh "$out/gpu.sh"

# The newest C library symbol version any packed file needs: the GPU machine's must be as new.
glibc=$(for f in "$out"/bin/* "$out"/lib/*; do objdump -T "$f" 2>/dev/null; done |
  grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n 1)
{
  echo "cvmcheck GPU bundle"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo "nvcc targets: $(grep -o -E 'arch=compute_[0-9a-z]+,code=[^ "]+' "$bin_dir/../compile_commands.json" |
    sort -u | tr '\n' ' ')"
  echo "needs: $glibc or newer, the NVIDIA driver (libcuda), the CUDA toolkit's cuBLASLt"
  echo "files:"
  (cd "$out" && find . -type f ! -name MANIFEST.txt -printf '  %P %s\n' | sort)
} >"$out/MANIFEST.txt"

size=$(du -sb "$out" | cut -f1)
echo "ci/gpu-bundle.sh: $out: $((size >> 20)) MiB ($size bytes), $(find "$out/lib" -type f | wc -l) libraries, built in $(( $(date +%s) - start )) s"
if [ "$size" -gt "$limit" ]; then
  echo "ci/gpu-bundle.sh: $out is over 64 MiB" >&2
  exit 1
fi
