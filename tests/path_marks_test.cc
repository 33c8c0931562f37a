// The kernel path marks have an oracle (docs/paths.md, "Tests"): every path of every backend
// and variant that declares paths has a row (harness/path_oracle/path_rows_*.cc, which every
// campaign runs on its compared backends too) of calls that must report
// it and, where a size decides it, calls just past that size that must not; every call reports
// only paths its backend can take. A wrong mark changes no output, so before these rows a mark
// inverted or shifted by one (cuda/gemm_device.h's K tail and border marks were) survived
// every other test while the campaign's "every path reached" rested on it.
#include <gtest/gtest.h>

#include <iostream>

#include "cvmcheck/paths.h"
#include "registry/registry.h"
#include "harness/campaign/campaign.h"
#include "harness/path_oracle/path_marks.h"

namespace cvm {
namespace {

using path_oracle::MarkTally;

bool starts_with(const std::string& text, const std::string& head) {
  return text.rfind(head, 0) == 0;
}

// Runs the rows on every backend whose name starts with `family` and is not a longer family
// (cuda-host is not cuda's); prints what each covered.
void check_family(const std::string& family, const std::string& other) {
  int backends = 0;
  for (const Backend& b : registry().backends()) {
    if (!starts_with(b.name, family) || (!other.empty() && starts_with(b.name, other))) continue;
    if (b.paths.empty()) continue;
    ++backends;
    const MarkTally t = path_oracle::check_path_marks(registry(), b);
    for (const std::string& failure : t.failures) ADD_FAILURE() << failure;
    std::cout << b.name << ": " << t.declared << " paths";
    if (!b.available) {
      std::cout << ", unavailable (" << b.unavailable_reason << ")\n";
      continue;
    }
    std::cout << ", " << t.must << " taken by a call, " << t.must_not << " refused just past "
              << "a threshold, " << t.unreachable << " unreachable here\n";
    EXPECT_EQ(t.must + t.unreachable, t.declared) << b.name;
  }
  EXPECT_GT(backends, 0) << "no " << family << " backend declares paths";
}

// Like PyTorch's OpInfo: a path a backend declares without a row fails, unless an explicit
// entry gives the reason; a row of a path nobody defines is stale.
TEST(PathMarks, EveryDeclaredPathHasARowOrAReason) {
  for (const Backend& b : registry().backends()) {
    for (const std::string& id : b.paths) {
      const std::vector<const path_oracle::PathRow*> rows = path_oracle::rows_for(id, b);
      EXPECT_TRUE(!rows.empty() || path_oracle::absent_row(id) != nullptr)
          << b.name << " declares " << id << " with no row in harness/path_oracle/path_rows_*.cc";
      for (const path_oracle::PathRow* row : rows) {
        EXPECT_NE(row->must, nullptr) << id;
        EXPECT_TRUE(row->must_not != nullptr || !row->one_sided.empty())
            << id << ": a row without a call past its threshold must say why";
      }
    }
  }
  for (const auto* table : {&path_oracle::optimized_path_rows(), &path_oracle::cuda_path_rows()}) {
    for (const path_oracle::PathRow& row : *table) {
      bool matched = false;  // a pattern row ("conv2d.gemm.*") must stand for a path
      for (const PathInfo& info : paths::defined()) {
        matched = matched || (path_oracle::row_pattern_matches(row.path, info.id) &&
                              !path_oracle::has_exact_row(info.id));
      }
      EXPECT_TRUE(paths::find(row.path) != nullptr || matched)
          << "a row of an undefined path: " << row.path;
    }
  }
  for (const path_oracle::AbsentPath& a : path_oracle::absent_path_rows()) {
    EXPECT_FALSE(a.reason.empty()) << a.path;
  }
}

TEST(PathMarksOptimized, EachPathTakenOnItsSideOfEveryThreshold) { check_family("optimized", ""); }

TEST(PathMarksCudaHost, EachPathTakenOnItsSideOfEveryThreshold) { check_family("cuda-host", ""); }

// The device backends: where no GPU (or no nvcc) is, each is unavailable with its reason, and
// the completeness test above still holds their paths to rows.
TEST(PathMarksCuda, EachPathTakenOnItsSideOfEveryThreshold) { check_family("cuda", "cuda-host"); }

const char* const kWrong = "optimized-wrong-marks";

// The optimized backend with relu's marks made wrong: `extra` marked on every call, `dropped`
// never marked (the kernel runs as it is: the outputs stay right).
Registry with_wrong_relu_marks(const std::string& extra, const std::string& dropped) {
  Registry r = registry();
  Backend b = *r.find_backend("optimized");
  b.name = kWrong;
  const Kernel relu = b.kernels.at("relu");
  b.add("relu", [relu, extra, dropped](const OpContext& ctx) {
    std::vector<Tensor> outputs = relu(ctx);
    for (const std::string& id : paths::take()) {
      if (id != dropped) paths::hit(paths::define(id.c_str(), "", ""));
    }
    if (!extra.empty()) paths::hit(paths::define(extra.c_str(), "", ""));
    return outputs;
  });
  r.add_backend(std::move(b));
  return r;
}

// The failures the rows report on backend `name` of `r`, one per line.
std::string failures_on(const Registry& r, const std::string& name) {
  std::string text;
  for (const std::string& failure : path_oracle::check_path_marks(r, *r.find_backend(name)).failures) {
    text += failure + '\n';
  }
  return text;
}

// The oracle itself: a mark added where the threshold says no, one dropped where it says yes,
// and one of another backend's path each fail it (as the hand-run mutants of
// cuda/gemm_device.h:236 and :242 did).
TEST(PathMarks, AWrongMarkFailsTheRows) {
  const std::string added = failures_on(with_wrong_relu_marks("relu.chunks", ""), kWrong);
  EXPECT_NE(added.find("must not report relu.chunks"), std::string::npos) << added;
  const std::string dropped = failures_on(with_wrong_relu_marks("", "relu.one_chunk"), kWrong);
  EXPECT_NE(dropped.find("must report relu.one_chunk"), std::string::npos) << dropped;
  const std::string other = failures_on(with_wrong_relu_marks("cuda.step.map", ""), kWrong);
  EXPECT_NE(other.find("reported cuda.step.map, which it does not declare"), std::string::npos)
      << other;
}

// The campaign runs the same rows on its compared backends: a wrong mark fails the campaign
// itself (campaign.json's "wrong_marks"), so the mutant judges, which judge by the campaign
// alone, kill a wrong mark too; the correct backend's run has none.
TEST(PathMarks, ACampaignFailsOnAWrongMark) {
  const Registry wrong = with_wrong_relu_marks("relu.chunks", "");
  CampaignOptions o;
  o.ops = {"relu"};
  o.backends = {kWrong};
  o.max_cases = 20;
  o.seconds = 3600;
  const CampaignResult bad = run_campaign(wrong, o);
  ASSERT_EQ(bad.paths.wrong_marks.count(kWrong), 1u);
  EXPECT_NE(bad.paths.wrong_marks.at(kWrong).front().find("relu.chunks"), std::string::npos);
  o.backends = {"optimized"};
  EXPECT_TRUE(run_campaign(wrong, o).paths.wrong_marks.empty());
}

}  // namespace
}  // namespace cvm
