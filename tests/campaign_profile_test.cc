// The campaign's profile (CampaignResult::phase_seconds, page faults, CPU time; cvmcheck campaign
// --profile): structure only, never timing (tests time nothing): every phase is there and
// non-negative, the phases account for the campaign's wall time, and --jobs sums them.
#include <gtest/gtest.h>

#include <string>

#include "registry/registry.h"
#include "support/jobs.h"
#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_profile.h"

namespace cvm {
namespace {

CampaignOptions small_campaign() {
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 200;
  options.ops = {"sum", "clip", "conv2d"};
  options.backends = {"optimized", "cuda-host"};
  options.seed = 7;
  options.shrink_seconds = 0;
  return options;
}

double phase_sum(const CampaignResult& r) {
  double sum = 0;
  for (const auto& phase : r.phase_seconds) {
    EXPECT_GE(phase.second, 0.0) << phase.first;
    sum += phase.second;
  }
  return sum;
}

void expect_phases(const CampaignResult& r) {
  for (const char* phase : {"draw", "backend:reference", "backend:optimized", "backend:cuda-host",
                            "compare", "bookkeeping"}) {
    EXPECT_EQ(r.phase_seconds.count(phase), 1u) << phase;
  }
  EXPECT_EQ(r.phase_seconds.size(), 6u);
  EXPECT_GE(r.minor_faults, 0);
  EXPECT_GE(r.major_faults, 0);
  EXPECT_GE(r.cpu_seconds, 0.0);
}

TEST(CampaignProfile, PhasesAccountForTheWallTime) {
  const CampaignResult r = run_campaign(registry(), small_campaign());
  ASSERT_EQ(r.calls, 200);
  expect_phases(r);
  // Bookkeeping is the wall time less the timed phases, so they add up to it (sanity only).
  const double sum = phase_sum(r);
  EXPECT_LE(sum, r.seconds * 1.05 + 0.01);
  EXPECT_GE(sum, r.seconds * 0.95 - 0.01);
  // Page faults are counted, but may be none: in a process whose heap earlier tests warmed (the
  // test binary run directly, ci/shuffled-tests.sh) 200 calls can touch no new page.
  EXPECT_GE(r.minor_faults + r.major_faults, 0);
}

TEST(CampaignProfile, JobsSumTheirPhasesFaultsAndCpuTime) {
  const CampaignResult two =
      run_campaign_jobs(registry(), small_campaign(), 2, [] { testing::one_thread(0); });
  EXPECT_EQ(two.calls, 200);
  expect_phases(two);
  EXPECT_LE(phase_sum(two), 2 * (two.seconds * 1.05 + 0.01));  // two jobs' wall time at most

  CampaignResult a, b;
  a.backends = b.backends = {"reference", "x"};
  a.phase_seconds = {{"draw", 1}, {"backend:x", 2}, {"bookkeeping", 0.5}};
  b.phase_seconds = {{"draw", 3}, {"backend:x", 4}, {"compare", 0.25}};
  a.minor_faults = 10;
  b.minor_faults = 5;
  b.major_faults = 1;
  a.cpu_seconds = 1.5;
  b.cpu_seconds = 2;
  const CampaignResult m = merge_campaign_jobs({a, b});
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("draw"), 4);
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("backend:x"), 6);
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("bookkeeping"), 0.5);
  EXPECT_DOUBLE_EQ(m.phase_seconds.at("compare"), 0.25);
  EXPECT_EQ(m.minor_faults, 15);
  EXPECT_EQ(m.major_faults, 1);
  EXPECT_DOUBLE_EQ(m.cpu_seconds, 3.5);
}

TEST(CampaignProfile, TheTableListsEveryPhaseAndTheSummaryLine) {
  const CampaignResult r = run_campaign(registry(), small_campaign());
  const std::string text = campaign_profile(r);
  for (const char* phase : {"draw", "backend:reference", "backend:optimized", "backend:cuda-host",
                            "compare", "bookkeeping", "total"}) {
    EXPECT_NE(text.find(std::string("\n") + phase + " "), std::string::npos) << phase << "\n"
                                                                            << text;
  }
  EXPECT_NE(text.find("\nprofile: "), std::string::npos) << text;
  EXPECT_NE(text.find(" calls/s, "), std::string::npos) << text;
  EXPECT_NE(text.find(" page faults/call (minor "), std::string::npos) << text;
  EXPECT_NE(text.find(" CPUs used ("), std::string::npos) << text;
}

}  // namespace
}  // namespace cvm
