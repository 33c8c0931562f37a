// Every hand-written example of every operator record, on every backend that implements it:
// worked examples must give exactly the listed outputs (values, shapes, precisions), and each
// rule-breaking example must give a logic_error, naming the reference's rule id where the
// backend names one.
#include <gtest/gtest.h>

#include <set>

#include "registry/registry.h"
#include "support/call.h"

namespace cvm {
namespace {

struct ExampleParam {
  std::string op;
  std::string backend;
  Example example;
  std::string unavailable_reason;  // set: one skipped entry standing for the whole backend
};

std::vector<ExampleParam> all_examples() {
  std::vector<ExampleParam> params;
  for (const Backend& backend : registry().backends()) {
    // Dispatch variants run every example through `golden verify --backend all` (one process),
    // not as thousands of ctest entries.
    if (!backend.variant_of.empty()) continue;
    if (!backend.available) {
      Example none;
      none.name = "unavailable";
      params.push_back({"all", backend.name, none, backend.unavailable_reason});
      continue;
    }
    for (const OpInfo& op : registry().ops()) {
      if (!backend.implements(op.name)) continue;
      for (const Example& e : op.examples) params.push_back({op.name, backend.name, e});
    }
  }
  return params;
}

void PrintTo(const ExampleParam& p, std::ostream* os) {
  *os << p.backend << " " << p.op << " " << p.example.name;
}

class ExampleTest : public ::testing::TestWithParam<ExampleParam> {};

TEST_P(ExampleTest, GivesTheListedOutcome) {
  const ExampleParam& p = GetParam();
  if (!p.unavailable_reason.empty()) {
    GTEST_SKIP() << "backend " << p.backend << " skipped, unavailable: " << p.unavailable_reason;
  }
  const Outcome outcome = testing::call(p.op, p.example.attrs_json, p.example.inputs, p.backend);
  ASSERT_EQ(outcome.kind, p.example.outcome)
      << p.op << " " << p.example.attrs_json << " gave " << testing::describe(outcome);
  if (outcome.kind == OutcomeKind::kLogicError && p.backend != "reference") {
    // A negative example breaks exactly one rule: a backend that names a rule names the
    // reference's (docs/contract.md, "Rule ids").
    const Outcome reference = testing::call(p.op, p.example.attrs_json, p.example.inputs);
    if (!outcome.rule.empty()) {
      EXPECT_EQ(outcome.rule, reference.rule) << p.op << " " << p.example.attrs_json << ": "
                                              << outcome.message;
    }
  }
  ASSERT_EQ(outcome.outputs.size(), p.example.outputs.size());
  for (size_t k = 0; k < outcome.outputs.size(); ++k) {
    const Tensor& got = outcome.outputs[k];
    const ExampleTensor& want = p.example.outputs[k];
    EXPECT_EQ(shape_str(got.shape()), shape_str(want.shape)) << "output " << k;
    EXPECT_EQ(got.precision(), want.precision) << "output " << k << " precision";
    if (got.shape() == want.shape) {
      EXPECT_EQ(got.values(), want.values) << "output " << k << " values";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, ExampleTest, ::testing::ValuesIn(all_examples()),
                         [](const ::testing::TestParamInfo<ExampleParam>& info) {
                           std::string name = info.param.backend + "_" + info.param.op + "_" +
                                              info.param.example.name;
                           for (char& c : name) {
                             // backend names such as cuda-host, optimized/avx2, optimized@3
                             if (c == '-' || c == '/' || c == '@') c = '_';
                           }
                           return name;
                         });

TEST(OpRecords, EveryOperatorHasWorkedAndRuleBreakingExamples) {
  for (const OpInfo& op : registry().ops()) {
    bool has_ok = false, has_bad = false;
    std::set<std::string> names;
    for (const Example& e : op.examples) {
      has_ok = has_ok || e.outcome == OutcomeKind::kOk;
      has_bad = has_bad || e.outcome == OutcomeKind::kLogicError;
      EXPECT_TRUE(names.insert(e.name).second) << op.name << ": duplicate example " << e.name;
      for (char c : e.name) {
        EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
            << op.name << ": example name '" << e.name << "' must be [a-z0-9_]";
      }
    }
    EXPECT_TRUE(has_ok) << op.name << " has no worked example";
    EXPECT_TRUE(has_bad) << op.name << " has no rule-breaking example";
  }
}

TEST(OpRecords, ReferenceImplementsEveryOperator) {
  const Backend* reference = registry().find_backend("reference");
  ASSERT_NE(reference, nullptr);
  for (const OpInfo& op : registry().ops()) {
    EXPECT_TRUE(reference->implements(op.name)) << op.name;
  }
}

}  // namespace
}  // namespace cvm
