// Precision arithmetic of the contract: alpha(p), bitlen(k), and the limits on tensors.
#pragma once

#include <cstdint>

namespace cvm {

inline constexpr int kMinPrecision = 1;
inline constexpr int kMaxPrecision = 32;

// Tensor limits (contract 1.1). Checked before any allocation of that size.
inline constexpr int kMaxNdim = 6;
inline constexpr int64_t kMaxDim = int64_t{1} << 24;
inline constexpr int64_t kMaxElements = int64_t{1} << 30;

// Attribute range constants (contract 1.2): ranges are [min_attr, max_attr) exclusive.
inline constexpr int64_t kMaxAttr = 4096;

// alpha(p) = 2^(p-1) - 1: the largest magnitude a value of precision p may have.
constexpr int64_t alpha(int p) { return (int64_t{1} << (p - 1)) - 1; }

// Number of significant bits of k > 0 (bitlen(1) = 1, bitlen(4) = 3); bitlen(0) = 0.
constexpr int bitlen(uint64_t k) {
  int bits = 0;
  while (k != 0) {
    ++bits;
    k >>= 1;
  }
  return bits;
}

constexpr bool fits_precision(int64_t v, int p) { return v <= alpha(p) && v >= -alpha(p); }

}  // namespace cvm
