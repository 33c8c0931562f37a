#include "harness/graph/graph_infer.h"

#include <nlohmann/json.hpp>

#include "cvmcheck/rules.h"
#include "infer/elementwise.h"
#include "infer/nn.h"
#include "infer/ov.h"
#include "infer/reduce.h"
#include "infer/transform_index.h"
#include "infer/transform_shape.h"
#include "infer/vision.h"

namespace cvm::graph {
namespace {

using infer::OutputSpec;
using Specs = std::vector<OutputSpec>;

OutputSpec same_shape(const OpContext& ctx, int precision) {
  return {ctx.inputs[0].shape(), precision};
}

// The operators whose output is the input's shape at a precision of the attributes'.
bool elementwise(const OpContext& ctx, const std::string& op, Specs& out) {
  const int p0 = ctx.inputs[0].precision();
  if (op == "abs" || op == "negative") {
    out = {same_shape(ctx, p0)};
  } else if (op == "cvm_precision") {
    out = {same_shape(ctx, 6)};  // bitlen of any int32 magnitude (at most 31) fits precision 6
  } else if (op == "clip") {
    out = {same_shape(ctx, infer::infer_clip(ctx).precision)};
  } else if (op == "cvm_clip") {
    out = {same_shape(ctx, infer::precision_attr(ctx))};
  } else if (op == "cvm_right_shift" || op == "cvm_left_shift") {
    const int p = infer::precision_attr(ctx);
    infer::shift_attr(ctx, op == "cvm_left_shift");
    out = {same_shape(ctx, p)};
  } else if (op == "elemwise_add" || op == "elemwise_sub") {
    out = {infer::infer_elemwise_binary(ctx)};
  } else if (op.rfind("broadcast_", 0) == 0) {
    out = {infer::infer_broadcast(ctx, op).output};
  } else {
    return false;
  }
  return true;
}

bool nn_or_reduce(const OpContext& ctx, const std::string& op, Specs& out) {
  if (op == "conv2d") {
    out = {infer::infer_conv2d(ctx).output};
  } else if (op == "dense") {
    out = {infer::infer_dense(ctx).output};
  } else if (op == "relu") {
    out = {infer::infer_relu(ctx)};
  } else if (op == "max_pool2d") {
    out = {infer::infer_max_pool2d(ctx).output};
  } else if (op == "upsampling") {
    out = {infer::infer_upsampling(ctx).output};
  } else if (op == "sum" || op == "max") {
    out = {infer::infer_reduce(ctx, op == "sum").output};
  } else {
    return false;
  }
  return true;
}

bool transform_shape(const OpContext& ctx, const std::string& op, Specs& out) {
  if (op == "repeat") {
    out = {infer::infer_repeat(ctx).output};
  } else if (op == "tile") {
    out = {infer::infer_tile(ctx).output};
  } else if (op == "concatenate") {
    out = {infer::infer_concatenate(ctx).output};
  } else if (op == "flatten") {
    out = {infer::infer_flatten(ctx)};
  } else if (op == "expand_dims") {
    out = {infer::infer_expand_dims(ctx)};
  } else if (op == "reshape") {
    out = {infer::infer_reshape(ctx)};
  } else if (op == "squeeze") {
    out = {infer::infer_squeeze(ctx)};
  } else if (op == "transpose") {
    out = {infer::infer_transpose(ctx).output};
  } else {
    return false;
  }
  return true;
}

bool transform_index_or_vision(const OpContext& ctx, const std::string& op, Specs& out) {
  if (op == "strided_slice") {
    out = {infer::infer_strided_slice(ctx).output};
  } else if (op == "take") {
    out = {infer::infer_take(ctx).output};
  } else if (op == "cvm_lut") {
    out = {infer::infer_cvm_lut(ctx)};
  } else if (op == "slice_like") {
    out = {infer::infer_slice_like(ctx)};
  } else if (op == "where") {
    out = {infer::infer_where(ctx).output};
  } else if (op == "pad") {
    out = {infer::infer_pad(ctx).output};
  } else if (op == "get_valid_counts") {
    const infer::GetValidCountsInference g = infer::infer_get_valid_counts(ctx);
    out = {g.count, g.rows};
  } else if (op == "non_max_suppression") {
    out = {infer::infer_nms(ctx).output};
  } else if (op == "ov_strided_slice") {
    out = {infer::infer_ov_strided_slice(ctx).output};
  } else {
    return false;
  }
  return true;
}

Specs production_outputs(const OpContext& ctx) {
  infer::validate_inputs(ctx);
  const std::string& op = ctx.op.name;
  Specs out;
  if (!elementwise(ctx, op, out) && !nn_or_reduce(ctx, op, out) && !transform_shape(ctx, op, out) &&
      !transform_index_or_vision(ctx, op, out)) {
    fail_runtime("no production inference for operator '", op, "'");
  }
  for (const OutputSpec& spec : out) infer::validate_output(spec);
  return out;
}

}  // namespace

std::vector<EntrySpec> infer_node(const Registry& registry, const std::string& op_name,
                                  const nlohmann::json& attrs_json,
                                  const std::vector<EntrySpec>& inputs) {
  const OpInfo* op = registry.find_op(op_name);
  verify_rule(op != nullptr, rules::kUnknownOperator, "unknown operator '", op_name, "'");
  try {
    const Attrs attrs = parse_attrs(op->attrs, attrs_json);
    const auto count = static_cast<int64_t>(inputs.size());
    verify_rule(count >= op->min_inputs &&
                    (op->max_inputs == OpInfo::kUnbounded || count <= op->max_inputs),
                rules::kInputCount, "takes ", op->min_inputs, "..", op->max_inputs,
                " inputs, got ", count);
    std::vector<Tensor> placeholders;
    for (const EntrySpec& in : inputs) {
      placeholders.push_back(Tensor::zeros(DType::kInt32, in.shape, in.precision));
    }
    std::vector<EntrySpec> out;
    for (const OutputSpec& spec : production_outputs(OpContext{*op, attrs, placeholders})) {
      out.push_back({spec.shape, spec.precision});
    }
    return out;
  } catch (const LogicError& e) {
    throw LogicError(op->name + ": " + e.what(), rules::qualify(op->name, e.rule()));
  }
}

}  // namespace cvm::graph
