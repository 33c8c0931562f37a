#!/usr/bin/env bash
# ci/sanitizer-known.sh (the original's memcheck, judged by its list of known bad kernels): a log
# whose errors are all in listed kernels passes, with the launch failures they cause; an access by
# an unlisted kernel, an unrelated API error, and errors past the print limit each fail it.
set -euo pipefail
judge="$1/ci/sanitizer-known.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '# kernels\ncvm::runtime::kernel_take_noaxis  [bug-a] reads past its indices\n' >"$dir/list"
printf 'void cvm::runtime::kernel_gemm_opt<(bool)0>(char4 *, int)  [bug-b] writes past C\n' >>"$dir/list"
access() {  # KIND KERNEL
  printf '========= Invalid __global__ %s of size 4 bytes\n=========     at %s+0x1a0\n' "$1" "$2"
  printf '=========     by thread (0,0,0) in block (0,0,0)\n'
}
launch_failure='========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaMemcpy.'
{
  echo '========= COMPUTE-SANITIZER'
  access read 'cvm::runtime::kernel_take_noaxis(const int *, const int *, int *, unsigned long, unsigned long)'
  access write 'void cvm::runtime::kernel_gemm_opt<(bool)0>(char4 *, char4 *, int *, int)'
  echo "$launch_failure"
  echo '========= ERROR SUMMARY: 3 errors'
} >"$dir/known.log"
fail=0
expect() {  # STATUS LOG TEXT
  local status=0 output
  output=$(bash "$judge" "$2" "$dir/list" 2>&1) || status=$?
  if [ "$status" != "$1" ] || ! grep -qF -- "$3" <<<"$output"; then
    echo "FAIL: $2: status $status (want $1), output lacks '$3':"; echo "$output"; fail=1
  fi
}
expect 0 "$dir/known.log" "known: 1 launch failures after a known bad access"
{ cat "$dir/known.log"; access read 'cvm::runtime::kernel_other(int *)'; } >"$dir/unlisted.log"
expect 1 "$dir/unlisted.log" "UNEXPLAINED: cvm::runtime::kernel_other"
{ echo "$launch_failure"; echo '========= ERROR SUMMARY: 1 error'; } >"$dir/alone.log"
expect 1 "$dir/alone.log" "UNEXPLAINED: Program hit cudaErrorLaunchFailure"
sed 's/ERROR SUMMARY: 3 errors/ERROR SUMMARY: 30 errors/' "$dir/known.log" >"$dir/hidden.log"
expect 1 "$dir/hidden.log" "past --print-limit"
expect 64 /nonexistent "Usage"
[ "$fail" = 0 ] && echo "sanitizer_known: 5 logs judged as expected"
exit "$fail"
