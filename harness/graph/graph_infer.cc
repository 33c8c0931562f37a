#include "harness/graph/graph_infer.h"

#include <nlohmann/json.hpp>

#include "cvmcheck/rules.h"
#include "infer/outputs.h"

namespace cvm::graph {

std::vector<EntrySpec> infer_node(const Registry& registry, const std::string& op_name,
                                  const nlohmann::json& attrs_json,
                                  const std::vector<EntrySpec>& inputs) {
  const OpInfo* op = registry.find_op(op_name);
  verify_rule(op != nullptr, rules::kUnknownOperator, "unknown operator '", op_name, "'");
  try {
    const Attrs attrs = parse_attrs(op->attrs, attrs_json);
    const auto count = static_cast<int64_t>(inputs.size());
    verify_rule(count >= op->min_inputs &&
                    (op->max_inputs == OpInfo::kUnbounded || count <= op->max_inputs),
                rules::kInputCount, "takes ", op->min_inputs, "..", op->max_inputs,
                " inputs, got ", count);
    std::vector<Tensor> placeholders;
    for (const EntrySpec& in : inputs) {
      placeholders.push_back(Tensor::zeros(DType::kInt32, in.shape, in.precision));
    }
    std::vector<EntrySpec> out;
    for (const infer::OutputSpec& spec : infer::output_specs(OpContext{*op, attrs, placeholders})) {
      out.push_back({spec.shape, spec.precision});
    }
    return out;
  } catch (const LogicError& e) {
    throw LogicError(op->name + ": " + e.what(), rules::qualify(op->name, e.rule()));
  }
}

}  // namespace cvm::graph
