#include "cvmcheck/tensor.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/rules.h"
#include "cvmcheck/tensor_cap.h"
#include "cvmcheck/tensor_poison.h"

namespace cvm {

const char* dtype_name(DType dtype) { return dtype == DType::kInt8 ? "int8" : "int32"; }

void validate_shape(const Shape& shape, const std::string& what) {
  verify_rule(!shape.empty() && shape.size() <= static_cast<size_t>(kMaxNdim), rules::kTensorLimits,
              what, " has ", shape.size(), " dims; the limit is 1..", kMaxNdim);
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    verify_rule(shape[i] >= 1 && shape[i] <= kMaxDim, rules::kTensorLimits, what, " dim ", i,
                " is ", shape[i], "; each dim must be in [1, 2^24]");
    count *= shape[i];  // stays below 2^30 * 2^24 before the check below fires
    verify_rule(count <= kMaxElements, rules::kTensorLimits, what, " ", shape_str(shape),
                " has more than 2^30 elements");
  }
}

int64_t shape_size(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream out;
  out << '(';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << (shape.size() == 1 ? ",)" : ")");
  return out.str();
}

std::vector<int64_t> row_major_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

namespace {
std::atomic<bool> g_poison{true};
std::atomic<uint32_t> g_poison_calls{0};
thread_local int64_t t_tensor_cap = -1;
}  // namespace

void set_poison_uninitialized(bool on) { g_poison.store(on, std::memory_order_relaxed); }
bool poison_uninitialized() { return g_poison.load(std::memory_order_relaxed); }

ScopedTensorCap::ScopedTensorCap(int64_t max_elements) : previous_(t_tensor_cap) {
  t_tensor_cap = max_elements;
}
ScopedTensorCap::~ScopedTensorCap() { t_tensor_cap = previous_; }
int64_t tensor_cap() { return t_tensor_cap; }

Tensor Tensor::allocate(DType dtype, const Shape& shape, int precision) {
  validate_shape(shape, "tensor");
  if (t_tensor_cap >= 0 && shape_size(shape) > t_tensor_cap) {
    throw TensorCapExceeded(concat("tensor ", shape_str(shape), " is over the cap of ",
                                   t_tensor_cap, " elements in scope"));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.size_ = shape_size(shape);
  t.precision_ = precision;
  if (dtype == DType::kInt8) {
    t.i8_.resize(static_cast<size_t>(t.size_));
  } else {
    t.i32_.resize(static_cast<size_t>(t.size_));
  }
  return t;
}

void Tensor::fill(int32_t value) {
  if (dtype_ == DType::kInt8) {
    std::fill(i8_.begin(), i8_.end(), static_cast<int8_t>(value));
  } else {
    std::fill(i32_.begin(), i32_.end(), static_cast<int32_t>(value));
  }
}

Tensor Tensor::uninitialized(DType dtype, const Shape& shape, int precision) {
  Tensor t = allocate(dtype, shape, precision);
  if (poison_uninitialized()) {
    // A large odd multiplier spreads consecutive calls over unrelated values.
    const uint32_t call = g_poison_calls.fetch_add(1, std::memory_order_relaxed);
    const uint32_t bits = 0x5EED1234u ^ (call * 0x9E3779B1u);
    t.fill(dtype == DType::kInt8 ? static_cast<int8_t>(bits >> 24) : static_cast<int32_t>(bits));
  }
  return t;
}

Tensor Tensor::zeros(DType dtype, const Shape& shape, int precision) {
  Tensor t = allocate(dtype, shape, precision);  // not uninitialized: no poison pass to undo
  t.fill(0);
  return t;
}

Tensor Tensor::from_values(const Shape& shape, const std::vector<int32_t>& values, int precision,
                           DType dtype) {
  validate_shape(shape, "tensor");
  verify(static_cast<int64_t>(values.size()) == shape_size(shape), "tensor ", shape_str(shape),
         " needs ", shape_size(shape), " values, got ", values.size());
  Tensor t = allocate(dtype, shape, precision);  // every element is written below
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt8) {
      verify(values[i] >= -128 && values[i] <= 127, "value ", values[i], " does not fit int8");
      t.i8_[i] = static_cast<int8_t>(values[i]);
    } else {
      t.i32_[i] = values[i];
    }
  }
  return t;
}

std::vector<int32_t> Tensor::values() const {
  if (dtype_ == DType::kInt32) return std::vector<int32_t>(i32_.begin(), i32_.end());
  return std::vector<int32_t>(i8_.begin(), i8_.end());
}

bool Tensor::identical(const Tensor& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ && precision_ == other.precision_ &&
         i32_ == other.i32_ && i8_ == other.i8_;
}

}  // namespace cvm
