// A dense row-major tensor of int8 or int32 values that carries a precision.
// Invariant: the shape satisfies the contract's limits (1..6 dims, each 1..2^24, at most 2^30
// elements); every factory checks them before allocating, so a Tensor can never be oversized.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cvm {

enum class DType : uint8_t { kInt8, kInt32 };

const char* dtype_name(DType dtype);

using Shape = std::vector<int64_t>;

// An allocator that leaves elements uninitialised on resize, so fast kernels that overwrite
// every element do not pay for a zero fill first.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using Buffer = std::vector<T, DefaultInitAllocator<T>>;

// Throws LogicError naming `what` unless the shape is within the contract's limits.
void validate_shape(const Shape& shape, const std::string& what);

// Element count of a shape (product of dims). Only for validated shapes.
int64_t shape_size(const Shape& shape);

std::string shape_str(const Shape& shape);

// Row-major strides in elements.
std::vector<int64_t> row_major_strides(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;

  // A zero-filled tensor; validates the shape first (LogicError), then allocates.
  static Tensor zeros(DType dtype, const Shape& shape, int precision);
  // As zeros, but the contents are unspecified: for kernels that write every element.
  static Tensor uninitialized(DType dtype, const Shape& shape, int precision);
  // A tensor holding `values` (row-major). For int8, each value must fit int8 (LogicError).
  static Tensor from_values(const Shape& shape, const std::vector<int32_t>& values, int precision,
                            DType dtype = DType::kInt32);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int axis) const { return shape_[static_cast<size_t>(axis)]; }
  int64_t size() const { return size_; }
  int precision() const { return precision_; }
  void set_precision(int precision) { precision_ = precision; }

  // Element i (flat, row-major) widened to int32, whatever the storage.
  int32_t get(int64_t i) const {
    return dtype_ == DType::kInt8 ? int32_t{i8_[static_cast<size_t>(i)]}
                                  : i32_[static_cast<size_t>(i)];
  }
  // Only for int32 tensors (outputs are always int32).
  void set(int64_t i, int32_t v) { i32_[static_cast<size_t>(i)] = v; }

  int32_t* i32() { return i32_.data(); }
  const int32_t* i32() const { return i32_.data(); }
  const int8_t* i8() const { return i8_.data(); }
  int8_t* i8() { return i8_.data(); }

  // All values widened to int32, row-major.
  std::vector<int32_t> values() const;

  // Same dtype, shape, precision and values.
  bool identical(const Tensor& other) const;

 private:
  // Validated (LogicError), checked against a ScopedTensorCap, storage unfilled.
  static Tensor allocate(DType dtype, const Shape& shape, int precision);
  void fill(int32_t value);  // int8 tensors take the low byte

  DType dtype_ = DType::kInt32;
  Shape shape_;
  int64_t size_ = 0;
  int precision_ = 0;
  Buffer<int32_t> i32_;
  Buffer<int8_t> i8_;
};

}  // namespace cvm
