#include "harness/worker_client/worker_tensor.h"

#include <cstring>

#include "cvmcheck/errors.h"

namespace cvm {

cvmcheck_worker::Tensor to_protocol(const Tensor& tensor) {
  cvmcheck_worker::Tensor out;
  out.shape = tensor.shape();
  out.precision = tensor.precision();
  const auto count = static_cast<size_t>(tensor.size());
  if (tensor.dtype() == DType::kInt8) {
    out.dtype = cvmcheck_worker::DType::kInt8;
    out.data.resize(count);
    if (count != 0) std::memcpy(out.data.data(), tensor.i8(), count);
  } else {
    out.dtype = cvmcheck_worker::DType::kInt32;
    out.data.resize(count * 4);
    if (count != 0) std::memcpy(out.data.data(), tensor.i32(), count * 4);
  }
  return out;
}

Tensor from_protocol(const cvmcheck_worker::Tensor& tensor, const std::string& what) {
  // The shape first: the protocol allows 16 dims of up to 2^31, whose product would overflow
  // before any size comparison could be made.
  validate_shape(tensor.shape, what);
  const DType dtype =
      tensor.dtype == cvmcheck_worker::DType::kInt8 ? DType::kInt8 : DType::kInt32;
  const auto count = static_cast<size_t>(shape_size(tensor.shape));
  const size_t bytes = count * (dtype == DType::kInt8 ? 1 : 4);
  if (tensor.data.size() != bytes) {
    throw cvmcheck_worker::ProtocolError(concat(what, " ", shape_str(tensor.shape), " of ",
                                                dtype_name(dtype), " has ", tensor.data.size(),
                                                " data bytes; it needs ", bytes));
  }
  // uninitialized, not from_values: the bytes are copied as they are, without a widening pass.
  Tensor out = Tensor::uninitialized(dtype, tensor.shape, tensor.precision);
  if (dtype == DType::kInt8) {
    std::memcpy(out.i8(), tensor.data.data(), bytes);
  } else {
    std::memcpy(out.i32(), tensor.data.data(), bytes);
  }
  return out;
}

}  // namespace cvm
