// Terse builders for operator records (ops/*.cc). A record is the single place that describes
// an operator: name, aliases, arity, attribute schema and hand-written examples.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "cvmcheck/op_list.h"
#include "cvmcheck/registry.h"
#include "work.h"

namespace cvm::ops {

inline AttrSpec required(const std::string& name, AttrKind kind) { return {name, kind, {}, {}}; }

inline AttrSpec optional(const std::string& name, AttrKind kind, const std::string& default_text) {
  return {name, kind, default_text, {}};
}

// A string attribute limited to `choices`; the first choice is the default.
inline AttrSpec choice(const std::string& name, std::vector<std::string> choices) {
  return {name, AttrKind::kString, choices.front(), choices};
}

// An int32 tensor literal: T({2, 3}, {1, 2, 3, 4, 5, 6}, 8).
inline ExampleTensor T(Shape shape, std::vector<int32_t> values, int precision) {
  return {std::move(shape), std::move(values), precision, DType::kInt32};
}

// An int8 tensor literal.
inline ExampleTensor T8(Shape shape, std::vector<int32_t> values, int precision) {
  return {std::move(shape), std::move(values), precision, DType::kInt8};
}

// A worked example with its expected outputs.
inline Example ok(std::string name, std::string attrs_json, std::vector<ExampleTensor> inputs,
                  std::vector<ExampleTensor> outputs) {
  return {std::move(name), std::move(attrs_json), std::move(inputs), OutcomeKind::kOk,
          std::move(outputs)};
}

// `op` with its work estimate (OpInfo::extra_work, ops/work.h).
inline OpInfo with_work(OpInfo op, OpInfo::ExtraWork work) {
  op.extra_work = work;
  return op;
}

// An input that breaks exactly one validity rule.
inline Example bad(std::string name, std::string attrs_json, std::vector<ExampleTensor> inputs) {
  return {std::move(name), std::move(attrs_json), std::move(inputs), OutcomeKind::kLogicError, {}};
}

// Records of each family (ops/<family>.cc). These functions, and the example lists they call,
// run to a few hundred lines: each is a list of data (schemas, worked and negative examples)
// read top to bottom, and splitting it would only scatter one operator's examples.
#define CVMCHECK_FAMILY_RECORDS(family) std::vector<OpInfo> family##_ops();
CVMCHECK_FAMILIES(CVMCHECK_FAMILY_RECORDS)
#undef CVMCHECK_FAMILY_RECORDS

// Adds every record above to `registry`.
void add_all_ops(Registry& registry);

}  // namespace cvm::ops
