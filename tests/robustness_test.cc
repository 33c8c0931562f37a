// Never crash: every operator, fed attribute strings at the edges of every kind and inputs of
// unrelated shapes, must answer ok or logic_error, never runtime_error (which would mean our
// own bug) and never a crash or sanitizer report (the suite also runs under ASan + UBSan).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "support/call.h"

namespace cvm {
namespace {

std::vector<std::string> edge_texts(const AttrSpec& spec) {
  switch (spec.kind) {
    case AttrKind::kInt:
    case AttrKind::kOptInt: {
      std::vector<std::string> v = {"-2147483648", "2147483647", "-4097", "-1", "0", "1", "2",
                                    "4096", "33", "-33", "1.5", ""};
      if (spec.kind == AttrKind::kOptInt) v.push_back("None");
      return v;
    }
    case AttrKind::kBool: return {"0", "1", "2", "maybe"};
    case AttrKind::kTuple:
      return {"()", "(0,)", "(-1,)", "(1, 1)", "(-9223372036854775808,)", "(9223372036854775807,)",
              "(9223372036854775807, 9223372036854775807)", "(-1, -1, -1, -1, -1, -1, -1, -1)",
              "(0, 0, 0, 0)", "(4096, 4096)", "(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)",
              "(-4, -4, -4)", "(-3, -3)", "(-2, -1)", "(-4, -1, -1, 0)", "(16777216, 16777216)",
              "(2147483647, -2147483648)", "(2, 2)", "(1, 0, 1)", "(0, 1)", "(", "(1,,)"};
    case AttrKind::kString: {
      std::vector<std::string> v = spec.choices;
      v.push_back("bogus");
      v.push_back("");
      return v;
    }
  }
  return {};
}

void expect_no_runtime_error(const std::string& op, const std::string& attrs,
                             const std::vector<ExampleTensor>& inputs, int& calls) {
  const Outcome outcome = testing::call(op, attrs, inputs);
  ++calls;
  EXPECT_NE(outcome.kind, OutcomeKind::kRuntimeError)
      << op << " " << attrs << ": " << testing::describe(outcome);
}

TEST(Robustness, EdgeAttributeStringsNeverFailInternally) {
  int calls = 0;
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      for (const AttrSpec& spec : op.attrs) {
        for (const std::string& text : edge_texts(spec)) {
          nlohmann::json attrs = parse_attrs_json(example.attrs_json);
          attrs[spec.name] = text;
          expect_no_runtime_error(op.name, attrs.dump(), example.inputs, calls);
        }
      }
    }
  }
  RecordProperty("calls", calls);
  EXPECT_GT(calls, 0);
}

TEST(Robustness, UnrelatedInputShapesNeverFailInternally) {
  const std::vector<ExampleTensor> odd = {
      ops::T({1}, {7}, 4),
      ops::T({2, 3}, {1, -2, 3, -4, 5, -6}, 8),
      ops::T({1, 1, 1, 1, 1, 1}, {-1}, 2),
      ops::T({3, 1, 2, 1}, {0, 1, 0, -1, 1, 0}, 2),
      ops::T({2, 2, 2, 2}, std::vector<int32_t>(16, 3), 3),
      ops::T({2, 1, 4, 4}, std::vector<int32_t>(32, -1), 8),
      ops::T({1, 5, 6}, std::vector<int32_t>(30, 5), 8),
      ops::T8({4}, {-127, 127, 0, 1}, 8),
  };
  int calls = 0;
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      for (size_t slot = 0; slot < example.inputs.size(); ++slot) {
        for (const ExampleTensor& replacement : odd) {
          std::vector<ExampleTensor> inputs = example.inputs;
          inputs[slot] = replacement;
          expect_no_runtime_error(op.name, example.attrs_json, inputs, calls);
        }
      }
      // One input too few and one too many.
      if (!example.inputs.empty()) {
        std::vector<ExampleTensor> fewer(example.inputs.begin(), example.inputs.end() - 1);
        expect_no_runtime_error(op.name, example.attrs_json, fewer, calls);
        std::vector<ExampleTensor> more = example.inputs;
        more.push_back(example.inputs.back());
        expect_no_runtime_error(op.name, example.attrs_json, more, calls);
      }
    }
  }
  EXPECT_GT(calls, 0);
}

TEST(Robustness, UnknownOperatorAndAttributeShapesAreLogicErrors) {
  EXPECT_EQ(testing::call("no_such_op", "{}", {ops::T({1}, {1}, 2)}).kind, OutcomeKind::kLogicError);
  EXPECT_EQ(testing::call("sum", "[1]", {ops::T({1}, {1}, 2)}).kind, OutcomeKind::kLogicError);
  EXPECT_EQ(testing::call("sum", R"J({"axis": 1})J", {ops::T({1}, {1}, 2)}).kind,
            OutcomeKind::kLogicError);
}

}  // namespace
}  // namespace cvm
