// Tests added because a kernel mutant survived every other harness mode (tools/mutate,
// docs/mutation.md): each names the mutant ids it kills. One suite per operator,
// MutationKills<Operator>, so the mutation runner's unit mode can select an operator's tests.
// Every test builds specific inputs and compares the optimized backend with the reference, bit
// for bit, on 1, 2 and 3 threads: the generators' small tensors never reach the kernels'
// threaded paths (2^16 elements and more), and a few value edges they rarely draw.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/kernels.h"

namespace cvm {
namespace {

// Values of precision p, uniform, with +-alpha(p) and 0 mixed in.
Tensor random_tensor(const Shape& shape, int p, DType dtype, uint32_t seed) {
  std::mt19937 gen(seed);
  const int64_t a = alpha(p);
  std::uniform_int_distribution<int64_t> value(-a, a), pick(0, 9);
  std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
  for (int32_t& e : v) {
    const int64_t k = pick(gen);
    e = static_cast<int32_t>(k == 0 ? a : k == 1 ? -a : k == 2 ? 0 : value(gen));
  }
  return Tensor::from_values(shape, v, p, dtype);
}

std::string describe(const Outcome& o) {
  std::ostringstream out;
  out << outcome_name(o.kind);
  if (!o.message.empty()) out << " (" << o.message << ")";
  return out.str();
}

// The first difference between two outcomes, or "" when they are identical.
std::string difference(const Outcome& want, const Outcome& got) {
  if (want.kind != got.kind) return describe(want) + " vs " + describe(got);
  if (want.outputs.size() != got.outputs.size()) return "output count differs";
  for (size_t o = 0; o < want.outputs.size(); ++o) {
    const Tensor& x = want.outputs[o];
    const Tensor& y = got.outputs[o];
    if (x.shape() != y.shape() || x.precision() != y.precision()) {
      return "output " + std::to_string(o) + ": shape/precision " + shape_str(x.shape()) + "/" +
             std::to_string(x.precision()) + " vs " + shape_str(y.shape()) + "/" +
             std::to_string(y.precision());
    }
    for (int64_t i = 0; i < x.size(); ++i) {
      if (x.get(i) != y.get(i)) {
        return "output " + std::to_string(o) + " index " + std::to_string(i) + ": " +
               std::to_string(x.get(i)) + " (reference) vs " + std::to_string(y.get(i));
      }
    }
    if (!x.identical(y)) return "output " + std::to_string(o) + ": same values, different bytes";
  }
  return "";
}

// The reference must succeed; the optimized backend must give identical bytes on 1, 2 and 3
// threads.
void expect_agree(const std::string& op, const nlohmann::json& attrs,
                  const std::vector<Tensor>& inputs, const std::string& what) {
  const Outcome ref = run_op_outcome(registry(), "reference", op, attrs, inputs);
  ASSERT_EQ(ref.kind, OutcomeKind::kOk) << what << ": " << describe(ref);
  for (int threads : {1, 2, 3}) {
    opt::set_threads(threads);
    const Outcome got = run_op_outcome(registry(), "optimized", op, attrs, inputs);
    opt::set_threads(0);
    const std::string diff = difference(ref, got);
    EXPECT_EQ(diff, "") << op << " " << attrs.dump() << " " << what << " on " << threads
                        << " threads";
  }
}

// --- reduce -----------------------------------------------------------------------------------

// Large enough for the threaded path (a kept outer group split across threads), in the three
// group layouts: kept/reduced, kept/reduced/kept, and kept/reduced/kept/reduced.
// Kills optimized/reduce.cc:106:off_by_one:0 and :1 (the threaded loop's bounds).
void reduce_on_threads(const std::string& op) {
  const std::vector<std::pair<Shape, std::string>> layouts = {
      {{8, 16384}, "(1,)"}, {{5, 4096, 7}, "(1,)"}, {{3, 64, 5, 128}, "(1, 3)"}};
  uint32_t seed = 1;
  for (const auto& [shape, axis] : layouts) {
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      const Tensor x = random_tensor(shape, 8, dtype, seed++);
      expect_agree(op, {{"axis", axis}}, {x}, shape_str(shape));
    }
  }
}

TEST(MutationKillsSum, ThreadedPathMatchesTheReference) { reduce_on_threads("sum"); }
TEST(MutationKillsMax, ThreadedPathMatchesTheReference) { reduce_on_threads("max"); }

}  // namespace
}  // namespace cvm
