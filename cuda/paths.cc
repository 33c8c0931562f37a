#include "cuda/paths.h"

#include <algorithm>

namespace cvm::cuda::path {
namespace {

struct KindPath {
  StepKind kind;
  int index;
};

#define CVMCHECK_CUDA_PATH_DEFINE(kind, id, ops, description) \
  KindPath{StepKind::kind, paths::define(id, ops, description)},
const KindPath kPaths[] = {CVMCHECK_CUDA_PATHS(CVMCHECK_CUDA_PATH_DEFINE)};
#undef CVMCHECK_CUDA_PATH_DEFINE

// The fast kinds' 32-bit index math: invisible in their outputs (int64 gives the same), so a
// path, that a plan which stops choosing it shows.
const int kIndexInt32 = paths::define(
    "cuda.index.int32",
    "family:elementwise,family:broadcast,relu,where,family:transform_shape,strided_slice,"
    "slice_like,pad,ov_strided_slice,max_pool2d,upsampling",
    "a map, gather or window computing its indices in int32 (every index fits)");

struct GemmPathIndex {
  uint32_t bit;
  int index;
};

#define CVMCHECK_CUDA_GEMM_PATH_DEFINE(bit, id, ops, description) \
  GemmPathIndex{bit, paths::define(id, ops, description)},
const GemmPathIndex kGemmPaths[] = {CVMCHECK_CUDA_GEMM_PATHS(CVMCHECK_CUDA_GEMM_PATH_DEFINE)};
#undef CVMCHECK_CUDA_GEMM_PATH_DEFINE
static_assert(sizeof kGemmPaths / sizeof kGemmPaths[0] == kGemmPathCount);

// Whether a kernel choice can launch a step kind: cuda/simple the one-thread-per-element (or
// per-batch) kinds, the fast choices theirs, a forced reduction strategy its own steps alone.
// The fast choices keep the per-batch NMS for a call whose mask would be too large
// (cuda/plan_nms.cc), which no generator draws: it is not declared.
bool launches(const KernelChoice& choice, StepKind kind) {
  switch (kind) {
    case StepKind::kTake:
    case StepKind::kPool:
    case StepKind::kGather: return true;  // the fast choices' too, for gathers without a run
    case StepKind::kMap:
    case StepKind::kReduce:
    case StepKind::kConv2d:
    case StepKind::kDense:
    case StepKind::kValidCounts:
    case StepKind::kNms: return !choice.tiled;
    case StepKind::kReduceWarp: return choice.tiled && choice.reduce != kReduceSplit;
    case StepKind::kReduceSplit:
    case StepKind::kReduceCombine: return choice.tiled && choice.reduce != kReduceWarp;
    default: return choice.tiled;
  }
}

PathThreshold threshold(const std::string& name, const std::string& ops_list,
                        const std::string& quantity, int64_t value, const std::string& what) {
  PathThreshold t;
  t.name = name;
  size_t start = 0;
  while (start <= ops_list.size()) {
    const size_t end = std::min(ops_list.find(',', start), ops_list.size());
    t.ops.push_back(ops_list.substr(start, end - start));
    start = end + 1;
  }
  t.quantity = quantity;
  t.value = value;
  t.description = what;
  return t;
}

// The tile sides, for the generators to draw on either side of (docs/paths.md).
template <class T>
std::vector<PathThreshold> tile_thresholds() {
  return {threshold("cuda.tile.rows", "dense", "rows", T::kBM, "rows of one CTA tile"),
          threshold("cuda.tile.units", "dense", "units", T::kBN, "columns of one CTA tile"),
          threshold("cuda.tile.depth", "dense", "depth", T::kBK, "depth of one K slice"),
          threshold("cuda.tile.channels", "conv2d", "channels_per_group", T::kBN,
                    "output channels of one CTA tile"),
          threshold("cuda.tile.conv_gemm", "conv2d", "gemm_tile", T::kBN,
                    "output channels of one CTA tile, on a convolution of several K slices "
                    "and at least one tile of output pixels")};
}

}  // namespace

int of(StepKind kind) {
  for (const KindPath& p : kPaths) {
    if (p.kind == kind) return p.index;
  }
  return kPaths[0].index;  // unreachable: every kind is listed (a test checks the list)
}

void hit_index_width(const Step& step) {
  const bool narrow = (step.kind == StepKind::kMapVec && step.map.narrow != 0) ||
                      ((step.kind == StepKind::kGather || step.kind == StepKind::kGatherRun) &&
                       step.gather.narrow != 0) ||
                      (step.kind == StepKind::kPool && step.pool.narrow != 0);
  paths::hit_if(narrow, kIndexInt32);
}

void hit_gemm(uint32_t mask) {
  for (const GemmPathIndex& p : kGemmPaths) paths::hit_if((mask & p.bit) != 0, p.index);
}

void declare(Backend& backend, const KernelChoice& choice) {
  const std::vector<PathInfo> all = paths::defined();
  const auto id = [&all](int index) { return all[static_cast<size_t>(index)].id; };
  for (const KindPath& p : kPaths) {
    if (launches(choice, p.kind)) backend.paths.push_back(id(p.index));
  }
  if (!choice.tiled) return;
  backend.paths.push_back(id(kIndexInt32));
  for (const GemmPathIndex& p : kGemmPaths) backend.paths.push_back(id(p.index));
  backend.thresholds =
      choice.tile == kTileSmall ? tile_thresholds<SmallTile>() : tile_thresholds<WideTile>();
}

}  // namespace cvm::cuda::path
