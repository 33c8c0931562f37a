#include "harness/engine/call.h"

#include <sstream>

namespace cvm {

int64_t input_elements(const Call& call) {
  int64_t elements = 0;
  for (const Tensor& t : call.inputs) elements += t.size();
  return elements;
}

std::string describe_call(const Call& call, size_t max_values) {
  std::ostringstream out;
  out << call.op << " attrs=" << call.attrs.dump();
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    const Tensor& t = call.inputs[k];
    out << " in" << k << "=" << dtype_name(t.dtype()) << shape_str(t.shape()) << "p"
        << t.precision();
    if (static_cast<size_t>(t.size()) <= max_values) {
      out << "[";
      for (int64_t i = 0; i < t.size(); ++i) out << (i ? "," : "") << t.get(i);
      out << "]";
    }
  }
  if (!call.rule.empty()) out << " rule=" << call.rule;
  if (!call.rule_id.empty()) out << " rule_id=" << call.rule_id;
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Call& call) { return out << describe_call(call); }

void showValue(const Call& call, std::ostream& out) { out << describe_call(call, 64); }

}  // namespace cvm
