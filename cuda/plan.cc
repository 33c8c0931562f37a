#include "cuda/plan.h"

#include <map>
#include <set>
#include <string_view>

#include "cuda/paths.h"
#include "cvmcheck/op_list.h"

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

// The plan builder of each family (a listed family without one does not compile); every listed
// operator gets its family's builder.
constexpr Builder reduce_builder = plan_elementwise;
constexpr Builder broadcast_builder = plan_elementwise;
constexpr Builder elementwise_builder = plan_elementwise;
constexpr Builder nn_builder = plan_nn;
constexpr Builder transform_shape_builder = plan_transform;
constexpr Builder transform_index_builder = plan_transform;
constexpr Builder vision_builder = plan_vision_ov;
constexpr Builder ov_builder = plan_vision_ov;

Builder family_builder(std::string_view family) {
#define CVMCHECK_FAMILY_BUILDER(name) \
  if (family == #name) return name##_builder;
  CVMCHECK_FAMILIES(CVMCHECK_FAMILY_BUILDER)
#undef CVMCHECK_FAMILY_BUILDER
  return nullptr;
}

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = [] {
    std::map<std::string, Builder> t;
    for (const ListedOp& op : kOperatorList) {
      if (Builder b = family_builder(op.family)) t[std::string(op.name)] = b;
    }
    return t;
  }();
  return table;
}

}  // namespace

Plan build_plan(const OpContext& ctx, const KernelChoice& choice) {
  const auto it = builders().find(ctx.op.name);
  check(it != builders().end(), "no CUDA plan for operator ", ctx.op.name);
  Plan plan = it->second(ctx);
  choose_kernels(plan, choice);
  parallel_vision(plan, choice);
  for (const Step& step : plan.steps) check(step.count >= 1, "a plan step has no work items");
  return plan;
}

std::vector<std::string> planned_ops() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : builders()) names.push_back(name);
  return names;
}

Backend make_backend(const std::string& name, Runner runner, const KernelChoice& choice) {
  Backend backend;
  backend.name = name;
  for (const std::string& op : planned_ops()) {
    backend.add(op, [runner, choice](const OpContext& ctx) {
      return runner(build_plan(ctx, choice));
    });
  }
  path::declare(backend, choice);
  return backend;
}

const std::vector<VariantChoice>& variant_choices() {
  static const std::vector<VariantChoice> kChoices = {
      {"@tile", KernelChoice{.tile = kTileSmall}, {"conv2d", "dense"}},
      {"@warp", KernelChoice{.reduce = kReduceWarp}, {"sum", "max"}},
      {"@split", KernelChoice{.reduce = kReduceSplit}, {"sum", "max"}},
      {"@nms8", KernelChoice{.nms_block = kNmsBlockSmall}, {"non_max_suppression"}},
      {"/simple", KernelChoice{.tiled = false}, {}},
  };
  return kChoices;
}

namespace {

// The variant of `base` with `v`'s choice, running and declaring v.ops alone (so that other
// operators' calls do not run the base's kernels once more per variant), with their paths.
Backend make_variant(const Backend& base, const VariantChoice& v, Runner runner) {
  Backend variant = make_backend(base.name + v.suffix, runner, v.choice);
  variant.variant_of = base.name;
  if (!v.ops.empty()) {
    for (auto it = variant.kernels.begin(); it != variant.kernels.end();) {
      it = v.ops.count(it->first) != 0 ? std::next(it) : variant.kernels.erase(it);
    }
    variant.declared_ops = v.ops;
    std::vector<std::string> kept_paths;
    for (const std::string& id : variant.paths) {
      const PathInfo* info = paths::find(id);
      if (info == nullptr) continue;
      for (const std::string& op : info->ops) {
        if (v.ops.count(op) != 0) {
          kept_paths.push_back(id);
          break;
        }
      }
    }
    variant.paths = std::move(kept_paths);
    std::vector<PathThreshold> kept_thresholds;
    for (const PathThreshold& t : variant.thresholds) {
      for (const std::string& op : t.ops) {
        if (v.ops.count(op) != 0) {
          kept_thresholds.push_back(t);
          break;
        }
      }
    }
    variant.thresholds = std::move(kept_thresholds);
  }
  variant.available = base.available;
  // The base's reason up to its detail ("no CUDA device", "not built"), naming the base for the
  // rest: the summary prints one line per skipped backend, and the runtime's full message on
  // each variant's line made those lines overflow 100 columns.
  if (!base.available) {
    variant.unavailable_reason = base.unavailable_reason.substr(
                                     0, base.unavailable_reason.find(':')) +
                                 " (as " + base.name + ")";
  }
  variant.fork_safe = base.fork_safe;
  return variant;
}

}  // namespace

std::vector<Backend> make_variants(const Backend& base, Runner runner) {
  std::vector<Backend> variants;
  for (const VariantChoice& v : variant_choices()) variants.push_back(make_variant(base, v, runner));
  return variants;
}

}  // namespace cvm::cuda
