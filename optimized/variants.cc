// The optimized backend's dispatch variants as registered backends, so that the campaign, the
// fuzz targets and golden verify reach every ISA path and the threaded paths on any machine,
// not only the path CPUID picks (a bug in the AVX2 path was invisible on an AVX-512 VNNI CI
// machine). Each variant wraps the same kernels and forces its choice for the call's duration.
#include <string>

#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"
#include "optimized/planted_faults.h"

namespace cvm::opt {
namespace {

struct Dispatch {
  int isa_cap = -1;          // -1: the CPUID pick (capped by CVMCHECK_ISA)
  int threads = 0;           // 0: the default team
  int64_t work_threshold = -1;  // -1: the default
  bool emulated = false;     // the ISA's SIMDe twin (optimized/isa_twin.h)
  int planted = nn::kNoPlantedFault;  // tests only (planted_faults.h)
};

// Sets a dispatch for one call and restores the previous one, also when the kernel throws.
class ScopedDispatch {
 public:
  explicit ScopedDispatch(const Dispatch& d)
      : cap_(isa_cap_state()),
        threads_(threads()),
        planted_(nn::planted_fault()),
        threshold_(work_threshold()) {
    if (d.isa_cap >= 0) set_isa_cap(static_cast<Isa>(d.isa_cap), d.emulated);
    nn::set_planted_fault(d.planted);
    if (d.threads > 0) set_threads(d.threads);
    if (d.work_threshold >= 0) set_work_threshold(d.work_threshold);
  }
  ~ScopedDispatch() {
    restore_isa_cap_state(cap_);
    nn::set_planted_fault(planted_);
    set_threads(threads_);
    set_work_threshold(threshold_);
  }
  ScopedDispatch(const ScopedDispatch&) = delete;
  ScopedDispatch& operator=(const ScopedDispatch&) = delete;

 private:
  int cap_, threads_, planted_;
  int64_t threshold_;
};

Backend wrap(const Backend& optimized, const std::string& name, const Dispatch& dispatch) {
  Backend variant;
  variant.name = name;
  variant.variant_of = optimized.name;
  for (const auto& entry : optimized.kernels) {
    const Kernel kernel = entry.second;  // a named copy: clang 14 cannot capture a binding
    variant.add(entry.first, [kernel, dispatch](const OpContext& ctx) {
      const ScopedDispatch scope(dispatch);
      return kernel(ctx);
    });
  }
  path::declare(variant, dispatch.isa_cap, dispatch.threads > 0, dispatch.emulated);
  if (dispatch.threads > 0 && dispatch.work_threshold < 0) {
    // A team only above the threshold: the team paths are required of optimized@3 alone.
    path::mark_single_threaded(variant, "a team only above the work threshold here; optimized@3 "
                                        "(threshold 0) is where the team paths are required");
  }
  return variant;
}

}  // namespace

Backend make_planted_avxvnni_variant(const Backend& optimized, const std::string& name,
                                     int fault) {
  return wrap(optimized, name,
              Dispatch{static_cast<int>(Isa::kAvxVnni), 2, -1, true, fault});
}

Backend make_planted_neon_variant(const Backend& optimized, const std::string& name, int fault) {
  return wrap(optimized, name, Dispatch{static_cast<int>(Isa::kNeonDot), 2, -1, false, fault});
}

Backend make_planted_avx2_variant(const Backend& optimized, const std::string& name) {
  return wrap(optimized, name,
              Dispatch{static_cast<int>(Isa::kAvx2), 2, -1, false, nn::kAvx2FaultU8For8Bit});
}

std::vector<Backend> make_variant_backends(const Backend& optimized) {
  std::vector<Backend> variants;
  // Each ISA on a team of two above the default work threshold, whatever the process's own
  // thread count (a campaign job runs one thread): the threaded weight packing and panel
  // ranges of an ISA other than the CPUID pick run too (optimized@3 takes only the pick's).
  // An ISA with an emulated twin registers it next to the native variant: where the CPU lacks
  // the ISA the twin still runs its kernel source, and where it has it both run side by side.
  // Only the ISAs this binary holds: an x86 build has no NEON variant, an aarch64 build no x86.
  // Every ISA of the list (isa_list.h), the highest-ranked first.
  for (int rank = kIsaCount - 1; rank >= 0; --rank) {
    const Isa isa = static_cast<Isa>(rank);
    if (!isa_built(isa)) continue;
    const std::string name = std::string("optimized/") + isa_name(isa);
    Backend b = wrap(optimized, name, Dispatch{static_cast<int>(isa), 2, -1});
    if (!isa_supported(isa)) {
      b.available = false;
      // Short enough for the summary's one line of 100 columns per skipped backend.
      b.unavailable_reason = std::string("this CPU lacks ") + isa_name(isa) + " (has " +
                             isa_name(detected_isa()) + ")" +
                             (isa_has_twin(isa) ? "; ~simde twin runs it" : "");
    }
    variants.push_back(std::move(b));
    if (isa_has_twin(isa)) {
      variants.push_back(wrap(optimized, name + "~simde",
                              Dispatch{static_cast<int>(isa), 2, -1, true}));
    }
  }
  // Three threads: an odd team, so chunked splits have an uneven last share; a threshold of 0
  // takes the threaded paths on the smallest calls.
  Backend team = wrap(optimized, "optimized@3", Dispatch{-1, 3, 0});
  // A team on every call, however small, costs more than most calls' work: the campaign runs it
  // on one call in four of any size.
  team.variant_every = 4;
  variants.push_back(std::move(team));
  return variants;
}

}  // namespace cvm::opt
