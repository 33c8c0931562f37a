// Whether the original's GPU backend can run here, asked once, before a `--device gpu` call
// touches the runtime: without a CUDA device the original's device API fails inside its
// allocator, and a worker that forks per call would report each call as a crash or a hang
// rather than say why. The check goes through the CUDA runtime the original's library already
// loaded (libcvm_runtime.so links libcudart when built with `build.sh --cuda`): the worker
// itself is compiled and linked without the CUDA Toolkit.
#pragma once

#include <dlfcn.h>

#include <string>

namespace cvm_runtime_worker {

// Empty when a CUDA device is visible; else why the gpu device cannot run, for the reply.
inline std::string cuda_unavailable_reason() {
  using Count = int (*)(int*);
  using Text = const char* (*)(int);
  const auto count = reinterpret_cast<Count>(::dlsym(RTLD_DEFAULT, "cudaGetDeviceCount"));
  if (count == nullptr) {
    return "this libcvm_runtime was built without CUDA (adapters/cvm-runtime/build.sh --cuda "
           "builds the GPU backend)";
  }
  int devices = 0;
  const int status = count(&devices);
  if (status == 0 && devices > 0) return {};
  const auto text = reinterpret_cast<Text>(::dlsym(RTLD_DEFAULT, "cudaGetErrorString"));
  std::string reason = "no CUDA device: cudaGetDeviceCount ";
  if (status != 0) {
    reason += "failed (" + std::to_string(status) +
              (text != nullptr ? std::string(": ") + text(status) : std::string()) + ")";
  } else {
    reason += "found 0 devices";
  }
  return reason;
}

}  // namespace cvm_runtime_worker
