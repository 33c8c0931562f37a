// The intrinsics the ISA kernel files use that SIMDe 0.7.4 (Debian's libsimde-dev) lacks, or
// implements unlike the hardware in a way that matters here, for the emulated twins only
// (optimized/isa_twin.h includes this after SIMDe when CVM_ISA_TWIN is defined). Each is written
// lane by lane from the instruction's definition in Intel's SDM:
// - vpmovdb and vpmovwb truncate (keep each lane's low byte); vpmovsxbd sign-extends.
// - Masked loads and stores touch only the lanes of the mask: the hardware suppresses faults on
//   the others, and the kernels use that at the end of a buffer. SIMDe's _mm256_maskload_epi32
//   loads all eight lanes and then clears some, a read past the buffer, so it is replaced too.
// - vpdpbusd (AVX-512 VNNI's _mm512_dpbusd_epi32, and AVX-VNNI's VEX form
//   _mm256_dpbusd_avx_epi32, the same non-saturating u8 x s8 sums) adds modulo 2^32, which the
//   kernels rely on (nn_gemm.h): SIMDe adds in signed int32 (wrapping in its vector-extension
//   code, undefined behaviour in its scalar fallback), so the twins use a uint32 sum here.
#pragma once

#ifndef CVM_ISA_TWIN
#error "optimized/simde_fallbacks.h is for the emulated twins (optimized/isa_twin.h)"
#endif

#include <cstdint>
#include <cstring>

namespace cvm::opt::twin {

template <typename To, typename From>
inline To bits(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

struct I32x16 { int32_t v[16]; };
struct I32x8 { int32_t v[8]; };
struct I16x16 { int16_t v[16]; };
struct I8x16 { int8_t v[16]; };
struct I8x64 { int8_t v[64]; };

inline bool lane_on(uint64_t mask, int i) { return ((mask >> i) & 1u) != 0; }

inline simde__m128i mm512_maskz_cvtepi32_epi8(simde__mmask16 k, simde__m512i a) {
  const I32x16 in = bits<I32x16>(a);
  I8x16 out{};
  for (int i = 0; i < 16; ++i) {
    if (lane_on(k, i)) out.v[i] = static_cast<int8_t>(static_cast<uint8_t>(in.v[i] & 0xFF));
  }
  return bits<simde__m128i>(out);
}

inline simde__m512i mm512_maskz_cvtepi8_epi32(simde__mmask16 k, simde__m128i a) {
  const I8x16 in = bits<I8x16>(a);
  I32x16 out{};
  for (int i = 0; i < 16; ++i) {
    if (lane_on(k, i)) out.v[i] = in.v[i];
  }
  return bits<simde__m512i>(out);
}

inline simde__m128i mm256_cvtepi16_epi8(simde__m256i a) {
  const I16x16 in = bits<I16x16>(a);
  I8x16 out{};
  for (int i = 0; i < 16; ++i) out.v[i] = static_cast<int8_t>(static_cast<uint8_t>(in.v[i] & 0xFF));
  return bits<simde__m128i>(out);
}

inline simde__m128i mm_maskz_loadu_epi8(simde__mmask16 k, const void* p) {
  I8x16 out{};
  for (int i = 0; i < 16; ++i) {
    if (lane_on(k, i)) std::memcpy(&out.v[i], static_cast<const int8_t*>(p) + i, 1);
  }
  return bits<simde__m128i>(out);
}

inline simde__m512i mm512_maskz_loadu_epi8(simde__mmask64 k, const void* p) {
  I8x64 out{};
  for (int i = 0; i < 64; ++i) {
    if (lane_on(k, i)) std::memcpy(&out.v[i], static_cast<const int8_t*>(p) + i, 1);
  }
  return bits<simde__m512i>(out);
}

inline simde__m512i mm512_maskz_loadu_epi32(simde__mmask16 k, const void* p) {
  I32x16 out{};
  for (int i = 0; i < 16; ++i) {
    if (lane_on(k, i)) std::memcpy(&out.v[i], static_cast<const char*>(p) + 4 * i, 4);
  }
  return bits<simde__m512i>(out);
}

inline void mm512_mask_storeu_epi32(void* p, simde__mmask16 k, simde__m512i a) {
  const I32x16 in = bits<I32x16>(a);
  for (int i = 0; i < 16; ++i) {
    if (lane_on(k, i)) std::memcpy(static_cast<char*>(p) + 4 * i, &in.v[i], 4);
  }
}

// vpmaskmovd: a lane is on when its mask element's sign bit is set.
inline simde__m256i mm256_maskload_epi32(const void* p, simde__m256i mask) {
  const I32x8 m = bits<I32x8>(mask);
  I32x8 out{};
  for (int i = 0; i < 8; ++i) {
    if (m.v[i] < 0) std::memcpy(&out.v[i], static_cast<const char*>(p) + 4 * i, 4);
  }
  return bits<simde__m256i>(out);
}

inline void mm256_maskstore_epi32(void* p, simde__m256i mask, simde__m256i a) {
  const I32x8 m = bits<I32x8>(mask), in = bits<I32x8>(a);
  for (int i = 0; i < 8; ++i) {
    if (m.v[i] < 0) std::memcpy(static_cast<char*>(p) + 4 * i, &in.v[i], 4);
  }
}

// vpdpbusd: each int32 lane of src plus the four products of a's u8 and b's s8 bytes, modulo
// 2^32 (the four products sum to below 2^17 in magnitude: exact in int32).
template <typename Vec, int kLanes>
inline Vec dpbusd(Vec src, Vec a, Vec b) {
  struct Bytes { uint8_t u[4 * kLanes]; };
  struct Words { int32_t v[kLanes]; };
  const Bytes ua = bits<Bytes>(a), sb = bits<Bytes>(b);
  Words acc = bits<Words>(src);
  for (int i = 0; i < kLanes; ++i) {
    int32_t sum = 0;
    for (int j = 0; j < 4; ++j) {
      sum += int32_t{ua.u[4 * i + j]} * int32_t{static_cast<int8_t>(sb.u[4 * i + j])};
    }
    acc.v[i] = static_cast<int32_t>(static_cast<uint32_t>(acc.v[i]) + static_cast<uint32_t>(sum));
  }
  return bits<Vec>(acc);
}

}  // namespace cvm::opt::twin

#define _mm512_maskz_cvtepi32_epi8(k, a) ::cvm::opt::twin::mm512_maskz_cvtepi32_epi8(k, a)
#define _mm512_maskz_cvtepi8_epi32(k, a) ::cvm::opt::twin::mm512_maskz_cvtepi8_epi32(k, a)
#define _mm256_cvtepi16_epi8(a) ::cvm::opt::twin::mm256_cvtepi16_epi8(a)
#define _mm_maskz_loadu_epi8(k, p) ::cvm::opt::twin::mm_maskz_loadu_epi8(k, p)
#define _mm512_maskz_loadu_epi8(k, p) ::cvm::opt::twin::mm512_maskz_loadu_epi8(k, p)
#define _mm512_maskz_loadu_epi32(k, p) ::cvm::opt::twin::mm512_maskz_loadu_epi32(k, p)
#define _mm512_mask_storeu_epi32(p, k, a) ::cvm::opt::twin::mm512_mask_storeu_epi32(p, k, a)
#undef _mm256_maskload_epi32
#define _mm256_maskload_epi32(p, m) ::cvm::opt::twin::mm256_maskload_epi32(p, m)
#undef _mm256_maskstore_epi32
#define _mm256_maskstore_epi32(p, m, a) ::cvm::opt::twin::mm256_maskstore_epi32(p, m, a)
#undef _mm512_dpbusd_epi32
#define _mm512_dpbusd_epi32(src, a, b) ::cvm::opt::twin::dpbusd<simde__m512i, 16>(src, a, b)
#define _mm256_dpbusd_avx_epi32(src, a, b) ::cvm::opt::twin::dpbusd<simde__m256i, 8>(src, a, b)
