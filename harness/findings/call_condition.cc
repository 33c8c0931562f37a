// Conditions of expected-failure entries on the call they select (harness/findings/expectations.h):
// a known difference of an implementation often shows only for one attribute value, input rank or
// input value, and an entry must say so rather than absorb every failure of its operator.
#include <fnmatch.h>

#include <string>
#include <utility>

#include "cvmcheck/errors.h"
#include "harness/engine/call.h"
#include "harness/findings/expectations.h"

namespace cvm {
namespace {

bool glob(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string shape_text(const Tensor& t) {
  std::string text;
  for (int axis = 0; axis < t.ndim(); ++axis) {
    text += (axis == 0 ? "" : "x") + std::to_string(t.dim(axis));
  }
  return text;
}

bool has_value(const Tensor& t, int64_t value) {
  for (int64_t i = 0; i < t.size(); ++i) {
    if (t.get(i) == value) return true;
  }
  return false;
}

int64_t integer(const std::string& text, const std::string& where) {
  size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  verify(used == text.size() && !text.empty(), where, ": '", text, "' is not an integer");
  return value;
}

// "N" or "N..M" (inclusive) as [lo, hi]: a precision or rank condition often spans a range.
std::pair<int64_t, int64_t> integer_range(const std::string& text, const std::string& where) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos) {
    const int64_t n = integer(text, where);
    return {n, n};
  }
  return {integer(text.substr(0, dots), where), integer(text.substr(dots + 2), where)};
}

}  // namespace

CallCondition parse_condition(const std::string& text, const std::string& source) {
  CallCondition c;
  c.text = text;
  const size_t eq = text.find('=');
  verify(eq != std::string::npos && eq > 0, source, ": condition '", text,
         "' is not NAME=VALUE or NAME!=VALUE (name=GLOB, attr.NAME=GLOB, inK.ndim=N, inK.prec=N, "
         "inK.prec=N..M, "
         "inK.shape=GLOB, inK.has=V)");
  std::string subject = text.substr(0, eq);
  c.value = text.substr(eq + 1);
  if (subject.back() == '!') {
    c.negated = true;
    subject.pop_back();
  }
  if (subject == "name") {
    c.property = "name";
    return c;
  }
  if (subject.rfind("attr.", 0) == 0 && subject.size() > 5) {
    c.property = "attr";
    c.name = subject.substr(5);
    return c;
  }
  const size_t dot = subject.find('.');
  verify(subject.rfind("in", 0) == 0 && dot != std::string::npos && dot > 2, source,
         ": condition '", text, "' names neither name, attr.NAME nor inK.PROPERTY");
  c.input = static_cast<int>(integer(subject.substr(2, dot - 2), source));
  c.property = subject.substr(dot + 1);
  verify(c.input >= 0 && (c.property == "ndim" || c.property == "prec" ||
                          c.property == "shape" || c.property == "has"),
         source, ": condition '", text, "': an input property is ndim, prec, shape or has");
  if (c.property == "has") integer(c.value, source);
  if (c.property == "ndim" || c.property == "prec") integer_range(c.value, source);
  return c;
}

bool CallCondition::holds(const Call& call) const { return holds_plain(call) != negated; }

bool CallCondition::holds_plain(const Call& call) const {
  if (property == "name") return glob(value, call.op);
  if (property == "attr") {
    if (!call.attrs.is_object() || !call.attrs.contains(name)) return false;
    const nlohmann::json& v = call.attrs.at(name);
    return glob(value, v.is_string() ? v.get<std::string>() : v.dump());
  }
  if (input < 0 || static_cast<size_t>(input) >= call.inputs.size()) return false;
  const Tensor& t = call.inputs[static_cast<size_t>(input)];
  if (property == "shape") return glob(value, shape_text(t));
  if (property == "has") return has_value(t, std::stoll(value));
  const auto [lo, hi] = integer_range(value, text);
  const int64_t n = property == "ndim" ? t.ndim() : t.precision();
  return lo <= n && n <= hi;
}

}  // namespace cvm
