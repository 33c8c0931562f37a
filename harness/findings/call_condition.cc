// Conditions of expected-failure entries on the call they select (harness/findings/expectations.h):
// a known difference of an implementation often shows only for one attribute value, input rank or
// input value, or for a relation between them (a precision plus a shift at least 32), and an entry
// must say so rather than absorb every failure of its operator.
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "cvmcheck/errors.h"
#include "harness/engine/call.h"
#include "harness/findings/expectations.h"

namespace cvm {
namespace {

constexpr const char* kForms =
    "name=GLOB, rule=GLOB, case=GLOB, attr.NAME=GLOB, inK.shape=GLOB, inK.has=V, or NUMBER OP N with OP one of = != < "
    "<= > >= and NUMBER a sum of attr.NAME and inK.ndim, prec, size, min, max, min_dim, max_dim, "
    "odd, colJ.min, colJ.max";

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

std::optional<int64_t> parse_integer(const std::string& text) {
  size_t used = 0;
  try {
    const int64_t value = std::stoll(text, &used);
    if (used == text.size() && !text.empty()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

int64_t integer(const std::string& text, const std::string& where) {
  const std::optional<int64_t> value = parse_integer(text);
  verify(value.has_value(), where, ": '", text, "' is not an integer");
  return *value;
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

// The comparison's position and text: the first of ! < > = in the condition.
std::pair<size_t, std::string> find_comparison(const std::string& text, const std::string& where) {
  const size_t at = text.find_first_of("!<>=");
  verify(at != std::string::npos && at > 0, where, ": condition '", text, "' is not ", kForms);
  for (const char* two : {"!=", "<=", ">="}) {
    if (text.compare(at, 2, two) == 0) return {at, two};
  }
  verify(text[at] != '!', where, ": condition '", text, "' is not ", kForms);
  return {at, std::string(1, text[at])};
}

// "inK.PROPERTY" as input K and the property (K >= 0), or nullopt for another subject.
std::optional<std::pair<int, std::string>> input_subject(const std::string& subject,
                                                         const std::string& where) {
  const size_t dot = subject.find('.');
  if (subject.rfind("in", 0) != 0 || dot == std::string::npos || dot <= 2) return std::nullopt;
  const int input = static_cast<int>(integer(subject.substr(2, dot - 2), where));
  verify(input >= 0, where, ": input index ", input, " is negative");
  return std::pair{input, subject.substr(dot + 1)};
}

NumericTerm parse_term(const std::string& term, const std::string& where) {
  NumericTerm t;
  if (term.rfind("attr.", 0) == 0 && term.size() > 5) {
    t.attr = term.substr(5);
    return t;
  }
  const auto subject = input_subject(term, where);
  verify(subject.has_value(), where, ": '", term, "' is neither attr.NAME nor inK.PROPERTY");
  t.input = subject->first;
  t.property = subject->second;
  if (t.property.rfind("col", 0) == 0) {
    const size_t dot = t.property.find('.');
    verify(dot != std::string::npos && dot > 3, where, ": '", term, "' is not inK.colJ.min|max");
    t.column = integer(t.property.substr(3, dot - 3), where);
    verify(t.column >= 0, where, ": column ", t.column, " is negative");
    t.property = "col" + t.property.substr(dot);
  }
  static const char* const kProperties[] = {"ndim",    "prec",    "size", "min",     "max",
                                            "min_dim", "max_dim", "odd",  "col.min", "col.max"};
  verify(std::find(std::begin(kProperties), std::end(kProperties), t.property) !=
             std::end(kProperties),
         where, ": '", term, "': an input's number is ndim, prec, size, min, max, min_dim, ",
         "max_dim, odd, colJ.min or colJ.max");
  return t;
}

std::optional<int64_t> attr_value(const Call& call, const std::string& name) {
  if (!call.attrs.is_object() || !call.attrs.contains(name)) return std::nullopt;
  const nlohmann::json& v = call.attrs.at(name);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return std::nullopt;
  // As the attribute parser reads it: surrounding white space does not count (" 32 " is 32).
  const std::string& text = v.get_ref<const std::string&>();
  const size_t first = text.find_first_not_of(" \t\n\r");
  if (first == std::string::npos) return std::nullopt;
  return parse_integer(text.substr(first, text.find_last_not_of(" \t\n\r") - first + 1));
}

// The smallest or largest of the values of `t` at flat positions where `take` holds.
template <typename Take>
std::optional<int64_t> extreme(const Tensor& t, bool largest, Take take) {
  std::optional<int64_t> best;
  for (int64_t i = 0; i < t.size(); ++i) {
    if (!take(i)) continue;
    const int64_t v = t.get(i);
    if (!best || (largest ? v > *best : v < *best)) best = v;
  }
  return best;
}

std::optional<int64_t> input_value(const Tensor& t, const NumericTerm& term) {
  const std::string& p = term.property;
  if (p == "ndim") return t.ndim();
  if (p == "prec") return t.precision();
  if (p == "size") return t.size();
  // How many values are odd: an implementation that halves a multiplicand (oneDNN's int8
  // weights without VNNI) is exact exactly when none is.
  if (p == "odd") {
    int64_t count = 0;
    for (int64_t i = 0; i < t.size(); ++i) count += t.get(i) & 1;
    return count;
  }
  if (p == "min_dim" || p == "max_dim") {
    if (t.ndim() == 0) return std::nullopt;
    int64_t best = t.dim(0);
    for (int axis = 1; axis < t.ndim(); ++axis) {
      best = p == "min_dim" ? std::min(best, t.dim(axis)) : std::max(best, t.dim(axis));
    }
    return best;
  }
  const bool largest = p == "max" || p == "col.max";
  if (p == "min" || p == "max") return extreme(t, largest, [](int64_t) { return true; });
  if (t.ndim() == 0 || term.column >= t.dim(t.ndim() - 1)) return std::nullopt;
  const int64_t last = t.dim(t.ndim() - 1);
  return extreme(t, largest, [&](int64_t i) { return i % last == term.column; });
}

std::optional<int64_t> term_value(const Call& call, const NumericTerm& term) {
  if (!term.attr.empty()) return attr_value(call, term.attr);
  if (static_cast<size_t>(term.input) >= call.inputs.size()) return std::nullopt;
  return input_value(call.inputs[static_cast<size_t>(term.input)], term);
}

void parse_numeric(CallCondition& c, const std::string& subject, const std::string& source) {
  for (size_t start = 0;;) {
    const size_t plus = subject.find('+', start);
    c.terms.push_back(parse_term(subject.substr(start, plus - start), source));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  const NumericTerm& first = c.terms.front();
  c.property = c.terms.size() == 1 && first.attr.empty() ? first.property : "number";
  c.input = c.terms.size() == 1 ? first.input : -1;
  if (c.comparison == "=") {
    std::tie(c.lo, c.hi) = integer_range(c.value, source);
  } else {
    c.lo = c.hi = integer(c.value, source);
  }
}

}  // namespace

CallCondition parse_condition(const std::string& text, const std::string& source) {
  CallCondition c;
  c.text = text;
  const auto [at, comparison] = find_comparison(text, source);
  const std::string subject = text.substr(0, at);
  c.value = text.substr(at + comparison.size());
  c.negated = comparison == "!=";
  c.comparison = c.negated ? "=" : comparison;
  const bool equality = c.comparison == "=";
  const bool sum = subject.find('+') != std::string::npos;
  if (equality && (subject == "name" || subject == "rule" || subject == "case")) {
    c.property = subject;
    return c;
  }
  if (equality && !sum && subject.rfind("attr.", 0) == 0 && subject.size() > 5) {
    c.property = "attr";  // a glob over the value as written, as for any attribute
    c.name = subject.substr(5);
    return c;
  }
  const auto input = sum ? std::nullopt : input_subject(subject, source);
  if (equality && input && (input->second == "shape" || input->second == "has")) {
    c.input = input->first;
    c.property = input->second;
    if (c.property == "has") c.lo = c.hi = integer(c.value, source);
    return c;
  }
  verify(subject != "name" && subject != "rule" && subject != "case", source, ": condition '",
         text, "': name, rule and case take = or != only");
  parse_numeric(c, subject, source);
  return c;
}

bool CallCondition::holds(const Call& call) const { return holds_plain(call) != negated; }

bool CallCondition::holds_numeric(const Call& call) const {
  int64_t total = 0;
  for (const NumericTerm& term : terms) {
    const std::optional<int64_t> v = term_value(call, term);
    if (!v || __builtin_add_overflow(total, *v, &total)) return false;
  }
  if (comparison == "=") return lo <= total && total <= hi;
  if (comparison == "<") return total < lo;
  if (comparison == "<=") return total <= lo;
  if (comparison == ">") return total > lo;
  return total >= lo;
}

bool CallCondition::holds_plain(const Call& call) const {
  if (!terms.empty()) return holds_numeric(call);
  if (property == "name") return glob_match(value, call.op);
  if (property == "attr") {
    if (!call.attrs.is_object() || !call.attrs.contains(name)) return false;
    const nlohmann::json& v = call.attrs.at(name);
    return glob_match(value, v.is_string() ? v.get<std::string>() : v.dump());
  }
  if (input < 0 || static_cast<size_t>(input) >= call.inputs.size()) return false;
  const Tensor& t = call.inputs[static_cast<size_t>(input)];
  if (property == "shape") return glob_match(value, shape_text(t));
  return has_value(t, lo);
}

}  // namespace cvm
