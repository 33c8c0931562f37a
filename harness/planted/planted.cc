#include "harness/planted/planted.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"

namespace cvm {
namespace {

int64_t clip(int64_t v, int64_t a) { return v < -a ? -a : (v > a ? a : v); }

// Replaces each output value by f(value, flat index, ctx), keeping shapes and precisions.
template <typename F>
Kernel map_outputs(Kernel inner, F f) {
  return [inner, f](const OpContext& ctx) {
    std::vector<Tensor> outputs = inner(ctx);
    for (Tensor& y : outputs) {
      for (int64_t i = 0; i < y.size(); ++i) y.set(i, f(y.get(i), i, ctx));
    }
    return outputs;
  };
}

Kernel planted_kernel(const Kernel& inner, const std::string& backend) {
  if (backend == "planted-max-clamps-at-zero") {
    // The original runtime's max over axis=() started from 0 instead of the first element.
    return map_outputs(inner, [](int32_t v, int64_t, const OpContext&) { return v < 0 ? 0 : v; });
  }
  if (backend == "planted-right-shift-ties-to-zero") {
    // Rounds x / 2^s half toward zero instead of half toward +infinity.
    return map_outputs(inner, [](int32_t v, int64_t i, const OpContext& ctx) {
      const int64_t s = ctx.attrs.i("shift_bit");
      const int64_t x = ctx.inputs[0].get(i);
      const int64_t half = int64_t{1} << (s - 1);
      const int64_t rem = ((x % (2 * half)) + 2 * half) % (2 * half);
      const bool positive_tie = x > 0 && rem == half;
      return static_cast<int32_t>(
          positive_tie ? clip(int64_t{v} - 1, alpha(static_cast<int>(ctx.attrs.i("precision"))))
                       : v);
    });
  }
  if (backend == "planted-clip-upper-bound-off-by-one") {
    // cvm_clip's upper bound one below alpha(precision).
    return map_outputs(inner, [](int32_t v, int64_t, const OpContext& ctx) {
      const int64_t a = alpha(static_cast<int>(ctx.attrs.i("precision")));
      return static_cast<int32_t>(v > a - 1 ? a - 1 : v);
    });
  }
  if (backend == "planted-sum-error-class-swapped") {
    // Reports bad inputs as implementation failures.
    return [inner](const OpContext& ctx) {
      try {
        return inner(ctx);
      } catch (const LogicError& e) {
        throw RuntimeError(e.what());
      }
    };
  }
  if (backend == "planted-sum-duplicate-axis-wrong-rule") {
    // The right class for the wrong reason: a repeated axis reported as an axis out of range,
    // as when the duplicate check is folded into the range check. Only rule ids can tell.
    return [inner](const OpContext& ctx) {
      try {
        return inner(ctx);
      } catch (const LogicError& e) {
        if (e.rule() == "axis_duplicate") throw LogicError(e.what(), "axis_out_of_range");
        throw;
      }
    };
  }
  if (backend == "planted-broadcast-add-precision-too-small") {
    // Infers max(p0, p1) instead of max(p0, p1) + 1.
    return [inner](const OpContext& ctx) {
      std::vector<Tensor> outputs = inner(ctx);
      for (Tensor& y : outputs) y.set_precision(y.precision() - 1);
      return outputs;
    };
  }
  if (backend == "planted-dense-range-check-misses-high-at-scale") {
    // The value check of a threaded, packed path that keeps only the low side of the range:
    // above the work threshold, a value above alpha(p) is taken as alpha(p) (the bug of the
    // five surviving mutants of the value check). Small calls and values below stay checked.
    return [inner](const OpContext& ctx) {
      if (ctx.inputs.size() < 2 || ctx.inputs[0].ndim() != 2 || ctx.inputs[1].ndim() != 2) {
        return inner(ctx);
      }
      const int64_t work = ctx.inputs[0].size() * ctx.inputs[1].shape()[0];
      if (work < (int64_t{1} << 16)) return inner(ctx);
      std::vector<Tensor> inputs = ctx.inputs;
      for (size_t k = 0; k < 2; ++k) {
        const int64_t a = alpha(inputs[k].precision());
        std::vector<int32_t> values = inputs[k].values();
        for (int32_t& v : values) v = static_cast<int32_t>(std::min<int64_t>(v, a));
        inputs[k] = Tensor::from_values(inputs[k].shape(), values, inputs[k].precision(),
                                        inputs[k].dtype());
      }
      return inner(OpContext{ctx.op, ctx.attrs, inputs});
    };
  }
  fail_runtime("unknown planted backend '", backend, "'");
}

}  // namespace

const std::vector<PlantedBug>& planted_bugs() {
  static const std::vector<PlantedBug> bugs = {
      {"planted-max-clamps-at-zero", "max", "max returns max(0, true max)", false},
      {"planted-right-shift-ties-to-zero", "cvm_right_shift",
       "cvm_right_shift rounds positive ties toward zero", false},
      {"planted-clip-upper-bound-off-by-one", "cvm_clip",
       "cvm_clip clips to alpha - 1 instead of alpha", false},
      {"planted-sum-error-class-swapped", "sum", "sum raises runtime_error for bad inputs", true},
      {"planted-broadcast-add-precision-too-small", "broadcast_add",
       "broadcast_add infers max(p0, p1) instead of max(p0, p1) + 1", false},
      {"planted-sum-duplicate-axis-wrong-rule", "sum",
       "sum reports a repeated axis as sum.axis_out_of_range (right class, wrong rule id)", true},
      {"planted-dense-range-check-misses-high-at-scale", "dense",
       "dense lets a value above alpha(p) through on calls above the work threshold", true},
  };
  return bugs;
}

Backend make_planted_backend(const Backend& reference, const PlantedBug& bug) {
  Backend backend;
  backend.name = bug.backend;
  auto it = reference.kernels.find(bug.op);
  if (it != reference.kernels.end()) backend.add(bug.op, planted_kernel(it->second, bug.backend));
  return backend;
}

const std::string& planted_unreached_path() {
  static const std::string id = [] {
    const char* text = std::getenv("CVMCHECK_PLANTED_UNREACHED_PATH");
    return std::string(text == nullptr ? "" : text);
  }();
  return id;
}

void add_planted_from_env(Registry& registry) {
  const char* text = std::getenv("CVMCHECK_PLANTED");
  if (text == nullptr || *text == '\0') return;
  const Backend* reference = registry.find_backend(kReferenceBackend);
  if (reference == nullptr) return;
  const std::string wanted = std::string(",") + text + ",";
  // Made first, added after: add_backend may reallocate the registry's backends, which would
  // leave `reference` dangling for the next planted backend (all but the first then had no
  // kernel, so CVMCHECK_PLANTED=all compared nothing on four of the five).
  std::vector<Backend> planted;
  for (const PlantedBug& bug : planted_bugs()) {
    if (wanted == ",all," || wanted.find("," + bug.backend + ",") != std::string::npos) {
      planted.push_back(make_planted_backend(*reference, bug));
    }
  }
  for (Backend& backend : planted) registry.add_backend(std::move(backend));
}

}  // namespace cvm
