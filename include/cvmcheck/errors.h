// The two error classes of the contract (docs/contract.md, "Errors").
//   LogicError:   the model or the input is bad (attributes, shapes, values, operator name).
//   RuntimeError: the implementation failed (broken invariant, out of memory, device error).
// Outcomes are compared by class only; messages name the operator and the violated rule.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cvm {

class LogicError : public std::logic_error {
 public:
  explicit LogicError(const std::string& what) : std::logic_error(what) {}
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

template <typename... Parts>
[[noreturn]] void fail_runtime(const Parts&... parts) {
  throw RuntimeError(concat(parts...));
}

// VERIFY: a condition on the operator's inputs or attributes (LogicError).
// CHECK:  an internal invariant of an implementation (RuntimeError).
// Named after seed 003's macros; functions rather than macros so the message parts are only
// formatted on failure.
template <typename... Parts>
inline void verify(bool condition, const Parts&... parts) {
  if (!condition) fail_logic(parts...);
}

template <typename... Parts>
inline void check(bool condition, const Parts&... parts) {
  if (!condition) fail_runtime(parts...);
}

}  // namespace cvm
