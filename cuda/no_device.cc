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

}  // namespace

Backend make_device_backend() { return unbuilt("cuda"); }

std::vector<Backend> make_device_variants(const Backend& device) {
  std::vector<Backend> variants = {unbuilt(device.name + "@tile"),
                                   unbuilt(device.name + "/simple")};
  for (Backend& v : variants) {
    v.variant_of = device.name;
    v.unavailable_reason = "not built (as " + device.name + ")";  // as make_variant shortens it
  }
  return variants;
}

void set_kernel_timing(bool) {}
double last_kernel_ms() { return 0; }

}  // namespace cvm::cuda
