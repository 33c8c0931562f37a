// Kernel paths (docs/paths.md): declared by the backends, reported by the kernels, counted and
// required by the campaign, reached by the generators' draws.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "cvmcheck/op_list.h"
#include "cvmcheck/paths.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_paths.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"
#include "registry/registry.h"
#include "support/isas.h"

namespace cvm {
namespace {

// The CUDA backends that declare paths; optimized and every variant of it (each ISA of
// optimized/isa_list.h, its twin, optimized@3) declare theirs too.
const std::set<std::string> kCudaPathBackends = {"cuda-host",       "cuda-host@tile",
                                                  "cuda-host@warp",  "cuda-host@split",
                                                  "cuda-host@nms8",  "cuda-host/simple"};

bool declares_paths(const Backend& b) {
  return b.name == "optimized" || b.variant_of == "optimized" ||
         kCudaPathBackends.count(b.name) != 0;
}

bool listed(const std::string& op) {
  for (const ListedOp& l : kOperatorList) {
    if (l.name == op) return true;
  }
  return false;
}

TEST(KernelPaths, EveryDeclaredPathIsDefinedWithListedOperators) {
  for (const Backend& b : registry().backends()) {
    if (!declares_paths(b)) continue;
    EXPECT_FALSE(b.paths.empty()) << b.name << " declares no kernel path";
    for (const std::string& id : b.paths) {
      const PathInfo* info = paths::find(id);
      ASSERT_NE(info, nullptr) << b.name << ": " << id;
      EXPECT_FALSE(info->ops.empty()) << id;
      EXPECT_FALSE(info->description.empty()) << id;
      for (const std::string& op : info->ops) EXPECT_TRUE(listed(op)) << id << ": " << op;
    }
    for (const auto& [id, why] : b.unreachable_paths) {
      EXPECT_NE(std::find(b.paths.begin(), b.paths.end(), id), b.paths.end()) << id;
      EXPECT_FALSE(why.empty()) << id;
    }
  }
}

// The base backend's paths of another ISA are unreachable with a reason that names the variant
// which takes them ("the CPUID pick here is X: optimized/Y takes it", or "this CPU lacks Y"):
// that variant must declare the path, and take it unless its ISA is missing here.
TEST(KernelPaths, AnotherIsasPathNamesTheVariantThatTakesIt) {
  const Backend* base = registry().find_backend("optimized");
  ASSERT_NE(base, nullptr);
  int isa_reasons = 0;
  for (const auto& [id, why] : base->unreachable_paths) {
    std::string isa;
    const size_t takes = why.find(": optimized/");
    const size_t lacks = why.find("this CPU lacks ");
    if (takes != std::string::npos && why.size() > takes + 12) {
      isa = why.substr(takes + 12, why.find(' ', takes + 12) - (takes + 12));
    } else if (lacks == 0) {
      isa = why.substr(15, why.find(' ', 15) - 15);
    } else {
      continue;  // a reason that is not another ISA's (e.g. a campaign job's single thread)
    }
    ++isa_reasons;
    const Backend* variant = registry().find_backend("optimized/" + isa);
    ASSERT_NE(variant, nullptr) << id << ": " << why;
    EXPECT_NE(std::find(variant->paths.begin(), variant->paths.end(), id), variant->paths.end())
        << id << " is said to be taken by " << variant->name << " (" << why << ")";
    if (variant->available) EXPECT_EQ(variant->unreachable_paths.count(id), 0u) << id << ": " << why;
  }
  EXPECT_GT(isa_reasons, 0) << "every ISA's paths reachable by the CPUID pick alone?";
}

// A process on one thread (CVMCHECK_THREADS=1, a one-CPU machine) cannot take the team paths:
// the default backend declares them unreachable there, or every campaign would fail on them.
TEST(KernelPaths, OneThreadMakesTheTeamPathsUnreachable) {
  const int saved = opt::threads();
  opt::set_threads(1);
  Backend one;
  opt::path::declare(one, -1, false);
  opt::set_threads(2);
  Backend two;
  opt::path::declare(two, -1, false);
  opt::set_threads(saved);
  for (const char* team : {"threads.team", "infer.value_check.threaded"}) {
    ASSERT_EQ(one.unreachable_paths.count(team), 1u) << team;
    EXPECT_NE(one.unreachable_paths.at(team).find("one thread"), std::string::npos) << team;
    EXPECT_EQ(two.unreachable_paths.count(team), 0u) << team;
  }  // Only they: a path that one thread takes, declared unreachable, would never be judged.
  for (const auto& [id, why] : one.unreachable_paths) {
    if (two.unreachable_paths.count(id) == 0) {
      EXPECT_TRUE(id == "threads.team" || id == "infer.value_check.threaded" ||
                  id == "reduce.split_first_axis")
          << id << ": " << why;
    }
  }
  Backend campaign_job = two;  // the campaign's jobs: one thread each (optimized@3 aside)
  opt::path::mark_single_threaded(campaign_job, "one thread per campaign job");
  EXPECT_EQ(campaign_job.unreachable_paths.size(), one.unreachable_paths.size());
}

// optimized@3 (a team of three, threshold 0) is where the team paths are required: it leaves
// none of them unreachable, whatever the process's thread count; the ISA variants (a team of
// two above the default threshold) leave them to it.
TEST(KernelPaths, TheTeamVariantRequiresTheTeamPaths) {
  const Backend* three = registry().find_backend("optimized@3");
  const Backend* isa = registry().find_backend("optimized/portable");
  ASSERT_NE(three, nullptr);
  ASSERT_NE(isa, nullptr);
  for (const char* team : {"threads.team", "infer.value_check.threaded"}) {
    EXPECT_EQ(three->unreachable_paths.count(team), 0u) << team;
    ASSERT_EQ(isa->unreachable_paths.count(team), 1u) << team;
    EXPECT_NE(isa->unreachable_paths.at(team).find("optimized@3"), std::string::npos) << team;
  }
}

TEST(KernelPaths, ACallReportsItsPathsAndOnlyItsOwn) {
  const Tensor x = Tensor::from_values({40000}, std::vector<int32_t>(40000, -3), 8);
  const Outcome big = run_op_outcome(registry(), "optimized", "relu", nlohmann::json::object(), {x});
  ASSERT_EQ(big.kind, OutcomeKind::kOk);
  EXPECT_NE(std::find(big.paths.begin(), big.paths.end(), "relu.chunks"), big.paths.end());
  const Tensor small = Tensor::from_values({3}, {1, -2, 3}, 8);
  const Outcome one =
      run_op_outcome(registry(), "optimized", "relu", nlohmann::json::object(), {small});
  EXPECT_EQ(one.paths, std::vector<std::string>{"relu.one_chunk"});
  const Outcome ref =
      run_op_outcome(registry(), "reference", "relu", nlohmann::json::object(), {small});
  EXPECT_TRUE(ref.paths.empty());
}

// Fails for every declared path in scope that `r` did not reach (judged or for too few calls),
// but those `exempt` says another test reaches.
void expect_every_path_reached(
    const CampaignResult& r,
    const std::function<bool(const std::string&, const std::string&)>& exempt = nullptr) {
  for (const auto* missing : {&r.paths.not_reached, &r.paths.too_few_calls}) {
    for (const auto& [backend, ids] : *missing) {
      std::string list;
      for (const std::string& id : ids) {
        if (!exempt || !exempt(backend, id)) list += " " + id;
      }
      if (!list.empty()) ADD_FAILURE() << backend << " never reached:" << list;
    }
  }
}

// What a campaign over every operator of fixed seed reached: every declared path that this
// machine can reach, on the backends that between them declare every path (the team variant
// takes the CPUID pick's paths and the threaded ones, the ISA variants the others'). A path the
// generators stop drawing, or a kernel that stops marking its path, fails here. The CUDA
// kernels' paths are taken here by cuda-host and each of its variants, but for cuda-host's full
// 64-wide tile and the paths of conv2d and dense alone: their aimed calls cost enough that the
// schedule makes few of them in 20,000 calls of every operator, so that which of their rarer
// paths such a run reaches turns on the seed (ConvolutionsAloneReachEveryConvolutionPath and
// DenseAloneReachesEveryDensePath reach them).
// A path left unjudged for too few calls of its operators fails here too. The emulated twins
// take the AVX-VNNI and AVX-512 VNNI paths on any x86-64 machine (support/isas.h: the ISA
// variants of this binary, x86 or ARM).
TEST(KernelPaths, AFixedCampaignReachesEveryReachablePath) {
  std::set<std::string> backends = {"optimized@3",    "cuda-host",      "cuda-host@tile",
                                    "cuda-host@warp", "cuda-host@split", "cuda-host@nms8",
                                    "cuda-host/simple"};
  for (const std::string& name : testing::isa_path_backends()) backends.insert(name);
  CampaignOptions o;
  o.seconds = 600;
  o.max_cases = 20000;
  o.seed = 20261127;
  o.shrink_seconds = 0;
  o.backends.assign(backends.begin(), backends.end());
  const CampaignResult r = run_campaign(registry(), o);
  EXPECT_EQ(r.mismatches, 0);
  // The aimed calls of conv2d and dense, the costliest, are few among every operator's 20,000:
  // their own paths and cuda-host's full tile are the tests' below.
  expect_every_path_reached(r, [](const std::string& backend, const std::string& id) {
    const PathInfo* info = paths::find(id);
    const bool nn_only = info != nullptr && (info->ops == std::vector<std::string>{"conv2d"} ||
                                             info->ops == std::vector<std::string>{"dense"});
    return nn_only || (backend == "cuda-host" && id == "cuda.gemm.full_tile");
  });
  for (const std::string& name : backends) {
    const Backend* b = registry().find_backend(name);
    if (!b->available) continue;
    EXPECT_EQ(r.paths.in_scope.at(name).size(), b->paths.size()) << name;
  }
  std::cout << paths_summary(r.paths, true);
}

// A campaign of `op` alone, bounded by `calls`, on the backends that between them declare its
// paths: the GEMM ISA every machine of its processor runs (AVX2 on x86, the NEON one on ARM).
CampaignResult alone(const std::string& op, int64_t calls) {
  CampaignOptions o;
  o.seconds = 600;
  o.max_cases = calls;
  o.seed = 5;
  o.shrink_seconds = 0;
  o.ops = {op};
  const char* gemm =
      opt::isa_built(opt::Isa::kNeonDot) ? "optimized/neon-dotprod" : "optimized/avx2";
  o.backends = {"optimized@3", gemm, "optimized/portable", "cuda-host",
                "cuda-host@tile", "cuda-host/simple"};
  return run_campaign(registry(), o);
}

// A run of conv2d alone (a kernel developer's first command) reaches every path its operator's
// backends declare, the CUDA GEMM's full tile and K slices included, in a count of calls that a
// 10-s run on a 2-core machine makes (8,000: docs/paths.md).
TEST(KernelPaths, ConvolutionsAloneReachEveryConvolutionPath) {
  const CampaignResult r = alone("conv2d", 8000);
  EXPECT_EQ(r.mismatches, 0);
  expect_every_path_reached(r);
  EXPECT_TRUE(r.paths.in_scope.at("cuda-host").count("cuda.gemm.full_tile"));
  EXPECT_TRUE(r.paths.calls.at("cuda-host").count("cuda.gemm.k_slices"));
}

// The same for dense alone: every path its backends declare, the gemv and the three AVX2
// pair instructions by precision included, in 4,000 calls; cuda-host's full 64-wide tile is
// the convolutions' (the dense generators keep most calls below 64 x 64 outputs).
TEST(KernelPaths, DenseAloneReachesEveryDensePath) {
  const CampaignResult r = alone("dense", 4000);
  EXPECT_EQ(r.mismatches, 0);
  expect_every_path_reached(r, [](const std::string& backend, const std::string& id) {
    return backend == "cuda-host" && id == "cuda.gemm.full_tile";
  });
}

// A path is judged by the calls of its operators, never by the clock: short of kPathJudgeCalls
// it is "too few calls to judge" (a warning), at or past them an unreached path is a failure,
// and jobs merged are judged on their calls together.
TEST(KernelPaths, PathsAreJudgedByCallsNotByTime) {
  CampaignOptions o;
  o.seconds = 600;
  o.max_cases = 3;
  o.seed = 3;
  o.shrink_seconds = 0;
  o.ops = {"relu"};
  o.backends = {"optimized"};
  const CampaignResult few = run_campaign(registry(), o);
  EXPECT_TRUE(few.paths.not_reached.empty());
  ASSERT_TRUE(few.paths.too_few_calls.count("optimized")) << paths_summary(few.paths, true);
  EXPECT_NE(paths_summary(few.paths, false).find("too few calls to judge paths"), std::string::npos);

  CampaignResult merged = few;  // two such jobs: still too few
  merged.aimed_calls["relu"] = kPathJudgeCalls - 1;
  judge_merged_paths(merged);
  EXPECT_TRUE(merged.paths.not_reached.empty());
  merged.aimed_calls["relu"] = kPathJudgeCalls;
  judge_merged_paths(merged);
  EXPECT_EQ(merged.paths.not_reached.at("optimized"), few.paths.too_few_calls.at("optimized"));
  EXPECT_TRUE(merged.paths.too_few_calls.empty());
}

TEST(KernelPaths, JobsMergeWhatEitherReached) {
  CampaignPaths a, b;
  a.in_scope["x"] = {"p", "q"};
  a.calls["x"]["p"] = 2;
  a.not_reached["x"] = {"q"};
  b.in_scope["x"] = {"p", "q"};
  b.calls["x"]["q"] = 1;
  b.not_reached["x"] = {"p"};
  CampaignPaths merged;
  merge_paths(merged, a);
  merge_paths(merged, b);
  EXPECT_TRUE(merged.not_reached.empty());
  EXPECT_EQ(merged.calls["x"]["p"], 2);
  const CampaignPaths back = paths_from_json(paths_json(merged));
  EXPECT_EQ(back.calls, merged.calls);
  EXPECT_EQ(back.in_scope, merged.in_scope);
}

}  // namespace
}  // namespace cvm
