#include "cvmcheck/registry.h"

#include <new>
#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/rules.h"
#include "cvmcheck/tensor_cap.h"

namespace cvm {

void Registry::add_op(OpInfo op) {
  check(find_op(op.name) == nullptr, "operator '", op.name, "' registered twice");
  for (const std::string& alias : op.aliases) {
    check(find_op(alias) == nullptr, "alias '", alias, "' registered twice");
  }
  ops_.push_back(std::move(op));
}

void Registry::add_backend(Backend backend) {
  check(find_backend(backend.name) == nullptr, "backend '", backend.name, "' registered twice");
  for (const auto& [name, kernel] : backend.kernels) {
    check(find_op(name) != nullptr && find_op(name)->name == name, "backend '", backend.name,
          "' has a kernel for '", name, "', which is not a canonical operator name");
  }
  backends_.push_back(std::move(backend));
}

const OpInfo* Registry::find_op(const std::string& name) const {
  for (const OpInfo& op : ops_) {
    if (op.name == name) return &op;
    for (const std::string& alias : op.aliases) {
      if (alias == name) return &op;
    }
  }
  return nullptr;
}

const OpInfo& Registry::op(const std::string& name) const {
  const OpInfo* found = find_op(name);
  verify_rule(found != nullptr, rules::kUnknownOperator, "unknown operator '", name, "'");
  return *found;
}

Backend* Registry::find_backend(const std::string& name) {
  for (Backend& backend : backends_) {
    if (backend.name == name) return &backend;
  }
  return nullptr;
}

const Backend* Registry::find_backend(const std::string& name) const {
  return const_cast<Registry*>(this)->find_backend(name);
}

namespace {

std::vector<Tensor> dispatch(const Registry& registry, const std::string& backend_name,
                             const OpInfo& op, const nlohmann::json& attrs_json,
                             const std::vector<Tensor>& inputs) {
  const Backend* backend = registry.find_backend(backend_name);
  if (backend == nullptr) fail_runtime("unknown backend '", backend_name, "'");
  if (!backend->available) {
    fail_runtime("backend '", backend_name, "' is unavailable: ", backend->unavailable_reason);
  }
  auto kernel = backend->kernels.find(op.name);
  if (kernel == backend->kernels.end()) {
    fail_runtime("backend '", backend_name, "' does not implement it");
  }
  const Attrs attrs = parse_attrs(op.attrs, attrs_json);
  const auto count = static_cast<int64_t>(inputs.size());
  verify_rule(
      count >= op.min_inputs && (op.max_inputs == OpInfo::kUnbounded || count <= op.max_inputs),
      rules::kInputCount, "takes ", op.min_inputs,
      op.max_inputs == op.min_inputs        ? std::string()
      : op.max_inputs == OpInfo::kUnbounded ? std::string(" or more")
                                            : concat(" to ", op.max_inputs),
      " inputs, got ", count);
  return kernel->second(OpContext{op, attrs, inputs});
}

}  // namespace

std::vector<Tensor> run_op(const Registry& registry, const std::string& backend,
                           const std::string& op_name, const nlohmann::json& attrs,
                           const std::vector<Tensor>& inputs) {
  if (const Backend* b = registry.find_backend(backend); b != nullptr && b->external) {
    Outcome outcome = b->external(op_name, attrs, inputs);
    if (outcome.kind == OutcomeKind::kLogicError) throw LogicError(outcome.message);
    if (outcome.kind == OutcomeKind::kRuntimeError) throw RuntimeError(outcome.message);
    return std::move(outcome.outputs);
  }
  const OpInfo* op = registry.find_op(op_name);
  verify_rule(op != nullptr, rules::kUnknownOperator, "unknown operator '", op_name, "'");
  const std::string prefix = op->name + ": ";
  try {
    return dispatch(registry, backend, *op, attrs, inputs);
  } catch (const LogicError& e) {
    // The rule stays data: a kernel's bare rule name is qualified with the operator's name.
    throw LogicError(prefix + e.what(), rules::qualify(op->name, e.rule()));
  } catch (const RuntimeError& e) {
    throw RuntimeError(prefix + e.what());
  } catch (const TensorCapExceeded&) {
    throw;  // the caller's bound, not an outcome of the operator (cvmcheck/tensor_cap.h)
  } catch (const std::bad_alloc&) {
    throw RuntimeError(prefix + "out of memory");
  } catch (const std::exception& e) {
    // std::out_of_range, std::invalid_argument, ...: the implementation misbehaved.
    throw RuntimeError(prefix + "internal failure: " + e.what());
  }
}

const char* outcome_name(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kOk: return "ok";
    case OutcomeKind::kLogicError: return "logic_error";
    case OutcomeKind::kRuntimeError: return "runtime_error";
  }
  return "?";
}

OutcomeKind parse_outcome_name(const std::string& name) {
  if (name == "ok") return OutcomeKind::kOk;
  if (name == "logic_error") return OutcomeKind::kLogicError;
  if (name == "runtime_error") return OutcomeKind::kRuntimeError;
  fail_logic("unknown outcome '", name, "' (ok, logic_error, runtime_error)");
}

Outcome run_op_outcome(const Registry& registry, const std::string& backend,
                       const std::string& op, const nlohmann::json& attrs,
                       const std::vector<Tensor>& inputs) {
  // An external backend answers with an outcome of its own (and may report a failure of the
  // worker process, which a thrown exception could not carry).
  if (const Backend* b = registry.find_backend(backend); b != nullptr && b->external) {
    return b->external(op, attrs, inputs);
  }
  Outcome outcome;
  paths::clear();  // a path hit outside a backend run (a reference kernel, a test) is not this call's
  try {
    outcome.outputs = run_op(registry, backend, op, attrs, inputs);
  } catch (const LogicError& e) {
    outcome.kind = OutcomeKind::kLogicError;
    outcome.message = e.what();
    outcome.rule = e.rule();
  } catch (const RuntimeError& e) {
    outcome.kind = OutcomeKind::kRuntimeError;
    outcome.message = e.what();
  }
  outcome.paths = paths::take();
  return outcome;
}

}  // namespace cvm

namespace cvm {

Tensor to_tensor(const ExampleTensor& example) {
  return Tensor::from_values(example.shape, example.values, example.precision, example.dtype);
}

nlohmann::json parse_attrs_json(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  verify_rule(!parsed.is_discarded(), rules::kAttrsNotObject,
              "attributes are not valid JSON: ", text);
  return parsed;
}

}  // namespace cvm
