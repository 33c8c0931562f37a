// Shared pieces of the oneDNN worker's kernels: the engine and stream, tensors converted to the
// s8/s32 buffers oneDNN reads, and the one place that reports which oneDNN implementation ran a
// call (so that a per-call `paths` field of the worker protocol can take over from the log).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm::onednn {

dnnl::engine& engine();
dnnl::stream& stream();

// The values of a validated tensor as s8 (conv2d and dense inputs have precision <= 8, so every
// value is within [-127, 127]) or s32.
std::vector<int8_t> to_s8(const Tensor& t);
std::vector<int32_t> to_s32(const Tensor& t);

dnnl::memory::dims dims_of(const Shape& shape);
// The plain (row-major) format tag of a rank from 1 to 6.
dnnl::memory::format_tag plain_tag(size_t ndim);

// Records that the primitive `pd` ran for the current call of `op`: its impl_info_str() goes to
// the worker's log (stderr), one line per call, prefixed with the call id set by set_call_id.
void report_impl(const std::string& op, const dnnl::primitive_desc_base& pd);
void set_call_id(uint64_t id);

// The kernels, each validating with cvmcheck's production inference (infer/) before computing.
std::vector<Tensor> conv2d(const OpContext& ctx);
std::vector<Tensor> dense(const OpContext& ctx);
std::vector<Tensor> relu(const OpContext& ctx);
std::vector<Tensor> max_pool2d(const OpContext& ctx);
// elemwise_add/sub and broadcast_add/sub/mul/max/greater through the binary primitive.
std::vector<Tensor> binary_op(const OpContext& ctx);

}  // namespace cvm::onednn
