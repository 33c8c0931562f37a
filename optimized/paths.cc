#include "optimized/paths.h"

#include <string>

#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/nn_gemm.h"

namespace cvm::opt::path {
namespace {

struct Declared {
  const char* id;
  On on;
};

#define CVMCHECK_OPTIMIZED_PATH_DECL(constant, id, on, ops, description) Declared{id, On::on},
const Declared kDeclared[] = {CVMCHECK_OPTIMIZED_PATHS(CVMCHECK_OPTIMIZED_PATH_DECL)};
#undef CVMCHECK_OPTIMIZED_PATH_DECL

bool runs_on(On on, Isa isa) {
  switch (on) {
    case On::kAny: return true;
    case On::kPortable: return isa == Isa::kPortable;
    case On::kBasePass: return isa == Isa::kPortable || isa == Isa::kNeonDot;
    case On::kAvx2: return isa == Isa::kAvx2;
    case On::kAvx2Pass: return isa == Isa::kAvx2 || isa == Isa::kAvxVnni;
    case On::kAvxVnni: return isa == Isa::kAvxVnni;
    case On::kVnni: return isa == Isa::kAvx512Vnni;
    case On::kNeonDot: return isa == Isa::kNeonDot;
    case On::kGemm: return isa != Isa::kPortable;
  }
  return false;
}

// The ISA whose variant takes a path of `on` (kAny: every ISA's; kGemm: one of several, the
// AVX2 or the NEON one).
Isa owner(On on) {
  switch (on) {
    case On::kAny:
    case On::kPortable:
    case On::kBasePass: return Isa::kPortable;
    case On::kVnni: return Isa::kAvx512Vnni;
    case On::kAvxVnni: return Isa::kAvxVnni;
    case On::kNeonDot: return Isa::kNeonDot;
    case On::kGemm: return isa_built(Isa::kNeonDot) ? Isa::kNeonDot : Isa::kAvx2;
    default: break;
  }
  return Isa::kAvx2;
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

int gemm_path(const nn::NnIsa& isa, bool conv) {
  switch (isa.isa) {
    case Isa::kAvx512Vnni: return conv ? kConvGemmVnni : kDenseGemmVnni;
    case Isa::kAvxVnni: return conv ? kConvGemmAvxVnni : kDenseGemmAvxVnni;
    case Isa::kNeonDot: return conv ? kConvGemmNeonDot : kDenseGemmNeonDot;
    default: break;
  }
  if (isa.shift == 64) return conv ? kConvGemmAvx2U8Data : kDenseGemmAvx2U8Data;
  if (isa.shift == 128) return conv ? kConvGemmAvx2U8Weights : kDenseGemmAvx2U8Weights;
  return conv ? kConvGemmAvx2 : kDenseGemmAvx2;
}

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
