// The two error classes of the contract (docs/contract.md, "Errors").
//   LogicError:   the model or the input is bad (attributes, shapes, values, operator name).
//   RuntimeError: the implementation failed (broken invariant, out of memory, device error).
// Messages name the operator and the violated rule for people; a LogicError also carries the
// rule's stable id as data (docs/contract.md, "Rule ids"), which the diff compares where the call
// is known to break exactly one rule.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace cvm {

class LogicError : public std::logic_error {
 public:
  // `rule`: the broken rule's id, "global.<name>" or a bare "<name>" that run_op qualifies with
  // the operator's canonical name ("axis_out_of_range" -> "sum.axis_out_of_range"). Empty when
  // the thrower names no rule (then only the class is compared).
  explicit LogicError(const std::string& what, std::string rule = "")
      : std::logic_error(what), rule_(std::move(rule)) {}
  const std::string& rule() const { return rule_; }

 private:
  std::string rule_;
};

class RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& what) : std::runtime_error(what) {}
};

// Builds a message from streamable parts: fail_logic("axis ", a, " out of range").
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

template <typename... Parts>
[[noreturn]] void fail_logic(const Parts&... parts) {
  throw LogicError(concat(parts...));
}

// A LogicError naming the broken rule: fail_rule("axis_out_of_range", "axis ", a, " ...").
template <typename... Parts>
[[noreturn]] void fail_rule(std::string_view rule, const Parts&... parts) {
  throw LogicError(concat(parts...), std::string(rule));
}

template <typename... Parts>
[[noreturn]] void fail_runtime(const Parts&... parts) {
  throw RuntimeError(concat(parts...));
}

// VERIFY: a condition on the operator's inputs or attributes (LogicError).
// CHECK:  an internal invariant of an implementation (RuntimeError).
// Named after the architecture notes' macros (docs/glossary.md); functions rather than macros so the message parts are only
// formatted on failure.
template <typename... Parts>
inline void verify(bool condition, const Parts&... parts) {
  if (!condition) fail_logic(parts...);
}

// verify with the id of the rule the condition states (see fail_rule).
// The id is a string_view so that a literal costs nothing while the condition holds.
template <typename... Parts>
inline void verify_rule(bool condition, std::string_view rule, const Parts&... parts) {
  if (!condition) fail_rule(rule, parts...);
}

template <typename... Parts>
inline void check(bool condition, const Parts&... parts) {
  if (!condition) fail_runtime(parts...);
}

}  // namespace cvm
