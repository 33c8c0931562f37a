// The per-operator properties, instantiated for every operator from its generator record:
//   (a)+(b) valid calls succeed on the reference and every other backend agrees bit for bit;
//   (c)     each invalid-call rule gives logic_error on every backend;
//   (d)     determinism: the same call twice, and on 1 and 2 threads, gives identical bytes.
// Budget: CVMCHECK_PROP_CASES cases per property (default below); RC_PARAMS="seed=N" replays.
// CVMCHECK_PROP_BACKENDS=a,b compares only those backends with the reference (default: every
// registered one); tools/mutate's properties-base mode leaves the dispatch variants out so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "registry/registry.h"
#include "harness/gen/generators.h"
#include "harness/engine/property.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"
#include "optimized/kernels.h"

namespace cvm {
namespace {

constexpr int kDefaultCases = 150;
constexpr int kDefaultCasesPerRule = 25;

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const OpInfo& op : registry().ops()) names.push_back(op.name);
  return names;
}

// The backends the properties compare with the reference: every registered one, or those that
// CVMCHECK_PROP_BACKENDS names (comma-separated).
std::vector<std::string> property_backends() {
  const char* text = std::getenv("CVMCHECK_PROP_BACKENDS");
  if (text == nullptr || *text == '\0') return other_backends(registry());
  std::vector<std::string> names;
  std::stringstream list(text);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty() && name != "reference") names.push_back(name);
  }
  return names;
}

// The verdict on `call`; a failing call is saved as a repro under repros/`name` (the finding's
// case directory, harness/findings/finding.h), whose __REPRO lines end the report.
CallVerdict judged_with_repro(const Call& call, const std::vector<std::string>& backends,
                              const std::string& name) {
  CallVerdict v = judge_call(registry(), call, backends);
  if (!v.passed) save_repro(call, "repros/" + name, v);
  return v;
}

class OpProperty : public ::testing::TestWithParam<std::string> {
 protected:
  const OpInfo& op() const { return registry().op(GetParam()); }
  const OpGenerators& gens() const { return *generators_for(op()); }
  void SetUp() override {
    // Never a skip: an operator without generators is a failure (tests/completeness_test.cc).
    ASSERT_NE(generators_for(op()), nullptr) << GetParam() << " has no generator record";
    // The diff skips unavailable backends (e.g. cuda without a GPU); say so in the log.
    for (const Backend& b : registry().backends()) {
      if (!b.available) {
        std::cout << "backend skipped: " << b.name << " for " << GetParam()
                  << ", unavailable: " << b.unavailable_reason << "\n";
      }
    }
  }
};

TEST_P(OpProperty, ValidCallsSucceedAndAllBackendsAgree) {
  const std::vector<std::string> backends = property_backends();
  int total = 0, zero = 0;
  const PropertyVerdict verdict = check_property(
      GetParam() + "/valid",
      [&] {
        const Call call = *gens().valid;
        const CallVerdict v = judged_with_repro(call, backends, GetParam() + "_valid");
        if (!v.passed) RC_FAIL(v.report);
        ++total;
        const bool zeros = all_outputs_zero(v.diff.reference);
        zero += zeros ? 1 : 0;
        RC_CLASSIFY(zeros, "all-zero output");
        RC_TAG(call.inputs.empty() ? 0 : call.inputs[0].ndim());
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(verdict.passed) << verdict.message;
  // Vacuity: a generator whose outputs are nearly all zero tests nothing.
  EXPECT_LT(zero * 10, total * 9) << GetParam() << ": " << zero << " of " << total
                                  << " valid calls gave all-zero outputs";
}

TEST_P(OpProperty, EachInvalidRuleGivesLogicErrorOnEveryBackend) {
  std::vector<std::string> backends = property_backends();
  ASSERT_FALSE(gens().invalid.empty());
  for (const InvalidGenerator& rule : gens().invalid) {
    const PropertyVerdict verdict = check_property(
        GetParam() + "/" + rule.rule,
        [&] {
          const Call call = *rule.gen;
          const CallVerdict v = judged_with_repro(call, backends, GetParam() + "_" + rule.rule);
          if (!v.passed) RC_FAIL(v.report);
        },
        {property_cases(kDefaultCasesPerRule)});
    EXPECT_TRUE(verdict.passed) << rule.rule << ": " << verdict.message;
  }
}

TEST_P(OpProperty, SameCallTwiceGivesIdenticalBytes) {
  std::vector<std::string> backends = {"reference"};
  for (const std::string& b : property_backends()) backends.push_back(b);
  const PropertyVerdict verdict = check_property(
      GetParam() + "/determinism",
      [&] {
        const Call call = *gens().valid;
        for (const std::string& backend : backends) {
          const Backend* b = registry().find_backend(backend);
          if (!b->available || !b->implements(registry().op(call.op).name)) continue;
          // Twice, then again on 1 and on 2 threads: the bytes must never change.
          opt::set_threads(1);
          const Outcome first = run_op_outcome(registry(), backend, call.op, call.attrs, call.inputs);
          const Outcome second = run_op_outcome(registry(), backend, call.op, call.attrs, call.inputs);
          opt::set_threads(2);
          const Outcome third = run_op_outcome(registry(), backend, call.op, call.attrs, call.inputs);
          opt::set_threads(0);
          for (const Outcome* again : {&second, &third}) {
            const auto difference = compare_outcomes(*again, first, "again", "first run (1 thread)");
            if (difference) RC_FAIL(backend + ": " + difference->what + "\n" + describe_call(call));
          }
        }
      },
      {property_cases(kDefaultCases / 3)});
  EXPECT_TRUE(verdict.passed) << verdict.message;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpProperty, ::testing::ValuesIn(op_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace cvm
