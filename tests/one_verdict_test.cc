// One verdict (harness/engine/verdict.h): the campaign and the properties (judge_call), the fuzz
// targets (fuzz_one on a decoded input) and golden verify / `cvmcheck run` (judge_case on a case
// directory) must judge every call alike. Each planted bug's operator is drawn from its generator
// records, valid and invalid, and the three verdicts are compared call by call, on the planted
// backend (where some calls fail) and on the reference (where none may).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "support/planted_registry.h"
#include "harness/gen/fuzz_input.h"
#include "harness/gen/generators.h"
#include "harness/planted/planted.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"
#include "ops/records.h"
#include "ops/schema.h"
#include "reference/kernels.h"

namespace cvm {
namespace {

using testing::registry_with;

struct Verdicts {
  bool campaign = false, fuzz = false, golden = false;  // true: a finding
};

Verdicts judge_three_ways(const Registry& registry, const Call& call, const std::string& backend,
                          const std::string& case_dir) {
  Verdicts v;
  v.campaign = !judge_call(registry, call, {backend}).passed;
  v.fuzz = fuzz_one(registry, call, {backend}).has_value();
  // Golden: the call stored with the reference's outcome as its expectation, as golden generate
  // and the repro writer store it, then replayed on the backend.
  std::filesystem::remove_all(case_dir);
  write_repro(call, run_op_outcome(registry, "reference", call.op, call.attrs, call.inputs),
              case_dir);
  v.golden = !judge_case(registry, case_dir, backend).matches.value_or(false);
  return v;
}

TEST(OneVerdict, CampaignFuzzAndGoldenAgreeOnEveryPlantedBugsCalls) {
  const std::string case_dir =
      (std::filesystem::temp_directory_path() / "cvmcheck_one_verdict_case").string();
  const FuzzTarget* all = find_fuzz_target("all");
  ASSERT_NE(all, nullptr);
  int64_t judged = 0, findings = 0;
  for (const PlantedBug& bug : planted_bugs()) {
    const auto registry = registry_with(bug);
    const OpGenerators* gens = generators_for(registry->op(bug.op));
    ASSERT_NE(gens, nullptr) << bug.op;
    const int rules = static_cast<int>(gens->invalid.size());
    for (uint64_t seed = 1; seed <= 15; ++seed) {
      for (int rule = 0; rule <= rules; ++rule) {
        // A generator-mode fuzz input: it decodes to the very call the campaign would draw
        // from this seed, size and rule.
        const std::string bytes = encode_generator_input(*all, bug.op, seed, 20,
                                                         static_cast<uint8_t>(rule));
        const std::optional<Call> call = decode_fuzz_input(
            *all, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        if (!call || !bounded_reference(*registry, *call)) continue;
        for (const std::string backend : {bug.backend, std::string("reference")}) {
          const Verdicts v = judge_three_ways(*registry, *call, backend, case_dir);
          EXPECT_EQ(v.campaign, v.fuzz) << bug.backend << " on " << backend << ": "
                                        << describe_call(*call);
          EXPECT_EQ(v.campaign, v.golden) << bug.backend << " on " << backend << ": "
                                          << describe_call(*call);
          if (backend == "reference") EXPECT_FALSE(v.campaign) << describe_call(*call);
          ++judged;
          findings += v.campaign ? 1 : 0;
        }
      }
    }
  }
  std::filesystem::remove_all(case_dir);
  EXPECT_GT(judged, 200);
  EXPECT_GT(findings, 20);  // the planted bugs showed: the agreement is not only on passes
}

// A free-form fuzz call (explicit mode: no declared class) may give either error class on the
// reference; the generated-call verdict would want ok. Both see the same backend differences.
TEST(OneVerdict, AFreeFormCallAcceptsEitherClassButNeverARuntimeError) {
  const PlantedBug& bug = planted_bugs().front();
  const auto registry = registry_with(bug);
  Call call;
  call.op = "abs";
  call.inputs = {Tensor::from_values({2}, {1, 2}, 8), Tensor::from_values({2}, {1, 2}, 8)};
  Judgement free_form;
  free_form.backends = {"reference"};
  free_form.free_form = true;
  EXPECT_TRUE(judge(*registry, call, free_form).passed);  // two inputs: a logic_error
  EXPECT_FALSE(judge_call(*registry, call, {"reference"}).passed);  // wanted ok

  Judgement stored = free_form;
  Outcome broken;
  broken.kind = OutcomeKind::kRuntimeError;
  stored.reference = broken;
  const CallVerdict v = judge(*registry, call, stored);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.report.find("runtime_error (a bug of ours)"), std::string::npos) << v.report;
}

}  // namespace
}  // namespace cvm
