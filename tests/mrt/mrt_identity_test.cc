// MRT expansion identities (the MRT formalization, docs/mrt.md): for random integer buffers, zero-point
// offsets, merge multipliers and shapes, the expansion built from registered operators equals
// the direct formula exactly, on the reference and on every other backend that implements
// the operators involved (a backend that cannot run it is reported as skipped, with why).
// Each identity family also has a planted bug that the same check must catch.
// Budget: CVMCHECK_PROP_CASES cases per property (default below); RC_PARAMS="seed=N" replays.
#include <gtest/gtest.h>

#include "registry/registry.h"
#include "harness/mrt/mrt_check.h"
#include "harness/engine/property.h"

namespace cvm::mrt {
namespace {

constexpr int kDefaultCases = 100;

std::vector<std::string> scheme_names() {
  std::vector<std::string> names;
  for (const Scheme& s : all_schemes()) names.push_back(scheme_name(s));
  return names;
}

Scheme scheme_named(const std::string& name) {
  for (const Scheme& s : all_schemes()) {
    if (scheme_name(s) == name) return s;
  }
  throw std::invalid_argument("no MRT scheme " + name);
}

class MrtIdentity : public ::testing::TestWithParam<std::string> {};

TEST_P(MrtIdentity, ExpansionEqualsDirectFormulaOnEveryBackend) {
  const Scheme scheme = scheme_named(GetParam());
  std::vector<std::string> runnable;
  for (const Backend& b : registry().backends()) {
    const std::string why = skip_reason(b, scheme);
    if (why.empty()) {
      runnable.push_back(b.name);
    } else {
      // Reported, never silent: in the test log and in the XML report. Not gtest's own
      // "[  SKIPPED ]" marker: ctest would then count the whole test, which ran, as skipped.
      std::cout << "backend skipped: " << b.name << " for " << GetParam() << ": " << why << "\n";
      RecordProperty("skipped_" + b.name, why);
    }
  }
  ASSERT_FALSE(runnable.empty());
  int cases = 0;
  const PropertyVerdict verdict = check_property(
      GetParam(),
      [&] {
        const IdentityCase c = *identity_case(scheme);
        for (const std::string& backend : runnable) {
          const auto mismatch = check_identity(registry(), c, backend);
          if (mismatch) RC_FAIL(*mismatch);
        }
        ++cases;
        RC_TAG(c.channels());
      },
      {property_cases(kDefaultCases)});
  EXPECT_TRUE(verdict.passed) << verdict.message;
  std::string names;
  for (const std::string& b : runnable) names += " " + b;
  std::cout << "[   INFO   ] " << GetParam() << ": " << cases << " cases equal on" << names << "\n";
  RecordProperty("cases", cases);
}

INSTANTIATE_TEST_SUITE_P(AllSchemes, MrtIdentity, ::testing::ValuesIn(scheme_names()),
                         [](const auto& info) { return info.param; });

// The scheme on which each planted bug shows.
Scheme planted_scheme(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kConvDropZpProduct:
      return {Family::kConv2d, Granularity::kLayer, true, true};
    case PlantedBug::kDenseDropXSum: return {Family::kDense, Granularity::kLayer, false, true};
    case PlantedBug::kPadZpAfterPad: return {Family::kPad, Granularity::kLayer, true, false};
    case PlantedBug::kReluZpAfterRelu: return {Family::kRelu, Granularity::kChannel, true, false};
    case PlantedBug::kPoolPadWithZero:
      return {Family::kMaxPool2d, Granularity::kLayer, false, false};
    case PlantedBug::kMergeDropMultiplier:
      return {Family::kConv2d, Granularity::kChannel, false, false};
    case PlantedBug::kNone: break;
  }
  return {};
}

class MrtPlantedBug : public ::testing::TestWithParam<PlantedBug> {};

// A harness that cannot fail is worthless: each wrong expansion must be caught.
TEST_P(MrtPlantedBug, CheckCatchesTheWrongExpansion) {
  const Scheme scheme = planted_scheme(GetParam());
  ASSERT_EQ(scheme.family, planted_bug_family(GetParam()));
  const PropertyVerdict verdict = check_property(
      std::string("planted ") + planted_bug_name(GetParam()),
      [&] {
        const IdentityCase c = *identity_case(scheme);
        const auto mismatch = check_identity(registry(), c, "reference", GetParam());
        if (mismatch) RC_FAIL(*mismatch);
      },
      {.cases = 300, .seed = 0, .max_size = 100, .shrink = false});
  EXPECT_FALSE(verdict.passed) << planted_bug_name(GetParam()) << " was not caught in "
                               << verdict.successes << " cases";
  std::cout << "[   INFO   ] " << planted_bug_name(GetParam()) << " caught after "
            << verdict.successes << " passing cases: "
            << verdict.message.substr(0, verdict.message.find('\n', 200)) << "\n";
  // The failure is a value mismatch, not a broken expansion.
  EXPECT_EQ(verdict.message.find("expansion failed"), std::string::npos) << verdict.message;
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, MrtPlantedBug, ::testing::ValuesIn(all_planted_bugs()),
                         [](const auto& info) {
                           return std::string(planted_bug_name(info.param));
                         });

}  // namespace
}  // namespace cvm::mrt
