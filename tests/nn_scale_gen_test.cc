// The value check drawn at scale (harness/gen/nn_scale_gen.cc) meets every fast path of the
// optimized conv2d and dense kernels on both ISAs, with the bad value on both sides and in every
// position class. The printed tables are docs/ops/nn.md's "The value check at scale".
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "cvmcheck/precision.h"
#include "harness/gen/generators.h"
#include "registry/registry.h"

namespace cvm {
namespace {

constexpr int kDraws = 400;

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

// Draws kDraws calls of `op`'s rule and counts, per path, the draws that meet it.
template <typename Classify>
std::map<std::string, int> tally(const std::string& op, const std::string& rule,
                                 Classify classify) {
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
      for (const std::string& path : classify(call, bad)) counts[path]++;
    }
  }
  std::cout << op << " " << rule << " (" << kDraws << " draws)\n";
  for (const auto& [path, n] : counts) std::cout << "  " << path << ": " << n << "\n";
  return counts;
}

// The position classes of the bad value in rows of `inner` elements.
void add_position(std::vector<std::string>& paths, const Tensor& t, int64_t index, int64_t inner) {
  const int64_t rows = t.size() / inner, column = index % inner;
  if (rows > 1 && index / inner == rows - 1) paths.push_back("in the last row of several");
  if (inner % 16 != 0 && column >= inner - inner % 16) paths.push_back("past the last 16 lanes");
  if (inner >= 64 && column < inner - inner % 64) paths.push_back("in a full 64-byte vector");
}

void expect_every(const std::map<std::string, int>& counts,
                  const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    EXPECT_GE(counts.count(path) ? counts.at(path) : 0, kDraws / 50) << path;
  }
}

TEST(NnValueCheckAtScale, DenseDrawsMeetEveryPath) {
  for (const std::string rule :
       {"data_value_outside_precision_at_scale", "weight_value_outside_precision_at_scale"}) {
    const auto counts = tally("dense", rule, [](const Call& call, const BadValue& bad) {
      const int64_t rows = call.inputs[0].shape()[0], depth = call.inputs[0].shape()[1];
      const int64_t units = call.inputs[1].shape()[0];
      std::vector<std::string> paths;
      if (rows * units * depth >= (int64_t{1} << 16)) paths.push_back("threaded (work >= 2^16)");
      if (units > 64) paths.push_back("several column panels (VNNI: 64 units)");
      if (units > 16) paths.push_back("several column panels (AVX2: 16 units)");
      if (rows > 6) paths.push_back("several row panels (VNNI: 6 rows)");
      if (depth > 4096) paths.push_back("two k-blocks (VNNI: 4096 k)");
      if (depth > 2048) paths.push_back("two k-blocks (AVX2: 2048 k)");
      if (call.inputs[bad.input].dtype() == DType::kInt8) paths.push_back("int8 storage");
      add_position(paths, call.inputs[bad.input], bad.index, depth);
      return paths;
    });
    expect_every(counts, {"value above alpha(p)", "value below -alpha(p)",
                          "threaded (work >= 2^16)", "several column panels (VNNI: 64 units)",
                          "several row panels (VNNI: 6 rows)", "two k-blocks (VNNI: 4096 k)",
                          "two k-blocks (AVX2: 2048 k)", "int8 storage",
                          "in the last row of several", "past the last 16 lanes",
                          "in a full 64-byte vector"});
  }
}

TEST(NnValueCheckAtScale, Conv2dDrawsMeetEveryPath) {
  for (const std::string rule :
       {"data_value_outside_precision_at_scale", "weight_value_outside_precision_at_scale"}) {
    const auto counts = tally("conv2d", rule, [](const Call& call, const BadValue& bad) {
      const Tensor& x = call.inputs[0];
      const Tensor& w = call.inputs[1];
      const int64_t taps = w.shape()[1] * w.shape()[2] * w.shape()[3];
      std::vector<std::string> paths;
      if (x.size() > (int64_t{1} << 16)) paths.push_back("data over two range chunks (2^16)");
      if (w.shape()[0] > 8) paths.push_back("several weight panels (VNNI: 8 rows)");
      if (w.shape()[0] > 4) paths.push_back("several weight panels (AVX2: 4 rows)");
      if (call.inputs[bad.input].dtype() == DType::kInt8) paths.push_back("int8 storage");
      const int64_t inner = bad.input == 0 ? x.shape()[2] * x.shape()[3] : taps;
      add_position(paths, call.inputs[bad.input], bad.index, inner);
      return paths;
    });
    std::vector<std::string> wanted = {"value above alpha(p)", "value below -alpha(p)",
                                       "int8 storage", "in the last row of several",
                                       "past the last 16 lanes", "in a full 64-byte vector"};
    wanted.push_back(rule.rfind("data", 0) == 0 ? "data over two range chunks (2^16)"
                                                : "several weight panels (VNNI: 8 rows)");
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
