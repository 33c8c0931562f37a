// The campaign's cost-aware schedule (harness/campaign/call_schedule.h, call_cost.h): time shared
// by estimated work, not calls by round robin; deterministic (a seed replays the same calls, a
// saved state resumes the same sequence); the variants run on the calls where they pay.
#include <gtest/gtest.h>

#include "cvmcheck/errors.h"
#include "harness/engine/call_cost.h"
#include "ops/work.h"
#include "harness/campaign/call_schedule.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_report.h"
#include "registry/registry.h"

namespace cvm {
namespace {

Call call_of(const std::string& op, std::vector<Shape> shapes, nlohmann::json attrs = {}) {
  Call call;
  call.op = op;
  call.attrs = attrs.is_null() ? nlohmann::json::object() : attrs;
  for (const Shape& s : shapes) call.inputs.push_back(Tensor::zeros(DType::kInt32, s, 8));
  return call;
}

TEST(CallCost, ConvolutionWorkIsItsMultiplyAdds) {
  const Call small = call_of("conv2d", {{1, 4, 8, 8}, {8, 4, 3, 3}});
  const Call large = call_of("conv2d", {{1, 4, 32, 32}, {8, 4, 3, 3}});
  // 64 positions x 288 weights, and 16 times the positions.
  EXPECT_DOUBLE_EQ(call_work(small), kRunUnits + 256 + 288 + 64 * 288);
  EXPECT_GT(call_work(large), 15 * (call_work(small) - kRunUnits));
  const Call strided = call_of("conv2d", {{1, 4, 32, 32}, {8, 4, 3, 3}}, {{"strides", "(2, 2)"}});
  EXPECT_LT(call_work(strided), call_work(large) / 3);
}

TEST(CallCost, DenseBroadcastAndInvalidCalls) {
  EXPECT_DOUBLE_EQ(call_work(call_of("dense", {{4, 16}, {10, 16}})), kRunUnits + 64 + 160 + 640);
  EXPECT_DOUBLE_EQ(call_work(call_of("broadcast_add", {{8, 1}, {1, 16}})), kRunUnits + 24 + 128);
  EXPECT_DOUBLE_EQ(call_work(call_of("relu", {{100}})), kRunUnits + 100);
  Call invalid = call_of("conv2d", {{1, 4, 32, 32}, {8, 4, 3, 3}});
  invalid.expected = OutcomeKind::kLogicError;  // stops at validation: no multiply-adds
  EXPECT_DOUBLE_EQ(call_work(invalid), kRunUnits + 4096 + 288);
  Call huge = call_of("flatten", {{1, 4097, 4096}});  // a shape rule's 2^24 zeros, never read
  huge.expected = OutcomeKind::kLogicError;
  EXPECT_DOUBLE_EQ(call_work(huge), kRunUnits + kInvalidReadUnits);
}

TEST(CallCost, AttributeProducts) {
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"strides", "(2, 3)"}}).attrs, "strides"), 6);
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"strides", "[4,1]"}}).attrs, "strides"), 4);
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"scale", "3"}}).attrs, "scale"), 3);
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"strides", "()"}}).attrs, "strides"), 1);
  // Not a string:
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"strides", 7}}).attrs, "strides"), 1);
  EXPECT_EQ(ops::attr_product(call_of("x", {}).attrs, "strides"), 1);
  EXPECT_EQ(ops::attr_product(call_of("x", {}, {{"strides", "(99999999999, 99999999999)"}}).attrs,
                              "strides"),
            1 << 20);  // bounded: an estimate never overflows
}

TEST(CallCost, VariantsRunOnEverySmallCallAndSomeLargeOnes) {
  int large_runs = 0;
  for (uint64_t seed = 1; seed <= 4000; ++seed) {
    EXPECT_TRUE(variant_runs(kVariantAllUnits, seed, 2));
    large_runs += variant_runs(kVariantAllUnits + 1, seed, 2) ? 1 : 0;
  }
  EXPECT_GT(large_runs, 4000 / kVariantEvery * 8 / 10);
  EXPECT_LT(large_runs, 4000 / kVariantEvery * 12 / 10);
}

TEST(CallSchedule, SharesTimeNotCalls) {
  CallSchedule schedule({"cheap", "dear"}, {1.0, 1.0});
  std::map<std::string, int> calls;
  for (int k = 0; k < 1100; ++k) {
    const size_t op = schedule.next();
    ++calls[schedule.op(op)];
    schedule.charge(op, schedule.op(op) == "cheap" ? 1.0 : 100.0);
  }
  EXPECT_EQ(calls["cheap"], 1089);  // 100 cheap calls for each dear one
  EXPECT_EQ(calls["dear"], 11);
  const auto work = schedule.charged_work();
  EXPECT_NEAR(work.at("cheap"), work.at("dear"), 100.0);
}

TEST(CallSchedule, ABoostedOperatorGetsItsFactorOfTheTime) {
  CallSchedule schedule({"a", "b"}, {1.0, 1.0});
  schedule.boost({{"b", 3}});
  for (int k = 0; k < 400; ++k) schedule.charge(schedule.next(), 1.0);
  EXPECT_DOUBLE_EQ(schedule.charged_work().at("b"), 300.0);
  EXPECT_DOUBLE_EQ(schedule.planned_shares().at("b"), 0.5);  // planned: the base shares
}

TEST(CallSchedule, AStateResumesTheSameSequence) {
  CallSchedule a({"x", "y", "z"}, {1.0, 2.0, 0.5});
  for (int k = 0; k < 50; ++k) a.charge(a.next(), 1.0 + k % 7);
  CallSchedule b({"x", "y", "z"}, {1.0, 2.0, 0.5});
  b.restore(nlohmann::json::parse(a.state().dump()));
  for (int k = 0; k < 50; ++k) {
    const size_t op = a.next();
    ASSERT_EQ(b.next(), op) << k;
    a.charge(op, 1.0 + k % 5);
    b.charge(op, 1.0 + k % 5);
  }
  CallSchedule other({"x", "y"}, {1.0, 1.0});
  EXPECT_THROW(other.restore(a.state()), RuntimeError);
}

TEST(CallSchedule, OperatorsWithMorePathsGetMoreOfTheTime) {
  const Registry& r = registry();
  std::vector<ScheduleArm> arms;
  const CallSchedule schedule =
      schedule_for(r, {r.find_op("conv2d"), r.find_op("abs")}, {"optimized", "cuda-host"}, arms);
  const auto shares = schedule.planned_shares();
  EXPECT_GT(shares.at("conv2d"), 1.5 * shares.at("abs"));
  // Two arms per operator, plain and aimed, with half its share each.
  ASSERT_EQ(arms.size(), 4u);
  EXPECT_EQ(schedule.op(1), "conv2d@aimed");
  EXPECT_TRUE(arms[1].aimed);
  EXPECT_EQ(arms[3].op, 1u);
  EXPECT_DOUBLE_EQ(shares.at("conv2d@aimed"), shares.at("conv2d"));
  EXPECT_EQ(arm_operator("conv2d@aimed"), "conv2d");
  EXPECT_EQ(arm_operator("conv2d"), "conv2d");
}

CampaignOptions fixed_campaign() {
  CampaignOptions options;
  options.seconds = 600;
  options.max_cases = 400;
  options.ops = {"conv2d", "abs"};
  options.backends = {"optimized", "optimized/portable", "optimized@3"};
  options.seed = 31;
  options.shrink_seconds = 0;
  return options;
}

TEST(CampaignSchedule, TheSameSeedMakesTheSameCalls) {
  const CampaignResult a = run_campaign(registry(), fixed_campaign());
  const CampaignResult b = run_campaign(registry(), fixed_campaign());
  ASSERT_EQ(a.calls, 400);
  for (const auto& [op, row] : a.table) {
    for (const auto& [backend, cell] : row) {
      EXPECT_EQ(b.table.at(op).at(backend).cases, cell.cases) << op << " " << backend;
      EXPECT_EQ(b.table.at(op).at(backend).ok, cell.ok) << op << " " << backend;
    }
  }
  EXPECT_EQ(a.paths.calls, b.paths.calls);
}

TEST(CampaignSchedule, VariantsRunWhereTheyPay) {
  const CampaignResult r = run_campaign(registry(), fixed_campaign());
  EXPECT_GT(r.table.at("conv2d").at("reference").cases, 0);
  // optimized@3 runs one call in four; the other variants every small call (most of abs's)
  // where their choice decides abs's kernel (an x86 build: the baseline pass is portable's
  // own), its aimed calls alone where not (aarch64: NEON runs the same baseline pass).
  EXPECT_LT(r.table.at("abs").at("optimized@3").cases * 2, r.table.at("abs").at("optimized").cases);
  if (variant_ops(registry(), "optimized/portable").count("abs") != 0) {
    EXPECT_GT(r.table.at("abs").at("optimized/portable").cases * 10,
              r.table.at("abs").at("optimized").cases * 7);
  } else {
    EXPECT_EQ(r.table.at("abs").at("optimized/portable").cases, r.aimed_calls.at("abs"));
  }
  EXPECT_EQ(r.planned_share.size(), 2u);
  EXPECT_NEAR(r.planned_share.at("conv2d") + r.planned_share.at("abs"), 1.0, 1e-9);
}

// A variant's plain calls go only to the operators whose kernels its forced choice decides: an ISA
// variant's GEMMs and elementwise passes, a CUDA variant's own family; never a transpose, whose
// code is the same whatever the ISA. A variant that costs on every call (optimized@3) and a base
// backend run every operator.
TEST(CallCost, VariantsRunTheOperatorsTheirChoiceChanges) {
  const Registry& r = registry();
  const std::set<std::string> portable = variant_ops(r, "optimized/portable");
  for (const char* op : {"conv2d", "dense"}) EXPECT_EQ(portable.count(op), 1u) << op;
  for (const char* op : {"transpose", "take", "flatten"}) EXPECT_EQ(portable.count(op), 0u) << op;
  if (r.find_backend("optimized/avx2") != nullptr) {  // an x86 build
    const std::set<std::string> avx2 = variant_ops(r, "optimized/avx2");
    for (const char* op : {"conv2d", "dense", "abs", "broadcast_add"}) {
      EXPECT_EQ(avx2.count(op), 1u) << op;
    }
    EXPECT_EQ(avx2.count("transpose"), 0u);
  }
  EXPECT_TRUE(variant_ops(r, "optimized@3").empty());
  EXPECT_TRUE(variant_ops(r, "optimized").empty());
  const std::set<std::string> nms8 = variant_ops(r, "cuda-host@nms8");
  EXPECT_EQ(nms8.count("non_max_suppression"), 1u);
  EXPECT_EQ(nms8.count("abs"), 0u);

  CampaignOptions options = fixed_campaign();
  options.ops = {"transpose", "abs"};
  const CampaignResult c = run_campaign(r, options);
  // optimized/portable runs transpose's aimed calls only, and abs's small plain ones too where
  // its choice decides abs's kernel.
  EXPECT_EQ(c.table.at("transpose").at("optimized/portable").cases, c.aimed_calls.at("transpose"));
  if (portable.count("abs") != 0) {
    EXPECT_GT(c.table.at("abs").at("optimized/portable").cases, c.aimed_calls.at("abs"));
  }
  // Its transpose paths run the base's code: judged on optimized, not on the variant.
  EXPECT_EQ(c.paths.unreachable.at("optimized/portable").count("copy.run"), 1u);
}

}  // namespace
}  // namespace cvm
