// The one warp-level hardware primitive of the int8 GEMM kernels: mma.sync m16n8k32, s8 x s8 ->
// s32 (PTX ISA, "Matrix fragments for mma.m16n8k32"), and where each lane's fragment elements
// sit in the 16x32 A, 32x8 B and 16x8 C tiles.
//
// Two halves, written apart on purpose:
// - The fragment layout functions (frag_a_*, frag_b_*, frag_c_*) are what the kernels use to
//   load fragments from shared memory and to store accumulators: register form (one 32-bit
//   register holds 4 int8 consecutive along K).
// - The host emulation (mma_emulate) is the hardware: it rebuilds A, B and C from the lanes'
//   registers with the PTX table's own element-index formulas, multiplies exactly and scatters D
//   back. Because it does not call the layout functions, a wrong fragment index in them makes
//   cuda-host disagree with the reference instead of being mirrored by the emulation.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/device_common.h"

namespace cvm::cuda {

inline constexpr int kMmaM = 16;  // rows of A and C
inline constexpr int kMmaN = 8;   // columns of B and C
inline constexpr int kMmaK = 32;  // the depth one mma consumes

// One lane's fragments: A 4 registers (16 int8), B 2 registers (8 int8), C 4 int32.
struct FragA {
  uint32_t r[4];
};
struct FragB {
  uint32_t r[2];
};
struct FragC {
  int32_t c[4];
};

// The lane's group (the row of A/C, the column of B it serves) and its index in the group.
CVM_HD int32_t lane_group(int32_t lane) { return lane >> 2; }
CVM_HD int32_t lane_in_group(int32_t lane) { return lane & 3; }

// A register r (0..3) of `lane`: 4 int8 of row frag_a_row, columns frag_a_col .. +3.
CVM_HD int32_t frag_a_row(int32_t lane, int32_t r) { return lane_group(lane) + 8 * (r & 1); }
CVM_HD int32_t frag_a_col(int32_t lane, int32_t r) {
  return 4 * lane_in_group(lane) + 16 * (r >> 1);
}
// B register r (0..1) of `lane`: 4 int8 of column frag_b_col, depths frag_b_k .. +3.
CVM_HD int32_t frag_b_col(int32_t lane) { return lane_group(lane); }
CVM_HD int32_t frag_b_k(int32_t lane, int32_t r) { return 4 * lane_in_group(lane) + 16 * r; }
// Accumulator element i (0..3) of `lane`.
CVM_HD int32_t frag_c_row(int32_t lane, int32_t i) { return lane_group(lane) + 8 * (i >> 1); }
CVM_HD int32_t frag_c_col(int32_t lane, int32_t i) { return 2 * lane_in_group(lane) + (i & 1); }

// 4 int8 at p (4-byte aligned in shared memory) as one register, lowest address in the low byte
// (the order mma.sync reads a register's elements in). memcpy on the host: no aliasing UB.
CVM_HD uint32_t load_word(const int8_t* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint32_t*>(p);
#else
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;  // little-endian hosts only, as every CUDA host is
#endif
}

#if defined(__CUDACC__)
// d = a * b + c for the warp; every lane passes its own fragments.
__device__ inline void mma_sync(FragC& acc, const FragA& a, const FragB& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+r"(acc.c[0]), "+r"(acc.c[1]), "+r"(acc.c[2]), "+r"(acc.c[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
#else
  __trap();  // int8 mma.sync needs sm_80+; the build targets sm_90
#endif
}
#endif

// Host emulation of one warp's mma.sync: a, b, acc indexed by lane. The element formulas are
// the PTX table's (element i of a lane), not the register-form functions above.
inline void mma_emulate(FragC acc[kWarp], const FragA a[kWarp], const FragB b[kWarp]) {
  int32_t ma[kMmaM][kMmaK] = {};
  int32_t mb[kMmaK][kMmaN] = {};
  for (int32_t lane = 0; lane < kWarp; ++lane) {
    const int32_t g = lane >> 2, t = lane % 4;
    for (int32_t i = 0; i < 16; ++i) {  // a0..a15: register i / 4, byte i % 4
      const int32_t row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
      const int32_t col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
      ma[row][col] = static_cast<int8_t>((a[lane].r[i / 4] >> (8 * (i % 4))) & 0xff);
    }
    for (int32_t i = 0; i < 8; ++i) {  // b0..b7
      const int32_t k = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);
      mb[k][g] = static_cast<int8_t>((b[lane].r[i / 4] >> (8 * (i % 4))) & 0xff);
    }
  }
  int32_t d[kMmaM][kMmaN];
  for (int32_t lane = 0; lane < kWarp; ++lane) {  // C in: c0..c3
    const int32_t g = lane >> 2, t = lane % 4;
    for (int32_t i = 0; i < 4; ++i) d[i < 2 ? g : g + 8][t * 2 + (i & 1)] = acc[lane].c[i];
  }
  // The contract bounds every partial sum below 2^31 (int8 x int8, output precision <= 32), so
  // int32 is exact whatever order the hardware adds in.
  for (int32_t m = 0; m < kMmaM; ++m) {
    for (int32_t n = 0; n < kMmaN; ++n) {
      for (int32_t k = 0; k < kMmaK; ++k) d[m][n] += ma[m][k] * mb[k][n];
    }
  }
  for (int32_t lane = 0; lane < kWarp; ++lane) {
    const int32_t g = lane >> 2, t = lane % 4;
    for (int32_t i = 0; i < 4; ++i) acc[lane].c[i] = d[i < 2 ? g : g + 8][t * 2 + (i & 1)];
  }
}

}  // namespace cvm::cuda
