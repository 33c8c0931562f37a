// The warp primitives of the fast kernels (shuffle and ballot), on the device and emulated on
// the host, exactly: cuda-host runs a warp's lanes one after another up to a primitive, then
// the primitive over all 32 lane values at once, as the hardware does. A kernel's per-lane work
// is CVM_HD code that both call; only these primitives differ.
#pragma once

#include "cuda/device_common.h"

namespace cvm::cuda {

// The last offset of a shuffle-down reduction tree (16, 8, 4, 2, 1): 1, or 2 under the planted
// fault that skips the tree's last level.
CVM_HD int32_t tree_last_offset(int32_t planted) {
  return planted_fault(planted) == kFaultWarpShuffle ? 2 : 1;
}

#if defined(__CUDACC__)
__device__ inline int32_t lane_id() { return static_cast<int32_t>(threadIdx.x % kWarp); }
__device__ inline int32_t shfl_down(int32_t v, int32_t offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}
__device__ inline int64_t shfl_down(int64_t v, int32_t offset) {
  return static_cast<int64_t>(
      __shfl_down_sync(0xffffffffu, static_cast<long long>(v), offset));
}
__device__ inline uint32_t ballot(bool predicate) {
  return __ballot_sync(0xffffffffu, predicate ? 1 : 0);
}
__device__ inline uint64_t shfl(uint64_t v, int32_t source) {
  return static_cast<uint64_t>(
      __shfl_sync(0xffffffffu, static_cast<unsigned long long>(v), source));
}

// Lane 0 gets combine() of every lane's value (T: a type with shfl_down overloads).
template <class T, class Combine>
__device__ T warp_reduce(T v, int32_t planted, Combine combine) {
  for (int32_t offset = kWarp / 2; offset >= tree_last_offset(planted); offset /= 2) {
    v = combine(v, shfl_down(v, offset));
  }
  return v;
}
#endif

// Host emulation over the 32 lanes' values. __shfl_down_sync gives lane l the value of lane
// l + offset, or its own where that lane is past the warp; every lane reads before any writes.
template <class T, class Combine>
void warp_reduce_emulated(T (&lanes)[kWarp], int32_t planted, Combine combine) {
  for (int32_t offset = kWarp / 2; offset >= tree_last_offset(planted); offset /= 2) {
    T got[kWarp];
    for (int32_t l = 0; l < kWarp; ++l) got[l] = l + offset < kWarp ? lanes[l + offset] : lanes[l];
    for (int32_t l = 0; l < kWarp; ++l) lanes[l] = combine(lanes[l], got[l]);
  }
}

// __ballot_sync: bit l set where lane l's predicate holds.
inline uint32_t ballot_emulated(const bool (&predicates)[kWarp]) {
  uint32_t mask = 0;
  for (int32_t l = 0; l < kWarp; ++l) mask |= predicates[l] ? uint32_t{1} << l : 0;
  return mask;
}

// The lanes below lane l, as a mask (%lanemask_lt).
CVM_HD uint32_t lanes_below(int32_t lane) { return (uint32_t{1} << lane) - 1; }

// popcount as a loop (host and device run the same code; the device has __popc, which the
// compiler makes of this loop anyway where it can).
CVM_HD int32_t count_bits(uint32_t m) {
  int32_t n = 0;
  for (; m != 0; m &= m - 1) ++n;
  return n;
}

}  // namespace cvm::cuda
