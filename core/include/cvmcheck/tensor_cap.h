// A per-thread cap on the elements of each new tensor, for the fuzz targets. Their inputs are
// bounded, but one attribute (upsampling's scale, a padding) can make an output a million times
// larger than the inputs, and such a case takes seconds instead of milliseconds. With a cap in
// scope, a tensor over it throws TensorCapExceeded when it is allocated: after the shape and
// attribute checks, before any arithmetic. run_op lets it pass unchanged (it is neither error
// class: the call is simply out of the harness's bounds), so the caller can skip the call.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace cvm {

class TensorCapExceeded : public std::length_error {
 public:
  using std::length_error::length_error;
};

class ScopedTensorCap {
 public:
  explicit ScopedTensorCap(int64_t max_elements);
  ~ScopedTensorCap();
  ScopedTensorCap(const ScopedTensorCap&) = delete;
  ScopedTensorCap& operator=(const ScopedTensorCap&) = delete;

 private:
  int64_t previous_;
};

// The cap in scope on this thread, or -1 for none.
int64_t tensor_cap();

}  // namespace cvm
