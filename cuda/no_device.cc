// Built instead of cuda/device_runner.cu when the CUDA backend is off (no nvcc, or a sanitizer
// preset): "cuda" stays registered, unavailable, and every tool reports it skipped with why.
#include "cuda/plan.h"

namespace cvm::cuda {

Backend make_device_backend() {
  Backend backend;
  backend.name = "cuda";
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

void set_kernel_timing(bool) {}
double last_kernel_ms() { return 0; }

}  // namespace cvm::cuda
