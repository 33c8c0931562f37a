// The one place that assembles the registry: every operator record and every backend built
// into this binary. A new backend is added here.
#include "registry/registry.h"

#include "cuda/plan.h"
#include "cvmcheck/op_list.h"
#include "harness/engine/call_descriptor.h"
#include "harness/planted/planted.h"
#include "ops/schema.h"
#include "optimized/kernels.h"
#include "reference/kernels.h"

namespace cvm {
namespace {

// A built-in backend declares every listed operator but its exemptions (Backend::declared_ops),
// unless it declared its own (cuda's kernel-choice variants: the GEMM operators).
void declare_listed_ops(Backend& backend) {
  if (!backend.declared_ops.empty()) return;  // its own list: a variant of one kernel choice
  const std::string& base = backend.variant_of.empty() ? backend.name : backend.variant_of;
  for (const ListedOp& op : kOperatorList) {
    bool exempt = false;
    for (const KernelExemption& e : kKernelExemptions) exempt |= e.backend == base && e.op == op.name;
    if (!exempt) backend.declared_ops.insert(std::string(op.name));
  }
}

}  // namespace

Registry& registry() {
  static Registry instance = [] {
    Registry r;
    ops::add_all_ops(r);
    // Every built-in backend declares the listed operators (Backend::declared_ops).
    const auto add_built_in = [&r](Backend backend) {
      declare_listed_ops(backend);
      r.add_backend(std::move(backend));
    };
    add_built_in(ref::make_backend());
    Backend optimized = opt::make_backend();
    std::vector<Backend> variants = opt::make_variant_backends(optimized);  // every CPU path
    add_built_in(std::move(optimized));
    for (Backend& variant : variants) add_built_in(std::move(variant));
    add_built_in(cuda::make_host_backend());  // the CUDA kernels' logic on the CPU, always
    for (Backend& variant : cuda::make_host_variants()) add_built_in(std::move(variant));
    Backend device = cuda::make_device_backend();  // unavailable (with why) without a GPU
    std::vector<Backend> device_variants = cuda::make_device_variants(device);
    add_built_in(std::move(device));
    for (Backend& variant : device_variants) add_built_in(std::move(variant));
    add_planted_from_env(r);  // test-only backends, opt-in
    // Call descriptors record the thread count of a backend that takes it from the process
    // (Backend::threads).
    set_backend_threads_query([&r](const std::string& name) {
      const Backend* backend = r.find_backend(name);
      return backend != nullptr && backend->threads ? backend->threads() : 0;
    });
    return r;
  }();
  return instance;
}

}  // namespace cvm
