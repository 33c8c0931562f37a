#include "cvmcheck/rules.h"

namespace cvm::rules {

const std::vector<GlobalRule>& global_rules() {
  static const std::vector<GlobalRule> list = {
      {kUnknownOperator, "the operator name is neither canonical nor an alias"},
      {kAttrsNotObject, "the attributes are not a JSON object"},
      {kAttrUnknown, "an attribute key the operator's schema does not list"},
      {kAttrNotString, "an attribute value that is not a JSON string"},
      {kAttrMissing, "a required attribute is missing"},
      {kAttrMalformed, "an attribute text its kind does not accept (syntax, int32 range, choices)"},
      {kInputCount, "the number of inputs is outside the operator's arity"},
      {kTensorLimits,
       "an input or inferred output outside the tensor limits (1..6 dims, each in "
       "[1, 2^24], at most 2^30 elements)"},
      {kPrecisionRange, "an input precision outside [1, 32]"},
      {kInt8Precision, "an int8 input with precision above 8"},
      {kValueRange, "an input value outside +-alpha(p)"},
      {kOutputPrecision, "an inferred output precision above 32"},
  };
  return list;
}

std::string qualify(const std::string& op, const std::string& rule) {
  if (rule.empty() || rule.find('.') != std::string::npos) return rule;
  return op + "." + rule;
}

}  // namespace cvm::rules
