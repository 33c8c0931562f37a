#include "harness/path_oracle/path_marks.h"

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>

namespace cvm::path_oracle {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// `scope` "@3" or "/simple": the backend's name ends with it; "?id": it can take path id.
bool in_scope(const std::string& scope, const Backend& backend) {
  if (scope.empty() || scope[0] != '?') return ends_with(backend.name, scope);
  const std::string id = scope.substr(1);
  return contains(backend.paths, id) && backend.unreachable_paths.count(id) == 0;
}

std::string describe_call(const PathCall& c) {
  std::string text = c.op + " " + c.attrs;
  for (const ExampleTensor& t : c.inputs) {
    text += ' ';  // appended: GCC 12 warns, falsely, on " " + std::string temporaries
    text += shape_str(t.shape);
    text += t.dtype == DType::kInt8 ? "i8" : "i32";
  }
  return text;
}

std::string list_text(const std::vector<std::string>& ids) {
  std::string text = "[";
  for (const std::string& id : ids) {
    if (text.size() > 1) text += ", ";
    text += id;
  }
  return text + "]";
}

// A path the backend cannot take may be reported only where the reason is its thread count
// (an ISA variant's team runs above the work threshold all the same: optimized/variants.cc);
// another ISA's path, or one the backend does not declare, is a wrong mark on any call.
void check_declared(const Backend& b, const std::vector<std::string>& reported,
                    const std::string& what, std::vector<std::string>& failures) {
  for (const std::string& id : reported) {
    if (!contains(b.paths, id)) {
      failures.push_back(b.name + " " + what + " reported " + id + ", which it does not declare");
    }
    const auto it = b.unreachable_paths.find(id);
    if (it == b.unreachable_paths.end()) continue;
    const bool threads = it->second.find("thread") != std::string::npos ||
                         it->second.find("team") != std::string::npos;
    if (!threads) {
      failures.push_back(b.name + " " + what + " reported " + id + ", unreachable here: " +
                         it->second);
    }
  }
}

void check_marks(const Registry& r, const Backend& b, const std::string& path, const PathCall& c,
                 bool wanted, std::vector<std::string>& failures) {
  const std::string what = describe_call(c);
  Outcome o;
  try {
    std::vector<Tensor> inputs;
    for (const ExampleTensor& t : c.inputs) inputs.push_back(to_tensor(t));
    o = run_op_outcome(r, b.name, c.op, parse_attrs_json(c.attrs), inputs);
  } catch (const std::exception& e) {
    // A row the tensor limits reject is a wrong row, never the end of the campaign.
    failures.push_back(b.name + " " + what + ": the row's call cannot run (" + e.what() + ")");
    return;
  }
  if (o.kind != OutcomeKind::kOk) {
    failures.push_back(b.name + " " + what + ": not ok (" + o.message + ")");
    return;
  }
  if (contains(o.paths, path) != wanted) {
    failures.push_back(b.name + " " + what + (wanted ? " must report " : " must not report ") +
                       path + "; it reported " + list_text(o.paths));
  }
  check_declared(b, o.paths, what, failures);
}

// The row's call sized from the backend's thresholds; none when it reads one the backend does
// not declare: for a built-in backend a failure (its table lacks a threshold its rows read), for
// an external one a row not checked (a worker declares paths but no thresholds).
std::optional<PathCall> sized_call(MakeCall make, const Backend& backend, MarkTally& tally) {
  std::vector<std::string> missing;
  const Sizes sizes(backend, missing);
  PathCall call = make(sizes);
  if (missing.empty()) return call;
  if (backend.external) {
    ++tally.unsized;
  } else {
    tally.failures.insert(tally.failures.end(), missing.begin(), missing.end());
  }
  return std::nullopt;
}

}  // namespace

int64_t Sizes::operator[](const std::string& name) const {
  for (const PathThreshold& t : backend_.thresholds) {
    if (t.name == name) return t.value;
  }
  failures_.push_back(backend_.name + " has no threshold " + name);
  return 1;
}

bool row_pattern_matches(const std::string& pattern, const std::string& path) {
  if (!ends_with(pattern, ".*")) return false;
  const size_t prefix = pattern.size() - 1;  // up to and with the dot
  return path.size() > prefix && path.compare(0, prefix, pattern, 0, prefix) == 0 &&
         path.find('.', prefix) == std::string::npos;
}

bool has_exact_row(const std::string& path) {
  for (const auto* table : {&optimized_path_rows(), &cuda_path_rows()}) {
    for (const PathRow& row : *table) {
      if (row.path == path) return true;
    }
  }
  return false;
}

std::vector<const PathRow*> rows_for(const std::string& path, const Backend& backend) {
  // The rows naming the path, else, where none does, the pattern rows matching it.
  const bool exact = has_exact_row(path);
  std::vector<const PathRow*> scoped, general;
  for (const auto* table : {&optimized_path_rows(), &cuda_path_rows()}) {
    for (const PathRow& row : *table) {
      if (exact ? row.path != path : !row_pattern_matches(row.path, path)) continue;
      if (row.scope.empty()) {
        general.push_back(&row);
      } else if (in_scope(row.scope, backend)) {
        scoped.push_back(&row);
      }
    }
  }
  return scoped.empty() ? general : scoped;
}

const AbsentPath* absent_row(const std::string& path) {
  for (const AbsentPath& a : absent_path_rows()) {
    if (a.path == path) return &a;
  }
  return nullptr;
}

// A declared path that no affordable call can take gets an entry here, with the reason, instead
// of a row; the completeness test accepts it. Empty: every declared path has a row.
const std::vector<AbsentPath>& absent_path_rows() {
  static const std::vector<AbsentPath> kAbsent = {};
  return kAbsent;
}

MarkTally check_path_marks(const Registry& registry, const Backend& backend) {
  MarkTally tally;
  tally.declared = static_cast<int>(backend.paths.size());
  if (!backend.available) {
    if (backend.unavailable_reason.empty()) {
      tally.failures.push_back(backend.name + " is unavailable without a reason");
    }
    return tally;
  }
  for (const std::string& id : backend.paths) {
    const auto unreachable = backend.unreachable_paths.find(id);
    if (unreachable != backend.unreachable_paths.end()) {
      if (unreachable->second.empty()) {
        tally.failures.push_back(backend.name + ": " + id + " is unreachable without a reason");
      }
      ++tally.unreachable;
      continue;
    }
    bool must = false, must_not = false;
    for (const PathRow* row : rows_for(id, backend)) {
      const std::optional<PathCall> wanted = sized_call(row->must, backend, tally);
      if (!wanted) continue;
      check_marks(registry, backend, id, *wanted, true, tally.failures);
      must = true;
      if (row->must_not == nullptr) continue;
      const std::optional<PathCall> unwanted = sized_call(row->must_not, backend, tally);
      if (!unwanted) continue;
      check_marks(registry, backend, id, *unwanted, false, tally.failures);
      must_not = true;
    }
    tally.must += must ? 1 : 0;
    tally.must_not += must_not ? 1 : 0;
  }
  return tally;
}

// --- Call builders ----------------------------------------------------------------------------

ExampleTensor filled(const Shape& shape, int precision, DType dtype) {
  ExampleTensor t;
  t.shape = shape;
  t.precision = precision;
  t.dtype = dtype;
  const int64_t n = shape_size(shape);
  t.values.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    t.values[static_cast<size_t>(i)] = static_cast<int32_t>(i * 7 % 5) - 2;
  }
  return t;
}

PathCall unary(const std::string& op, const Shape& shape, const std::string& attrs) {
  return {op, attrs, {filled(shape)}};
}

PathCall binary(const std::string& op, const Shape& a, const Shape& b) {
  return {op, "{}", {filled(a), filled(b)}};
}

PathCall reduce(const std::string& op, const Shape& shape, const std::string& axis) {
  return {op, axis.empty() ? "{}" : R"({"axis": ")" + axis + "\"}", {filled(shape)}};
}

PathCall transpose(const Shape& shape, const std::string& axes) {
  return {"transpose", R"({"axes": ")" + axes + "\"}", {filled(shape)}};
}

PathCall repeat(const Shape& shape, int64_t repeats, int64_t axis) {
  const std::string attrs = R"({"repeats": ")" + std::to_string(repeats) + R"(", "axis": ")" +
                            std::to_string(axis) + "\"}";
  return {"repeat", attrs, {filled(shape)}};
}

PathCall dense(int64_t rows, int64_t depth, int64_t units, DType x, DType w, int p_x, int p_w) {
  return {"dense", R"({"units": ")" + std::to_string(units) + R"(", "use_bias": "false"})",
          {filled({rows, depth}, p_x, x), filled({units, depth}, p_w, w)}};
}

PathCall conv(const ConvCall& c) {
  const int64_t kernel_w = c.kernel_w > 0 ? c.kernel_w : c.kernel;
  const auto pair = [](int64_t a, int64_t b) {
    return "\"(" + std::to_string(a) + ", " + std::to_string(b) + ")\"";
  };
  const std::string attrs =
      R"({"channels": ")" + std::to_string(c.channels) + R"(", "kernel_size": )" +
      pair(c.kernel, kernel_w) + R"(, "strides": )" + pair(1, c.stride_w) +
      R"(, "padding": )" + pair(c.pad_h, c.pad_w) + R"(, "dilation": )" + pair(1, 1) +
      R"(, "groups": ")" + std::to_string(c.groups) + R"(", "use_bias": "false"})";
  return {"conv2d", attrs,
          {filled({1, c.in_channels, c.height, c.width}, c.p_data),
           filled({c.channels, c.in_channels / c.groups, c.kernel, kernel_w}, c.p_weight)}};
}

PathCall take() {
  return {"take", "{}", {filled({4}), ExampleTensor{{2}, {0, 3}, 3, DType::kInt32}}};
}

PathCall max_pool() {
  return {"max_pool2d", R"J({"pool_size": "(2, 2)", "strides": "(2, 2)"})J",
          {filled({1, 2, 4, 4})}};
}

PathCall upsampling(int64_t scale) {
  return {"upsampling", R"({"scale": ")" + std::to_string(scale) + "\"}", {filled({1, 2, 2, 3})}};
}

PathCall valid_counts() {
  return {"get_valid_counts", "{}",
          {ExampleTensor{{1, 3, 2}, {1, 2, 3, -1, 4, 9}, 6, DType::kInt32}}};
}

// Two disjoint boxes of one class; top_k 0 scans none (no mask), -1 every one.
PathCall nms(int64_t top_k) {
  const ExampleTensor boxes{{1, 2, 6}, {0, 5, 0, 0, 2, 2, 0, 6, 4, 4, 6, 6}, 8, DType::kInt32};
  return {"non_max_suppression", R"({"top_k": ")" + std::to_string(top_k) + "\"}",
          {boxes, ExampleTensor{{1}, {2}, 3, DType::kInt32}}};
}

}  // namespace cvm::path_oracle
