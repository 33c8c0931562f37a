// Rule ids (docs/contract.md, "Rule ids"): the stable name of each validity rule, carried by a
// LogicError as data. Rules every operator shares are "global.<name>" and listed here; an
// operator's own rules are "<op>.<name>", listed by its generator record (harness/gen/<family>_gen.cc,
// one invalid generator per rule, named by the rule).
#pragma once

#include <string>
#include <vector>

namespace cvm::rules {

inline constexpr const char* kUnknownOperator = "global.unknown_operator";
inline constexpr const char* kAttrsNotObject = "global.attrs_not_object";
inline constexpr const char* kAttrUnknown = "global.attr_unknown";
inline constexpr const char* kAttrNotString = "global.attr_not_string";
inline constexpr const char* kAttrMissing = "global.attr_missing";
inline constexpr const char* kAttrMalformed = "global.attr_malformed";
inline constexpr const char* kInputCount = "global.input_count";
inline constexpr const char* kTensorLimits = "global.tensor_limits";
inline constexpr const char* kPrecisionRange = "global.precision_range";
inline constexpr const char* kInt8Precision = "global.int8_precision";
inline constexpr const char* kValueRange = "global.value_range";
inline constexpr const char* kOutputPrecision = "global.output_precision";

struct GlobalRule {
  const char* id;
  const char* rule;  // the contract's words
};

// Every global rule, in the order docs/contract.md lists them.
const std::vector<GlobalRule>& global_rules();

// The full id of a rule raised while running `op`: a bare name becomes "<op>.<name>"; an id that
// already has a dot (global.*) is kept; empty stays empty (no rule reported).
std::string qualify(const std::string& op, const std::string& rule);

}  // namespace cvm::rules
