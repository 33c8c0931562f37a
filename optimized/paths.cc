#include "optimized/paths.h"

#include <string>

#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/nn_isa_dispatch.h"

namespace cvm::opt::path {
namespace {

struct Declared {
  const char* id;
  On on;
};

#define CVMCHECK_OPTIMIZED_PATH_DECL(constant, id, on, ops, description) Declared{id, On::on},
const Declared kDeclared[] = {CVMCHECK_OPTIMIZED_PATHS(CVMCHECK_OPTIMIZED_PATH_DECL)};
#undef CVMCHECK_OPTIMIZED_PATH_DECL

// The tag of the paths of `isa` alone (paths.h: the one-ISA tags follow the list's order).
constexpr On only(Isa isa) {
  return static_cast<On>(static_cast<int>(On::kPortable) + static_cast<int>(isa));
}
#define CVM_ONLY_TAG_CHECK(constant, ...) \
  static_assert(only(Isa::constant) == On::constant, "the one-ISA tags follow the list");
CVMCHECK_ISAS(CVM_ONLY_TAG_CHECK)
#undef CVM_ONLY_TAG_CHECK

bool runs_on(On on, Isa isa) {
  switch (on) {
    case On::kAny: return true;
    case On::kBasePass: return isa_vectors(isa) == Vectors::kBaselineVectors;
    case On::kAvx2Pass: return isa_vectors(isa) == Vectors::kAvx2Vectors;
    case On::kAvx512Pass: return isa_vectors(isa) == Vectors::kAvx512Vectors;
    case On::kGemm: return isa != Isa::kPortable;
    default: break;
  }
  return on == only(isa);
}

// The ISA whose variant takes a path of `on`: the lowest-ranked of this binary's ISAs that runs
// it (kAny: the portable one; kGemm: AVX2 on x86, NEON on ARM), else of the list's (another
// processor's ISA, whose paths this binary does not declare).
Isa owner(On on) {
  for (const bool built_only : {true, false}) {
    for (int i = 0; i < kIsaCount; ++i) {
      const Isa isa = static_cast<Isa>(i);
      if ((isa_built(isa) || !built_only) && runs_on(on, isa)) return isa;
    }
  }
  return Isa::kPortable;
}

// Why a backend running `picked` never takes a path of another ISA.
std::string isa_reason(On on, Isa picked) {
  const Isa need = owner(on);
  if (!isa_supported(need)) {
    std::string why = std::string("this CPU lacks ") + isa_name(need) + " (detected: " +
                      isa_name(detected_isa()) + ")";
    if (isa_has_twin(need)) why += std::string(": optimized/") + isa_name(need) + "~simde takes it";
    return why;
  }
  return std::string("the CPUID pick here is ") + isa_name(picked) + ": optimized/" +
         isa_name(need) + " takes it";
}

// The paths only a thread team takes.
bool needs_team(const std::string& id) {
  for (const char* team : {"threads.team", "infer.value_check.threaded", "reduce.split_first_axis"}) {
    if (id == team) return true;
  }
  return false;
}

PathThreshold threshold(const char* name, const char* ops, const char* quantity, int64_t value,
                        const char* description) {
  PathThreshold t;
  t.name = name;
  const std::string list = ops;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = list.find(',', start);
    const size_t end = comma == std::string::npos ? list.size() : comma;
    if (end > start) t.ops.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  t.quantity = quantity;
  t.value = value;
  t.description = description;
  return t;
}

// The thresholds of the ISA a backend runs (the GEMM ISAs' panel and vector sizes).
std::vector<PathThreshold> thresholds(Isa isa, bool emulated) {
  std::vector<PathThreshold> list = {
      threshold("threads.work", "conv2d,dense", "work", kWorkThreshold,
                "elementary operations from which a call runs on a thread team"),
      threshold("relu.chunk", "relu", "elements", kReluChunk, "elements per relu chunk"),
      threshold("fused.chunk", "abs,cvm_precision,elemwise_add,elemwise_sub,negative,clip,"
                "cvm_clip,cvm_right_shift,cvm_left_shift", "elements", kFusedChunk,
                "elements per elementwise chunk"),
      threshold("infer.value_chunk", "sum,max", "elements", kConvRangeChunk,
                "elements per chunk of the threaded value check"),
      threshold("conv2d.range_chunk", "conv2d", "elements", kConvRangeChunk,
                "data values per chunk of conv2d's deferred value check"),
      threshold("copy.tile_side", "transpose", "side", kCopyTileSide,
                "both sides of a transposing view from which it is copied in tiles"),
      threshold("copy.tile", "transpose", "side", kCopyTile,
                "the sides of one tile of the tiled copy (a longer side takes several)")};
  const nn::NnIsa& t = nn::nn_isa(isa, emulated);  // the same shapes as the native table
  if (t.gemm) {
    list.push_back(threshold("dense.kblock", "dense", "depth", dense_block_steps(t) * t.group,
                             "depth of one k-block"));
    list.push_back(threshold("dense.row_panel", "dense", "rows", t.dense_mr,
                             "rows of one row panel"));
    list.push_back(threshold("dense.lanes", "dense", "units", t.lanes, "int32 lanes of a vector"));
    list.push_back(threshold("dense.column_panel", "dense", "units", t.dense_nv * t.lanes,
                             "units of one column panel"));
    list.push_back(threshold("conv2d.row_panel", "conv2d", "channels_per_group", t.conv_mr,
                             "output channels of one panel"));
    list.push_back(threshold("conv2d.lanes", "conv2d", "out_width", t.lanes,
                             "output pixels of one vector"));
    list.push_back(threshold("conv2d.pixel_block", "conv2d", "output_pixels",
                             t.conv_nv * t.lanes, "output pixels of one task's block"));
  }
  if (t.gemm) {
    list.push_back(threshold("dense.gemv_rows", "dense", "rows",
                             t.gemv_i32 != nullptr ? kDenseGemvRows : 0,
                             "rows up to which dense is a gemv (0: never)"));
  }
  if (runs_on(On::kAvx2Pass, isa)) {
    list.push_back(threshold("conv2d.pack_taps", "conv2d", "kernel_taps", kConvPackTaps,
                             "kernel taps from which full weight panels are packed by "
                             "transposition, that many at a time"));
  }
  if (isa == Isa::kAvx2) {
    list.push_back(threshold("nn.u8_precision", "conv2d,dense", "precision", kU8Precision,
                             "data or weight precision up to which vpmaddubsw is exact"));
  }
  return list;
}

}  // namespace

int64_t dense_block_steps(const nn::NnIsa& isa) {
  return isa.isa == Isa::kAvx2 ? kDenseBlockSteps / 2 : kDenseBlockSteps;
}

int gemm_path(const nn::NnIsa& isa, bool conv) { return conv ? isa.conv_path : isa.dense_path; }

void mark_single_threaded(Backend& backend, const std::string& why) {
  for (const std::string& id : backend.paths) {
    if (needs_team(id)) backend.unreachable_paths[id] = why;
  }
}

void declare(Backend& backend, int forced_isa, bool forced_threads, bool emulated) {
  const Isa picked = forced_isa >= 0 ? static_cast<Isa>(forced_isa) : active_isa();
  for (const Declared& d : kDeclared) {
    if (!isa_built(owner(d.on))) continue;  // another processor's ISA: not in this binary
    if (forced_isa >= 0 && !runs_on(d.on, picked)) continue;  // another variant's path
    backend.paths.emplace_back(d.id);
    if (!runs_on(d.on, picked)) {
      backend.unreachable_paths[d.id] = isa_reason(d.on, picked);
    } else if (!forced_threads && threads() < 2 && needs_team(d.id)) {
      backend.unreachable_paths[d.id] = "one thread (CVMCHECK_THREADS=1 or one CPU)";
    }
  }
  backend.thresholds = thresholds(picked, emulated);
}

}  // namespace cvm::opt::path
