// Built instead of cuda/device_runner.cu when the CUDA backend is off (no nvcc, or a sanitizer
// preset): "cuda" stays registered, unavailable, and every tool reports it skipped with why.
#include "cuda/plan.h"

namespace cvm::cuda {

namespace {

Backend unbuilt(const std::string& name) {
  Backend backend;
  backend.name = name;
  for (const std::string& op : planned_ops()) {
    backend.add(op, [](const OpContext&) -> std::vector<Tensor> {
      fail_runtime("the cuda backend is not built into this binary");
    });
  }
  backend.available = false;
  backend.unavailable_reason =
      "not built: this build has CVMCHECK_CUDA=OFF (no nvcc, or a sanitizer preset)";
  return backend;
}

std::vector<Tensor> not_built(const Plan&) {
  fail_runtime("the cuda backend is not built into this binary");
}

}  // namespace

Backend make_device_backend() { return unbuilt("cuda"); }

// As in a build with the device runner: the same operators declared, unavailable as the base.
std::vector<Backend> make_device_variants(const Backend& device) {
  return make_variants(device, not_built);
}

void set_kernel_timing(bool) {}
double last_kernel_ms() { return 0; }

}  // namespace cvm::cuda
