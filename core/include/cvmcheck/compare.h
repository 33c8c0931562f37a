// Exact comparison of two outcomes: class, output count, shapes, precisions, values.
// There is no tolerance anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm {

struct Difference {
  std::string what;             // one line: "output 0 value at index 5 (coords [1, 2]): 7 vs 8"
  int output = -1;              // the output concerned, -1 for class/count differences
  int64_t first_index = -1;     // first differing flat index, -1 when not a value difference
  // What differs, for grouping findings: "class", "rule" (both logic_error, different rule ids),
  // "output_count", "shape", "precision", "dtype" or "value".
  std::string kind;
};

// nullopt when `actual` matches `expected` exactly. For two error outcomes the classes are
// compared, and for two logic_errors the rule ids when both name one: `expected.rule` is set
// only where the call is known to break that one rule (docs/contract.md, "Rule ids"), and an
// `actual` without a rule id (a backend that reports none) is judged by the class alone.
// `actual_name`/`expected_name` label the two sides in the message.
std::optional<Difference> compare_outcomes(const Outcome& actual, const Outcome& expected,
                                           const std::string& actual_name = "actual",
                                           const std::string& expected_name = "expected");

std::string format_index(const std::vector<int64_t>& index);

}  // namespace cvm
