// The one place that assembles the registry: every operator record and every backend built
// into this binary. A new backend is added here.
#include "backends/registry.h"

#include "cuda/plan.h"
#include "harness/planted.h"
#include "ops/schema.h"
#include "optimized/kernels.h"
#include "reference/kernels.h"

namespace cvm {

Registry& registry() {
  static Registry instance = [] {
    Registry r;
    ops::add_all_ops(r);
    r.add_backend(ref::make_backend());
    r.add_backend(opt::make_backend());
    r.add_backend(cuda::make_host_backend());    // the CUDA kernels' logic on the CPU, always
    r.add_backend(cuda::make_device_backend());  // unavailable (with why) without a GPU
    add_planted_from_env(r);  // test-only backends, opt-in
    return r;
  }();
  return instance;
}

}  // namespace cvm
