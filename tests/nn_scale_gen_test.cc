// The value check drawn at scale (harness/gen/nn_scale_gen.cc) meets every fast path of the
// optimized conv2d and dense kernels on both ISAs, with the bad value on both sides and in every
// position class. The printed tables are docs/ops/nn.md's "The value check at scale".
#include <gtest/gtest.h>

#include <iostream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "cvmcheck/precision.h"
#include "harness/gen/generators.h"
#include "registry/registry.h"

namespace cvm {
namespace {

constexpr int kDraws = 200;

// The flat index of the one value outside its input's precision, and that input.
struct BadValue {
  size_t input = 0;
  int64_t index = -1;
  bool high = false;
};

BadValue find_bad_value(const Call& call) {
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    const Tensor& t = call.inputs[k];
    const int64_t a = alpha(t.precision());
    for (int64_t i = 0; i < t.size(); ++i) {
      if (t.get(i) > a || t.get(i) < -a) return {k, i, t.get(i) > a};
    }
  }
  return {};
}

// The backends whose reported paths classify a draw: each GEMM ISA this CPU runs (of those this
// binary holds: x86 or ARM), and the CPUID pick with its default team (the kernels say which
// path a call took: no threshold is copied here).
std::vector<std::string> gemm_backends() {
  std::vector<std::string> names;
  for (const char* name :
       {"optimized/avx512vnni", "optimized/avx2", "optimized/neon-dotprod", "optimized"}) {
    const Backend* b = registry().find_backend(name);
    if (b != nullptr && b->available) names.push_back(name);
  }
  return names;
}

// The int32 lanes of the widest vector the GEMM backends above declare (their "dense.lanes").
int64_t widest_lanes() {
  int64_t lanes = 1;
  for (const std::string& name : gemm_backends()) {
    for (const PathThreshold& t : registry().find_backend(name)->thresholds) {
      if (t.name == "dense.lanes") lanes = std::max(lanes, t.value);
    }
  }
  return lanes;
}

// The position classes of the bad value in rows of `inner` elements: the last row (the last
// panel), past the last full vector of int32 lanes, inside a full vector of int8 lanes.
void add_position(std::map<std::string, int>& counts, const Tensor& t, int64_t index,
                  int64_t inner) {
  const int64_t rows = t.size() / inner, column = index % inner;
  const int64_t lanes = widest_lanes(), bytes = 4 * lanes;
  if (rows > 1 && index / inner == rows - 1) counts["in the last row of several"]++;
  if (inner % lanes != 0 && column >= inner - inner % lanes) counts["past the last vector"]++;
  if (inner >= bytes && column < inner - inner % bytes) counts["in a full vector of bytes"]++;
}

// Draws kDraws calls of `op`'s rule, runs each on the GEMM backends and counts, per path they
// report and per position class of the bad value, the draws that meet it.
std::map<std::string, int> tally(const std::string& op, const std::string& rule,
                                 const std::function<int64_t(const Call&, size_t)>& inner) {
  const OpGenerators* gens = generators_for(registry().op(op));
  EXPECT_NE(gens, nullptr);
  std::map<std::string, int> counts;
  for (const InvalidGenerator& g : gens->invalid) {
    if (g.rule != rule) continue;
    for (uint64_t seed = 1; seed <= kDraws; ++seed) {
      const Call call = g.gen(rc::Random(seed), 100).value();
      const BadValue bad = find_bad_value(call);
      EXPECT_GE(bad.index, 0) << op << " " << rule << " seed " << seed << ": no bad value";
      counts[bad.high ? "value above alpha(p)" : "value below -alpha(p)"]++;
      if (call.inputs[bad.input].dtype() == DType::kInt8) counts["int8 storage"]++;
      std::set<std::string> met;
      for (const std::string& backend : gemm_backends()) {
        const Outcome o = run_op_outcome(registry(), backend, call.op, call.attrs, call.inputs);
        EXPECT_EQ(o.kind, OutcomeKind::kLogicError) << backend << " seed " << seed;
        met.insert(o.paths.begin(), o.paths.end());
      }
      for (const std::string& path : met) counts[path]++;
      add_position(counts, call.inputs[bad.input], bad.index, inner(call, bad.input));
    }
  }
  std::cout << op << " " << rule << " (" << kDraws << " draws)\n";
  for (const auto& [path, n] : counts) std::cout << "  " << path << ": " << n << "\n";
  return counts;
}

void expect_every(const std::map<std::string, int>& counts,
                  const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    EXPECT_GE(counts.count(path) ? counts.at(path) : 0, kDraws / 50) << path;
  }
}

const std::vector<std::string> kEveryPosition = {
    "value above alpha(p)", "value below -alpha(p)", "int8 storage", "in the last row of several",
    "past the last vector", "in a full vector of bytes"};

// The threaded path (work >= the thread threshold) where this process runs a team.
std::vector<std::string> with_team(std::vector<std::string> wanted) {
  if (registry().find_backend("optimized")->unreachable_paths.count("threads.team") == 0) {
    wanted.push_back("threads.team");
  }
  return wanted;
}

TEST(NnValueCheckAtScale, DenseDrawsMeetEveryPath) {
  for (const std::string rule :
       {"data_value_outside_precision_at_scale", "weight_value_outside_precision_at_scale"}) {
    const auto counts = tally("dense", rule, [](const Call& call, size_t) {
      return call.inputs[0].shape()[1];  // rows of depth values, both operands
    });
    std::vector<std::string> wanted = with_team(kEveryPosition);
    for (const char* path : {"dense.gemm.kblocks", "dense.gemm.row_chunks",
                             "dense.gemm.partial_panel", "dense.gemm.column_tail"}) {
      wanted.push_back(path);
    }
    expect_every(counts, wanted);
  }
}

TEST(NnValueCheckAtScale, Conv2dDrawsMeetEveryPath) {
  for (const std::string rule :
       {"data_value_outside_precision_at_scale", "weight_value_outside_precision_at_scale"}) {
    const auto counts = tally("conv2d", rule, [](const Call& call, size_t input) {
      const Shape& s = call.inputs[input].shape();
      return input == 0 ? s[2] * s[3] : s[1] * s[2] * s[3];  // an image plane, a filter
    });
    std::vector<std::string> wanted = with_team(kEveryPosition);
    wanted.push_back(rule.rfind("data", 0) == 0 ? "conv2d.value_range.chunks"
                                                : "conv2d.gemm.panels");
    expect_every(counts, wanted);
  }
}

// Every draw breaks exactly the value check: the reference names global.value_range.
TEST(NnValueCheckAtScale, TheReferenceNamesTheValueRule) {
  for (const std::string op : {"dense", "conv2d"}) {
    for (const InvalidGenerator& g : generators_for(registry().op(op))->invalid) {
      if (g.rule.find("_at_scale") == std::string::npos) continue;
      for (uint64_t seed = 1; seed <= 40; ++seed) {
        const Call call = g.gen(rc::Random(seed), 100).value();
        EXPECT_EQ(call.rule_id, "global.value_range");
        const Outcome outcome =
            run_op_outcome(registry(), "reference", call.op, call.attrs, call.inputs);
        EXPECT_EQ(outcome.kind, OutcomeKind::kLogicError) << op << " " << g.rule << " " << seed;
        EXPECT_EQ(outcome.rule, "global.value_range") << op << " " << g.rule << " " << seed;
      }
    }
  }
}

}  // namespace
}  // namespace cvm
