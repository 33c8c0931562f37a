#include "infer/outputs.h"

#include <map>
#include <string>

#include "cvmcheck/errors.h"
#include "infer/elementwise.h"
#include "infer/nn.h"
#include "infer/ov.h"
#include "infer/reduce.h"
#include "infer/transform_index.h"
#include "infer/transform_shape.h"
#include "infer/vision.h"

namespace cvm::infer {
namespace {

using Specs = std::vector<OutputSpec>;
using Rule = Specs (*)(const OpContext&);

OutputSpec same_shape(const OpContext& ctx, int precision) {
  return {ctx.inputs[0].shape(), precision};
}

Specs same_precision(const OpContext& ctx) { return {same_shape(ctx, ctx.inputs[0].precision())}; }

Specs shifted(const OpContext& ctx) {
  const int p = precision_attr(ctx);
  shift_attr(ctx, ctx.op.name == "cvm_left_shift");
  return {same_shape(ctx, p)};
}

Specs broadcast(const OpContext& ctx) { return {infer_broadcast(ctx, ctx.op.name).output}; }

// One entry per operator: its output specs from the production inference.
const std::map<std::string, Rule>& rules_by_operator() {
  static const std::map<std::string, Rule> kRules = {
      {"abs", same_precision},
      {"negative", same_precision},
      // bitlen of any int32 magnitude (at most 31) fits precision 6
      {"cvm_precision", [](const OpContext& c) -> Specs { return {same_shape(c, 6)}; }},
      {"clip", [](const OpContext& c) -> Specs { return {same_shape(c, infer_clip(c).precision)}; }},
      {"cvm_clip", [](const OpContext& c) -> Specs { return {same_shape(c, precision_attr(c))}; }},
      {"cvm_right_shift", shifted},
      {"cvm_left_shift", shifted},
      {"elemwise_add", [](const OpContext& c) -> Specs { return {infer_elemwise_binary(c)}; }},
      {"elemwise_sub", [](const OpContext& c) -> Specs { return {infer_elemwise_binary(c)}; }},
      {"broadcast_add", broadcast},
      {"broadcast_sub", broadcast},
      {"broadcast_mul", broadcast},
      {"broadcast_div", broadcast},
      {"broadcast_max", broadcast},
      {"broadcast_greater", broadcast},
      {"conv2d", [](const OpContext& c) -> Specs { return {infer_conv2d(c).output}; }},
      {"dense", [](const OpContext& c) -> Specs { return {infer_dense(c).output}; }},
      {"relu", [](const OpContext& c) -> Specs { return {infer_relu(c)}; }},
      {"max_pool2d", [](const OpContext& c) -> Specs { return {infer_max_pool2d(c).output}; }},
      {"upsampling", [](const OpContext& c) -> Specs { return {infer_upsampling(c).output}; }},
      {"sum", [](const OpContext& c) -> Specs { return {infer_reduce(c, true).output}; }},
      {"max", [](const OpContext& c) -> Specs { return {infer_reduce(c, false).output}; }},
      {"repeat", [](const OpContext& c) -> Specs { return {infer_repeat(c).output}; }},
      {"tile", [](const OpContext& c) -> Specs { return {infer_tile(c).output}; }},
      {"concatenate", [](const OpContext& c) -> Specs { return {infer_concatenate(c).output}; }},
      {"flatten", [](const OpContext& c) -> Specs { return {infer_flatten(c)}; }},
      {"expand_dims", [](const OpContext& c) -> Specs { return {infer_expand_dims(c)}; }},
      {"reshape", [](const OpContext& c) -> Specs { return {infer_reshape(c)}; }},
      {"squeeze", [](const OpContext& c) -> Specs { return {infer_squeeze(c)}; }},
      {"transpose", [](const OpContext& c) -> Specs { return {infer_transpose(c).output}; }},
      {"strided_slice", [](const OpContext& c) -> Specs { return {infer_strided_slice(c).output}; }},
      {"take", [](const OpContext& c) -> Specs { return {infer_take(c).output}; }},
      {"cvm_lut", [](const OpContext& c) -> Specs { return {infer_cvm_lut(c)}; }},
      {"slice_like", [](const OpContext& c) -> Specs { return {infer_slice_like(c)}; }},
      {"where", [](const OpContext& c) -> Specs { return {infer_where(c).output}; }},
      {"pad", [](const OpContext& c) -> Specs { return {infer_pad(c).output}; }},
      {"get_valid_counts",
       [](const OpContext& c) -> Specs {
         const GetValidCountsInference g = infer_get_valid_counts(c);
         return {g.count, g.rows};
       }},
      {"non_max_suppression", [](const OpContext& c) -> Specs { return {infer_nms(c).output}; }},
      {"ov_strided_slice",
       [](const OpContext& c) -> Specs { return {infer_ov_strided_slice(c).output}; }},
  };
  return kRules;
}

}  // namespace

bool has_output_specs(const std::string& op) { return rules_by_operator().count(op) != 0; }

std::vector<OutputSpec> output_specs(const OpContext& ctx) {
  validate_inputs(ctx);
  const auto rule = rules_by_operator().find(ctx.op.name);
  if (rule == rules_by_operator().end()) {
    fail_runtime("no production inference for operator '", ctx.op.name, "'");
  }
  Specs out = rule->second(ctx);
  for (const OutputSpec& spec : out) validate_output(spec);
  return out;
}

}  // namespace cvm::infer
