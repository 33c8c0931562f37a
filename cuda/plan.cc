#include "cuda/plan.h"

#include <map>

namespace cvm::cuda {

Dims to_dims(const Shape& shape) {
  check(shape.size() <= static_cast<size_t>(kMaxDims), "shape ", shape_str(shape),
        " has over 6 dims");
  Dims dims;
  dims.n = static_cast<int32_t>(shape.size());
  for (size_t j = 0; j < shape.size(); ++j) dims.d[j] = shape[j];
  return dims;
}

std::vector<int64_t> strides_of(const Shape& shape) { return row_major_strides(shape); }

Plan single_output_plan(const OpContext& ctx, const infer::OutputSpec& spec) {
  Plan plan;
  for (const Tensor& t : ctx.inputs) plan.inputs.push_back(&t);
  infer::validate_output(spec);
  plan.outputs.push_back(spec);
  return plan;
}

namespace {

using Builder = Plan (*)(const OpContext&);

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = [] {
    std::map<std::string, Builder> t;
    for (const char* op :
         {"abs", "negative", "cvm_precision", "clip", "cvm_clip", "cvm_right_shift",
          "cvm_left_shift", "elemwise_add", "elemwise_sub", "broadcast_add", "broadcast_sub",
          "broadcast_mul", "broadcast_div", "broadcast_max", "broadcast_greater", "sum", "max"}) {
      t[op] = plan_elementwise;
    }
    for (const char* op : {"conv2d", "dense", "relu", "max_pool2d", "upsampling"}) t[op] = plan_nn;
    for (const char* op :
         {"repeat", "tile", "flatten", "concatenate", "expand_dims", "reshape", "squeeze",
          "transpose", "strided_slice", "take", "cvm_lut", "slice_like", "where", "pad"}) {
      t[op] = plan_transform;
    }
    for (const char* op : {"get_valid_counts", "non_max_suppression", "ov_strided_slice"}) {
      t[op] = plan_vision_ov;
    }
    return t;
  }();
  return table;
}

}  // namespace

Plan build_plan(const OpContext& ctx) {
  const auto it = builders().find(ctx.op.name);
  check(it != builders().end(), "no CUDA plan for operator ", ctx.op.name);
  Plan plan = it->second(ctx);
  for (const Step& step : plan.steps) check(step.count >= 1, "a plan step has no work items");
  return plan;
}

std::vector<std::string> planned_ops() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : builders()) names.push_back(name);
  return names;
}

Backend make_backend(const std::string& name, Runner runner) {
  Backend backend;
  backend.name = name;
  for (const std::string& op : planned_ops()) {
    backend.add(op, [runner](const OpContext& ctx) { return runner(build_plan(ctx)); });
  }
  return backend;
}

}  // namespace cvm::cuda
