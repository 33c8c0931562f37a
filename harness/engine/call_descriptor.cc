// Printing a call's descriptor (docs/call-descriptor.md), and the generated tensors it names;
// parsing is in call_descriptor_parse.cc.
#include "harness/engine/call_descriptor.h"

#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor_detail.h"

namespace cvm {
namespace {

using descriptor_detail::bare_char;
using descriptor_detail::malformed;

// ---- strings ------------------------------------------------------------------------------

// Compact JSON text in printable ASCII with no single quote: non-ASCII and control characters
// are \u escapes (ensure_ascii), and a quote or DEL, which JSON allows raw inside a string, is
// escaped too (outside strings JSON text holds neither).
std::string safe_json(const nlohmann::json& value, const char* what) {
  std::string text;
  try {
    text = value.dump(-1, ' ', true);
  } catch (const nlohmann::json::exception& e) {
    malformed(what, " cannot be written as JSON text (", e.what(), ")");
  }
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\'') {
      out += "\\u0027";
    } else if (c == '\x7f') {
      out += "\\u007f";
    } else {
      out += c;
    }
  }
  return out;
}

// A name as it is when it is a plain token, else as a JSON string.
std::string name_token(const std::string& name, const char* what) {
  bool bare = !name.empty();
  for (char c : name) bare = bare && bare_char(c);
  return bare ? name : safe_json(nlohmann::json(name), what);
}

// ---- tensors ------------------------------------------------------------------------------

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t content_hash(const Tensor& t) {
  uint64_t h = mix(static_cast<uint64_t>(t.dtype()) + 1);
  for (int64_t d : t.shape()) h = mix(h ^ static_cast<uint64_t>(d));
  for (int64_t i = 0; i < t.size(); ++i) h = mix(h ^ static_cast<uint32_t>(t.get(i)));
  return h;
}

// Tensors made by generated_tensor, by content hash; bounded (cleared when full), and every hit
// is checked by regenerating, so a stale or colliding entry can never print a wrong descriptor.
struct Generated {
  std::mutex mutex;
  std::unordered_map<uint64_t, ValueGenerator> by_hash;
};
Generated& generated() {
  static Generated table;
  return table;
}
constexpr size_t kMaxRemembered = 4096;

std::optional<ValueGenerator> recognise(const Tensor& t) {
  if (t.size() == 0) return std::nullopt;
  const uint64_t h = content_hash(t);
  ValueGenerator gen;
  {
    Generated& table = generated();
    const std::lock_guard<std::mutex> lock(table.mutex);
    const auto it = table.by_hash.find(h);
    if (it == table.by_hash.end()) return std::nullopt;
    gen = it->second;
  }
  for (int64_t i = 0; i < t.size(); ++i) {
    if (generated_value(gen, i) != t.get(i)) return std::nullopt;
  }
  return gen;
}

// Calls f(value, count) for each run of equal values.
template <typename F>
void for_each_run(const Tensor& t, F&& f) {
  for (int64_t i = 0; i < t.size();) {
    const int32_t v = t.get(i);
    int64_t run = 1;
    while (i + run < t.size() && t.get(i + run) == v) ++run;
    if (!f(v, run)) return;
    i += run;
  }
}

// The number of items of the inline list: a run of three or more is one item (v*count).
size_t inline_item_count(const Tensor& t) {
  size_t items = 0;
  for_each_run(t, [&items](int32_t, int64_t run) {
    items += run >= 3 ? 1 : static_cast<size_t>(run);
    return true;
  });
  return items;
}

// Appends the tensor's text; false (out then unspecified) once `out` is over `limit` characters,
// so that a bounded descriptor of a huge tensor stops early.
bool append_tensor(std::string& out, const Tensor& t, size_t limit) {
  out += t.dtype() == DType::kInt8 ? "i8:" : "i32:";
  if (t.shape().empty()) {
    out += "-";
  } else {
    for (size_t d = 0; d < t.shape().size(); ++d) {
      out += (d ? "x" : "") + std::to_string(t.shape()[d]);
    }
  }
  out += ":p" + std::to_string(t.precision()) + ":";
  if (inline_item_count(t) > kMaxInlineItems) {
    if (const std::optional<ValueGenerator> gen = recognise(t)) {
      out += "rand(" + std::to_string(gen->seed) + "," + std::to_string(gen->lo) + "," +
             std::to_string(gen->hi) + ")";
      return out.size() <= limit;
    }
  }
  out += "[";
  bool first = true;
  for_each_run(t, [&](int32_t v, int64_t run) {
    const std::string value = std::to_string(v);
    if (run >= 3) {
      out += (first ? "" : ",") + value + "*" + std::to_string(run);
    } else {
      for (int64_t k = 0; k < run; ++k) out += (first && k == 0 ? "" : ",") + value;
    }
    first = false;
    return out.size() <= limit;
  });
  out += "]";
  return out.size() <= limit;
}

// The descriptor, or nullopt once it is over `limit` characters.
std::optional<std::string> format_bounded(const Call& call, const std::string& backend,
                                          int threads, size_t limit) {
  std::string out = "op=" + name_token(call.op, "the operator name");
  out += " attrs=" + safe_json(call.attrs, "the attributes");
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    out += " in" + std::to_string(k) + "=";
    if (!append_tensor(out, call.inputs[k], limit)) return std::nullopt;
  }
  if (call.expected) out += std::string(" expect=") + outcome_name(*call.expected);
  if (!call.rule.empty()) out += " rule=" + name_token(call.rule, "the rule");
  if (!call.rule_id.empty()) out += " rule_id=" + name_token(call.rule_id, "the rule id");
  if (!backend.empty()) out += " backend=" + name_token(backend, "the backend name");
  if (threads > 0) out += " threads=" + std::to_string(threads);
  if (out.size() > limit) return std::nullopt;
  return out;
}

}  // namespace

// ---- public -------------------------------------------------------------------------------

int32_t generated_value(const ValueGenerator& gen, int64_t index) {
  const uint64_t z = mix(gen.seed + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(index) + 1));
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(gen.hi) - gen.lo) + 1;
  return static_cast<int32_t>(static_cast<int64_t>(gen.lo) + static_cast<int64_t>(z % span));
}

Tensor generated_tensor(DType dtype, const Shape& shape, int precision, const ValueGenerator& gen) {
  verify(gen.lo <= gen.hi, "value generator: LO ", gen.lo, " is above HI ", gen.hi);
  verify(dtype != DType::kInt8 || (gen.lo >= -128 && gen.hi <= 127), "value generator: [", gen.lo,
         ", ", gen.hi, "] does not fit int8");
  Tensor t = Tensor::zeros(dtype, shape, precision);
  for (int64_t i = 0; i < t.size(); ++i) {
    const int32_t v = generated_value(gen, i);
    if (dtype == DType::kInt8) {
      t.i8()[i] = static_cast<int8_t>(v);
    } else {
      t.i32()[i] = v;
    }
  }
  const uint64_t h = content_hash(t);
  Generated& table = generated();
  const std::lock_guard<std::mutex> lock(table.mutex);
  if (table.by_hash.size() >= kMaxRemembered) table.by_hash.clear();
  table.by_hash[h] = gen;
  return t;
}

namespace {
BackendThreadsQuery& threads_query() {
  static BackendThreadsQuery query;
  return query;
}
}  // namespace

void set_backend_threads_query(BackendThreadsQuery query) { threads_query() = std::move(query); }

int backend_threads(const std::string& backend) {
  const BackendThreadsQuery& query = threads_query();
  return query ? query(backend) : 0;
}

std::string format_call_descriptor(const CallDescriptor& d) {
  return *format_bounded(d.call, d.backend, d.threads, std::numeric_limits<size_t>::max());
}

std::string format_call_descriptor(const Call& call, const std::string& backend, int threads) {
  return *format_bounded(call, backend, threads, std::numeric_limits<size_t>::max());
}

std::string format_call_descriptor(const Call& call, const std::string& backend) {
  return format_call_descriptor(call, backend, backend_threads(backend));
}

std::optional<std::string> compact_call_descriptor(const Call& call, const std::string& backend,
                                                   std::string* why_not) {
  std::optional<std::string> text;
  try {
    text = format_bounded(call, backend, backend_threads(backend), kMaxCompactDescriptorChars);
  } catch (const LogicError& e) {
    if (why_not != nullptr) *why_not = e.what();
    return std::nullopt;
  }
  if (!text && why_not != nullptr) {
    *why_not = concat("the call's ", input_elements(call),
                      " input elements are arbitrary values (not runs, not from the value "
                      "generator): its descriptor is over the ",
                      kMaxCompactDescriptorChars, " characters of one line; replay its case "
                      "directory");
  }
  return text;
}

}  // namespace cvm
