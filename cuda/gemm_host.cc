#include "cuda/gemm_host.h"

#include <vector>

#include "cuda/paths.h"

namespace cvm::cuda {
namespace {

// Whether every lane's fragment is zero: the mma then adds nothing (exactly), and the emulation
// skips it. Partial tiles are mostly such zero padding (a 64-wide tile over a dense of 3 units),
// which otherwise made cuda-host's emulation several times slower than the direct kernels.
template <class F>
bool all_zero(const F (&lanes)[kWarp]) {
  for (const F& f : lanes) {
    for (const auto r : f.r) {
      if (r != 0) return false;
    }
  }
  return true;
}

// One warp's K step: every lane loads its fragments, then each (mi, ni) mma runs over the 32
// lanes at once, as mma.sync does.
template <class T>
void warp_k_step(const GemmParams& p, const int8_t* sa, const int8_t* sb, int32_t warp,
                 int32_t ks, WarpAcc<T>* lanes) {
  FragA a[kWarp][T::kMi];
  FragB b[kWarp][T::kNi];
  for (int32_t lane = 0; lane < kWarp; ++lane) {
    load_frags<T>(p, sa, sb, warp, lane, ks, a[lane], b[lane]);
  }
  for (int32_t mi = 0; mi < T::kMi; ++mi) {
    for (int32_t ni = 0; ni < T::kNi; ++ni) {
      FragA wa[kWarp];
      FragB wb[kWarp];
      FragC wc[kWarp];
      for (int32_t lane = 0; lane < kWarp; ++lane) {
        wa[lane] = a[lane][mi];
        wb[lane] = b[lane][ni];
        wc[lane] = lanes[lane].f[mi][ni];
      }
      if (all_zero(wa) || all_zero(wb)) continue;
      mma_emulate(wc, wa, wb);
      for (int32_t lane = 0; lane < kWarp; ++lane) lanes[lane].f[mi][ni] = wc[lane];
    }
  }
}

// One CTA: the device kernel's loop body (cuda/device_runner.cu, gemm_kernel) with the
// threads of each phase run in order.
template <class T>
void run_tile(const GemmParams& p, const Views& v, int32_t* out, int64_t tile) {
  constexpr int32_t kWarps = T::kWarpsM * T::kWarpsN;
  std::vector<int8_t> sa(T::kBM * T::kBK), sb(T::kBN * T::kBK);
  std::vector<WarpAcc<T>> acc(static_cast<size_t>(kWarps * kWarp), WarpAcc<T>{});
  const TileCoord t = tile_coord<T>(p, tile);
  path::hit_gemm(tile_paths<T>(p, t));
  for (int64_t k0 = 0; k0 < p.depth; k0 += T::kBK) {
    for (int32_t tid = 0; tid < T::kThreads; ++tid) {
      stage_slice<T>(p, v, t, k0, tid, sa.data(), sb.data());
    }
    for (int32_t warp = 0; warp < kWarps; ++warp) {
      for (int32_t ks = 0; ks < T::kKs; ++ks) {
        warp_k_step<T>(p, sa.data(), sb.data(), warp, ks, &acc[static_cast<size_t>(warp * kWarp)]);
      }
    }
  }
  for (int32_t warp = 0; warp < kWarps; ++warp) {
    for (int32_t lane = 0; lane < kWarp; ++lane) {
      store_tile<T>(p, v, out, t, warp, lane, acc[static_cast<size_t>(warp * kWarp + lane)]);
    }
  }
}

template <class T>
void run_tiles(const GemmParams& p, const Views& v, int32_t* out) {
  const int64_t tiles = tile_count<T>(p);
  for (int64_t tile = 0; tile < tiles; ++tile) run_tile<T>(p, v, out, tile);
}

}  // namespace

void run_gemm_host(const GemmParams& p, const Views& v, int32_t* out) {
  if (p.tile == kTileSmall) {
    run_tiles<SmallTile>(p, v, out);
  } else {
    run_tiles<WideTile>(p, v, out);
  }
}

}  // namespace cvm::cuda
