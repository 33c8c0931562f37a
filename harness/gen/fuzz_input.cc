#include "harness/gen/fuzz_input.h"

#include <algorithm>
#include <limits>
#include <set>

#include "cvmcheck/tensor_cap.h"
#include "harness/engine/call_cost.h"
#include "harness/engine/diff.h"
#include "harness/gen/generators.h"
#include "harness/engine/verdict.h"
#include "ops/records.h"

namespace cvm {
namespace {

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  uint64_t u64() { return static_cast<uint64_t>(u32()) | (static_cast<uint64_t>(u32()) << 32); }
  // Attribute text: printable ASCII only, so the JSON layer always accepts it.
  std::string text(size_t length) {
    std::string out;
    for (size_t i = 0; i < length; ++i) {
      const uint8_t c = u8();
      out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : ' ';
    }
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class Writer {
 public:
  void u8(uint64_t v) { out_ += static_cast<char>(v & 0xff); }
  void u16(uint64_t v) { u8(v); u8(v >> 8); }
  void u32(uint64_t v) { u16(v); u16(v >> 16); }
  void u64(uint64_t v) { u32(v); u32(v >> 32); }
  void text(const std::string& s) { out_ += s; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

const char* kUnknownOp = "no_such_op";
const char* kUnknownKey = "no_such_attribute";

std::optional<Call> decode_generated(const OpInfo& op, Reader& in) {
  const OpGenerators* gens = generators_for(op);
  if (gens == nullptr) return std::nullopt;
  const uint64_t seed = in.u64();
  const int size = in.u8() % 101;
  const uint8_t rule = in.u8();
  try {
    // The generators draw under the reference's tensor cap: the few rules that need an input
    // of 2^24+ elements (flatten's and concatenate's output_dim_over_limit) took 0.5 s per exec
    // under ASan, with the corpus holding 4 of them, and are left to the campaign and the
    // properties. The cap stops them before their tensor is allocated.
    const ScopedTensorCap cap(kFuzzMaxTensorElements);
    Call call;
    if (rule == 0 || gens->invalid.empty()) {
      call = gens->valid(rc::Random(seed), size).value();
      call.expected = OutcomeKind::kOk;
    } else {
      call = gens->invalid[(rule - 1u) % gens->invalid.size()].gen(rc::Random(seed), size).value();
    }
    return call;
  } catch (...) {
    return std::nullopt;  // a generator that gave up, or a tensor over the cap
  }
}

}  // namespace

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = [] {
    std::vector<FuzzTarget> list;
    FuzzTarget all{"all", {}};
    std::vector<std::string> families;
    for (const OpInfo& op : ops::records().ops()) {
      if (std::find(families.begin(), families.end(), op.family) == families.end()) {
        families.push_back(op.family);
      }
    }
    for (const std::string& family : families) {
      FuzzTarget t{family, {}};
      for (const OpInfo& op : ops::records().ops()) {
        if (op.family != family) continue;
        t.names.push_back(op.name);
        for (const std::string& alias : op.aliases) t.names.push_back(alias);
      }
      all.names.insert(all.names.end(), t.names.begin(), t.names.end());
      list.push_back(std::move(t));
    }
    all.names.push_back(kUnknownOp);
    list.insert(list.begin(), std::move(all));
    return list;
  }();
  return targets;
}

const FuzzTarget* find_fuzz_target(const std::string& name) {
  for (const FuzzTarget& t : fuzz_targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const FuzzTarget& fuzz_target_named(const std::string& name) {
  const FuzzTarget* target = find_fuzz_target(name);
  if (target == nullptr) throw std::invalid_argument("unknown fuzz target '" + name + "'");
  return *target;
}

std::optional<Call> decode_fuzz_input(const FuzzTarget& target, const uint8_t* data, size_t size) {
  if (target.names.empty()) return std::nullopt;
  Reader in(data, size);
  Call call;
  call.op = target.names[in.u8() % target.names.size()];
  const OpInfo* op = ops::records().find_op(call.op);
  const uint8_t mode = in.u8();
  if ((mode & 0x80) != 0) {
    if (op == nullptr) return std::nullopt;
    return decode_generated(*op, in);
  }
  const size_t attr_count = in.u8() % 16;
  for (size_t k = 0; k < attr_count; ++k) {
    const uint8_t key = in.u8();
    const size_t length = in.u8();
    const std::string value = in.text(length);
    const bool known = op != nullptr && key < op->attrs.size();
    call.attrs[known ? op->attrs[key].name : std::string(kUnknownKey)] = value;
  }
  const size_t input_count = in.u8() % (kFuzzMaxInputs + 1);
  int64_t budget = kFuzzMaxElements;
  for (size_t k = 0; k < input_count; ++k) {
    const bool int8 = (in.u8() & 1) != 0;
    const int precision = in.u8() % 40;  // 0..39: the invalid ends 0 and 33+ included
    const int ndim = 1 + in.u8() % kMaxNdim;
    Shape shape;
    int64_t count = 1;
    for (int d = 0; d < ndim; ++d) {
      shape.push_back(std::max<int64_t>(1, in.u16()));
      count *= shape.back();
      if (count > budget) return std::nullopt;
    }
    budget -= count;
    std::vector<int32_t> given(std::min<size_t>(in.u16(), static_cast<size_t>(count)));
    for (int32_t& v : given) v = static_cast<int32_t>(in.u32());
    std::vector<int32_t> values(static_cast<size_t>(count), 0);
    for (size_t i = 0; !given.empty() && i < values.size(); ++i) {
      const int32_t v = given[i % given.size()];
      values[i] = int8 ? static_cast<int8_t>(v & 0xff) : v;
    }
    call.inputs.push_back(Tensor::from_values(shape, values, precision,
                                              int8 ? DType::kInt8 : DType::kInt32));
  }
  return call;
}

std::string encode_fuzz_input(const FuzzTarget& target, const Call& call) {
  Writer out;
  const auto it = std::find(target.names.begin(), target.names.end(), call.op);
  out.u8(it == target.names.end() ? 0 : it - target.names.begin());
  out.u8(0);
  const OpInfo* op = ops::records().find_op(call.op);
  const nlohmann::json attrs = call.attrs.is_object() ? call.attrs : nlohmann::json::object();
  out.u8(std::min<size_t>(attrs.size(), 15));
  size_t written = 0;
  for (const auto& [key, value] : attrs.items()) {
    if (written++ == 15) break;
    size_t selector = 255;
    for (size_t i = 0; op != nullptr && i < op->attrs.size(); ++i) {
      if (op->attrs[i].name == key) selector = i;
    }
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (text.size() > 255) text.resize(255);
    out.u8(selector);
    out.u8(text.size());
    out.text(text);
  }
  out.u8(std::min(call.inputs.size(), kFuzzMaxInputs));
  for (size_t k = 0; k < call.inputs.size() && k < kFuzzMaxInputs; ++k) {
    const Tensor& t = call.inputs[k];
    out.u8(t.dtype() == DType::kInt8 ? 1 : 0);
    out.u8(std::clamp(t.precision(), 0, 39));
    out.u8(t.ndim() - 1);
    for (int64_t d : t.shape()) out.u16(std::min<int64_t>(d, 65535));
    const int64_t count = std::min<int64_t>(t.size(), 65535);
    out.u16(count);
    for (int64_t i = 0; i < count; ++i) out.u32(static_cast<uint32_t>(t.get(i)));
  }
  return out.take();
}

std::string encode_generator_input(const FuzzTarget& target, const std::string& op, uint64_t seed,
                                   uint8_t size, uint8_t rule) {
  Writer out;
  const auto it = std::find(target.names.begin(), target.names.end(), op);
  out.u8(it == target.names.end() ? 0 : it - target.names.begin());
  out.u8(0x80);
  out.u64(seed);
  out.u8(size);
  out.u8(rule);
  return out.take();
}

std::optional<Outcome> bounded_reference(const Registry& registry, const Call& call) {
  try {
    const ScopedTensorCap cap(kFuzzMaxTensorElements);
    return run_op_outcome(registry, kReferenceBackend, call.op, call.attrs, call.inputs);
  } catch (const TensorCapExceeded&) {
    return std::nullopt;
  }
}

std::optional<std::string> fuzz_one(const Registry& registry, const Call& call) {
  // Every base backend on every input, each dispatch variant on one input in kVariantEvery
  // (chosen by the input's hash, so an input replays alike): the fuzzer's inputs are all small,
  // and a variant only forces a choice that its base's calls share, so its runs on every input
  // would multiply the time per exec for little new coverage.
  // A variant runs only the operators its forced choice can change (variant_ops).
  static const std::vector<std::string> compared = other_backends(registry);
  static const std::vector<VariantRule> rules = variant_rules(registry, compared);
  return fuzz_one(registry, call,
                  paying_backends(compared, rules, call.op,
                                  std::numeric_limits<double>::infinity(), call_hash(call)));
}

std::optional<std::string> fuzz_one(const Registry& registry, const Call& call,
                                    const std::vector<std::string>& backends) {
  std::optional<Outcome> reference = bounded_reference(registry, call);
  if (!reference) return std::nullopt;
  // The campaign's verdict (harness/engine/verdict.h). An explicit-mode call declares no expected
  // class: either error class is a right answer for the reference, runtime_error never is.
  Judgement how;
  how.backends = backends;
  how.free_form = !call.expected.has_value();
  how.reference = std::move(*reference);
  const CallVerdict verdict = judge(registry, call, std::move(how));
  if (verdict.passed) return std::nullopt;
  return verdict.report;
}

}  // namespace cvm
