#include "harness/gen/generators.h"

#include <algorithm>

#include "cvmcheck/rules.h"
#include "harness/gen/path_aim.h"
#include "harness/gen/value_fill.h"
#include "ops/records.h"

namespace cvm::gen {

// RapidCheck scales inRange by the case size, so early (small) cases would draw mostly the
// lowest precision and tiny values, i.e. all-zero tensors. Precisions and values are drawn at
// full size; shrinking still works (towards lo and towards 0).
constexpr int kFullSize = 100;

rc::Gen<int> precision(int lo, int hi) {
  return rc::gen::resize(kFullSize,
                         rc::gen::weightedOneOf<int>({{1, rc::gen::just(lo)},
                                                      {1, rc::gen::just(hi)},
                                                      {4, rc::gen::inRange(lo, hi + 1)}}));
}

rc::Gen<int32_t> value(int p) {
  const int64_t a = alpha(p);
  auto as_int32 = [](int64_t v) { return static_cast<int32_t>(v); };
  return rc::gen::resize(
      kFullSize, rc::gen::weightedOneOf<int32_t>(
                     {{3, rc::gen::elementOf(edge_values(p))},
                      {2, rc::gen::map(rc::gen::inRange<int64_t>(-a, a + 1), as_int32)}}));
}

namespace {
thread_local int t_per_element_scopes = 0;
}

ScopedPerElementValues::ScopedPerElementValues() { ++t_per_element_scopes; }
ScopedPerElementValues::~ScopedPerElementValues() { --t_per_element_scopes; }

rc::Gen<Tensor> tensor(const Shape& shape, int p, bool int8) {
  const int64_t count = shape_size(shape);
  auto to_tensor = [shape, p, int8](const std::vector<int32_t>& values) {
    return Tensor::from_values(shape, values, p, int8 ? DType::kInt8 : DType::kInt32);
  };
  return rc::Gen<Tensor>([count, p, to_tensor](const rc::Random& random, int size) {
    // Chosen when drawn, not when the generator is made: the generator records are built once.
    const rc::Gen<std::vector<int32_t>> values =
        t_per_element_scopes > 0
            ? rc::gen::container<std::vector<int32_t>>(static_cast<size_t>(count), value(p))
            : filled_values(count, p);
    return rc::shrinkable::map(values(random, size), to_tensor);
  });
}

rc::Gen<Tensor> tensor_any_dtype(const Shape& shape, int p) {
  if (p > 8) return tensor(shape, p, false);
  return rc::gen::mapcat(rc::gen::arbitrary<bool>(),
                         [shape, p](bool int8) { return tensor(shape, p, int8); });
}

rc::Gen<Shape> shape(int min_ndim, int max_ndim, int64_t max_dim, int64_t max_elements) {
  return rc::gen::exec([=] {
    const int ndim = *rc::gen::inRange(min_ndim, max_ndim + 1);
    Shape dims = *rc::gen::container<Shape>(static_cast<size_t>(ndim),
                                            rc::gen::inRange<int64_t>(1, max_dim + 1));
    // Halve the largest dim until the element budget holds; the ndim is kept.
    while (shape_size(dims) > max_elements) {
      auto largest = std::max_element(dims.begin(), dims.end());
      *largest = std::max<int64_t>(1, *largest / 2);
    }
    return dims;
  });
}

Shape shape_aimed(const std::string& op, int min_ndim, int max_ndim) {
  std::optional<Shape> aimed = aimed_shape(op, min_ndim, max_ndim);
  return aimed ? *aimed : *shape(min_ndim, max_ndim);
}

rc::Gen<int64_t> axis(int n) { return rc::gen::inRange<int64_t>(-n, n); }

rc::Gen<int64_t> spell_axis(int64_t a, int n) {
  return rc::gen::elementOf(std::vector<int64_t>{a, a - n});
}

rc::Gen<std::vector<int64_t>> distinct_axes(int n) {
  return rc::gen::exec([n] {
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
    const auto shuffled = *rc::gen::container<std::vector<int>>(static_cast<size_t>(n),
                                                                rc::gen::inRange(0, 1 << 16));
    // Sort the axes by random keys: a random permutation that shrinks towards the identity.
    std::vector<size_t> idx(static_cast<size_t>(n));
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t x, size_t y) { return shuffled[x] < shuffled[y]; });
    const auto count = *rc::gen::inRange<size_t>(0, static_cast<size_t>(n) + 1);
    std::vector<int64_t> axes;
    for (size_t i = 0; i < count; ++i) axes.push_back(*spell_axis(order[idx[i]], n));
    return axes;
  });
}

std::string tuple_text_plain(const std::vector<int64_t>& entries) {
  std::string text = "(";
  for (size_t i = 0; i < entries.size(); ++i) text += (i ? ", " : "") + std::to_string(entries[i]);
  return text + (entries.size() == 1 ? ",)" : ")");
}

rc::Gen<std::string> tuple_text(const std::vector<int64_t>& entries) {
  std::string bracketed = "[";
  for (size_t i = 0; i < entries.size(); ++i) bracketed += (i ? "," : "") + std::to_string(entries[i]);
  bracketed += "]";
  std::vector<std::string> spellings = {tuple_text_plain(entries), bracketed};
  if (entries.size() == 1) spellings.push_back(std::to_string(entries[0]));
  return rc::gen::elementOf(spellings);
}

rc::Gen<std::string> bool_text(bool value) {
  return rc::gen::elementOf(value ? std::vector<std::string>{"true", "True", "1"}
                                  : std::vector<std::string>{"false", "False", "0"});
}

namespace {

// `call` declared as breaking `rule`: its name, its id and the expected outcome logic_error.
Call invalid_call(Call call, const std::string& rule) {
  const OpInfo* op = ops::records().find_op(call.op);
  call.rule_id = rule_id(op != nullptr ? op->name : call.op, rule);
  call.rule = rule;
  call.expected = OutcomeKind::kLogicError;
  return call;
}

}  // namespace

void add_rule(std::vector<InvalidGenerator>& rules, const std::string& rule,
              std::function<Call()> make) {
  rules.push_back(
      InvalidGenerator(rule, rc::gen::exec([rule, make] { return invalid_call(make(), rule); })));
}

bool coin() { return *rc::gen::arbitrary<bool>(); }

int draw_precision(int lo, int hi) { return *rc::gen::resize(100, precision(lo, hi)); }

std::string rule_id(const std::string& op, const std::string& rule) {
  // Generator names of global rules: common_invalid's, and operator rules that break a global
  // rule (the reference raises these from its shared output and attribute checks).
  static const std::map<std::string, std::string> kGlobal = {
      {"value_outside_precision", rules::kValueRange},
      {"data_value_outside_precision_at_scale", rules::kValueRange},
      {"weight_value_outside_precision_at_scale", rules::kValueRange},
      {"precision_0", rules::kPrecisionRange},
      {"precision_33", rules::kPrecisionRange},
      {"int8_precision_above_8", rules::kInt8Precision},
      {"one_input_too_many", rules::kInputCount},
      {"one_input_too_few", rules::kInputCount},
      {"unknown_attribute", rules::kAttrUnknown},
      {"output_precision_above_32", rules::kOutputPrecision},
      {"sum_precision_above_32", rules::kOutputPrecision},
      {"output_over_element_limit", rules::kTensorLimits},
      {"output_too_many_elements", rules::kTensorLimits},
      {"output_dim_over_limit", rules::kTensorLimits},
      {"output_elements_over_limit", rules::kTensorLimits},
      {"output_ndim_above_6", rules::kTensorLimits},
      {"output_over_limits", rules::kTensorLimits},
      {"output_above_6_dims", rules::kTensorLimits},
      {"output_0_dims", rules::kTensorLimits},
      {"layout_unsupported", rules::kAttrMalformed},
      {"kernel_layout_unsupported", rules::kAttrMalformed},
      {"out_layout_unsupported", rules::kAttrMalformed},
      {"out_dtype_unsupported", rules::kAttrMalformed},
      {"method_unsupported", rules::kAttrMalformed},
      {"mode_not_constant", rules::kAttrMalformed},
  };
  const auto it = kGlobal.find(rule);
  if (it != kGlobal.end()) return it->second;
  // common_invalid's per-attribute rules.
  const std::pair<const char*, const char*> prefixes[] = {{"malformed_", rules::kAttrMalformed},
                                                          {"non_string_", rules::kAttrNotString},
                                                          {"missing_", rules::kAttrMissing}};
  for (const auto& prefix : prefixes) {
    if (rule.rfind(prefix.first, 0) == 0) return prefix.second;
  }
  return rules::qualify(op, rule);
}

namespace {

// A malformed text for an attribute of `kind`; empty when every text is accepted.
std::string malformed_text(const AttrSpec& spec) {
  switch (spec.kind) {
    case AttrKind::kInt: return "1.5";
    case AttrKind::kBool: return "maybe";
    case AttrKind::kTuple: return "(1,,2)";
    case AttrKind::kOptInt: return "none";
    case AttrKind::kString: return spec.choices.empty() ? "" : "bogus";
  }
  return "";
}

// A valid call (with at least one input) with one input changed by `mutate(input, index)`.
template <typename Mutate>
std::function<Call()> input_mutated(const rc::Gen<Call>& valid, Mutate mutate) {
  return [=] {
    Call call = *valid;
    RC_PRE(!call.inputs.empty());
    const auto k = *rc::gen::inRange<size_t>(0, call.inputs.size());
    mutate(call.inputs[k], k);
    return call;
  };
}

// A valid call changed by `change(call)`.
template <typename Change>
std::function<Call()> changed(const rc::Gen<Call>& valid, Change change) {
  return [=] {
    Call call = *valid;
    change(call);
    return call;
  };
}

}  // namespace

std::vector<InvalidGenerator> common_invalid(const OpInfo& op, const rc::Gen<Call>& valid) {
  std::vector<InvalidGenerator> out;
  add_rule(out, "value_outside_precision", input_mutated(valid, [](Tensor& t, size_t) {
             // -(alpha(p)+1) fits the storage for int8 (p <= 8) and int32 (INT32_MIN at 32).
             const int32_t outside = static_cast<int32_t>(-(alpha(t.precision()) + 1));
             const auto i = *rc::gen::inRange<int64_t>(0, t.size());
             std::vector<int32_t> values = t.values();
             values[static_cast<size_t>(i)] = outside;
             t = Tensor::from_values(t.shape(), values, t.precision(), t.dtype());
           }));
  add_rule(out, "precision_0", input_mutated(valid, [](Tensor& t, size_t) { t.set_precision(0); }));
  add_rule(out, "precision_33",
           input_mutated(valid, [](Tensor& t, size_t) { t.set_precision(33); }));
  add_rule(out, "int8_precision_above_8", input_mutated(valid, [](Tensor& t, size_t) {
             std::vector<int32_t> values = t.values();
             for (int32_t& v : values) v = std::clamp(v, -127, 127);
             t = Tensor::from_values(t.shape(), values, *rc::gen::inRange(9, 33), DType::kInt8);
           }));
  if (op.max_inputs != OpInfo::kUnbounded) {
    add_rule(out, "one_input_too_many", changed(valid, [max = op.max_inputs](Call& call) {
               RC_PRE(!call.inputs.empty());
               call.inputs.push_back(call.inputs.back());
               while (static_cast<int>(call.inputs.size()) <= max) {
                 call.inputs.push_back(call.inputs.back());
               }
             }));
  }
  if (op.min_inputs > 0) {
    add_rule(out, "one_input_too_few", changed(valid, [min = op.min_inputs](Call& call) {
               call.inputs.resize(static_cast<size_t>(min - 1));
             }));
  }
  add_rule(out, "unknown_attribute",
           changed(valid, [](Call& call) { call.attrs["no_such_attribute"] = "1"; }));
  for (const AttrSpec& spec : op.attrs) {
    const std::string name = spec.name;
    const std::string malformed = malformed_text(spec);
    if (!malformed.empty()) {
      add_rule(out, "malformed_" + name,
               changed(valid, [name, malformed](Call& call) { call.attrs[name] = malformed; }));
    }
    add_rule(out, "non_string_" + name,
             changed(valid, [name](Call& call) { call.attrs[name] = 1; }));
    if (!spec.default_text) {
      add_rule(out, "missing_" + name,
               changed(valid, [name](Call& call) { call.attrs.erase(name); }));
    }
  }
  return out;
}

}  // namespace cvm::gen
