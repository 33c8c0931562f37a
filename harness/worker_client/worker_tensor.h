// Conversions between cvm::Tensor and the worker protocol's tensor (worker_sdk/include/
// cvmcheck_worker.hpp), used on both sides of the protocol: `cvmcheck worker` turns a call's
// inputs into cvm::Tensors and its outputs back, the harness's client does the reverse.
#pragma once

#include "cvmcheck/tensor.h"
#include "cvmcheck_worker.hpp"

namespace cvm {

// The same dtype, shape, precision and bytes.
cvmcheck_worker::Tensor to_protocol(const Tensor& tensor);

// The same dtype, shape, precision and bytes. The shape is checked against the contract's limits
// (1..6 dims, each 1..2^24, at most 2^30 elements) before anything is allocated: a tensor that
// breaks them is a bad input, a LogicError naming `what`, as for a .npy file. Data whose size
// does not match the shape (only a hand-built protocol tensor can have that; the decoder refuses
// it) is a cvmcheck_worker::ProtocolError. Precision and values are not checked: that is the
// operator's job, so a bad one reaches the kernel as it would in process.
Tensor from_protocol(const cvmcheck_worker::Tensor& tensor, const std::string& what = "tensor");

}  // namespace cvm
