// The optimized transform kernels against the reference, bit for bit, on what the generators do
// not reach: shapes large enough for the fast paths and for threads (transpose tiles with
// ragged edges, long merged runs, element repeats, row selects, pad rows), int8 and int32
// storage, and identical bytes on 1, 2 and 3 threads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "registry/registry.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/kernels.h"

namespace cvm {
namespace {

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int64_t in(int64_t lo, int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  // Values of precision p (int8 storage when asked and p <= 8), the edges included.
  Tensor tensor(const Shape& shape, int p, bool int8 = false) {
    std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
    const int64_t a = alpha(p);
    for (int32_t& e : v) {
      const int64_t pick = in(0, 7);
      e = static_cast<int32_t>(pick == 0 ? a : pick == 1 ? -a : in(-a, a));
    }
    return Tensor::from_values(shape, v, p, int8 && p <= 8 ? DType::kInt8 : DType::kInt32);
  }
  // Indices of precision p in [lo, hi] (some out of range, to be clamped).
  Tensor indices(const Shape& shape, int64_t lo, int64_t hi, int p, bool int8) {
    std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
    for (int32_t& e : v) e = static_cast<int32_t>(std::clamp(in(lo, hi), -alpha(p), alpha(p)));
    return Tensor::from_values(shape, v, p, int8 ? DType::kInt8 : DType::kInt32);
  }

 private:
  std::mt19937 gen_;
};

bool identical(const Outcome& a, const Outcome& b) {
  if (a.kind != b.kind || a.outputs.size() != b.outputs.size()) return false;
  for (size_t o = 0; o < a.outputs.size(); ++o) {
    if (!a.outputs[o].identical(b.outputs[o])) return false;
  }
  return true;
}

std::string first_difference(const Outcome& a, const Outcome& b) {
  if (a.kind != b.kind || a.kind != OutcomeKind::kOk) {
    return std::string(outcome_name(a.kind)) + " (" + a.message + ") vs " + outcome_name(b.kind) +
           " (" + b.message + ")";
  }
  const Tensor& x = a.outputs[0];
  const Tensor& y = b.outputs[0];
  if (x.shape() != y.shape() || x.precision() != y.precision()) {
    return shape_str(x.shape()) + " p" + std::to_string(x.precision()) + " vs " +
           shape_str(y.shape()) + " p" + std::to_string(y.precision());
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    if (x.get(i) != y.get(i)) {
      return "index " + std::to_string(i) + ": " + std::to_string(x.get(i)) + " vs " +
             std::to_string(y.get(i));
    }
  }
  return "dtype";
}

// The reference once; the optimized backend on 1, 2 and 3 threads must match it exactly.
void check(const std::string& op, const nlohmann::json& attrs, const std::vector<Tensor>& inputs,
           OutcomeKind expected = OutcomeKind::kOk) {
  std::string what = op + " " + attrs.dump();
  for (const Tensor& t : inputs) {
    what += ' ';  // appended: GCC 12 warns, falsely, on " " + std::string temporaries
    what += shape_str(t.shape());
    what += t.dtype() == DType::kInt8 ? "i8" : "i32";
  }
  const Outcome ref = run_op_outcome(registry(), "reference", op, attrs, inputs);
  ASSERT_EQ(ref.kind, expected) << what << ": " << ref.message;
  for (int threads : {1, 2, 3}) {
    opt::set_threads(threads);
    const Outcome got = run_op_outcome(registry(), "optimized", op, attrs, inputs);
    opt::set_threads(0);
    ASSERT_TRUE(identical(ref, got)) << what << " on " << threads << " threads: "
                                     << first_difference(ref, got);
  }
}

TEST(TransformPaths, TransposeTilesWithRaggedEdges) {
  Rng rng(1);
  check("transpose", {}, {rng.tensor({67, 45}, 32)});
  check("transpose", {}, {rng.tensor({300, 257}, 8, true)});
  check("transpose", {{"axes", "(1, 0)"}}, {rng.tensor({8, 9000}, 16)});
  // Output rows of 64k + 1: a last tile one row high (optimized/transform_copy.cc:122).
  check("transpose", {}, {rng.tensor({129, 70}, 16)});
  check("transpose", {}, {rng.tensor({65, 200}, 8, true)});
  const Tensor x3 = rng.tensor({19, 33, 140}, 12);
  for (const char* axes : {"(0, 1, 2)", "(0, 2, 1)", "(1, 0, 2)", "(1, 2, 0)", "(2, 0, 1)",
                           "(2, 1, 0)", "(-1, -3, -2)"}) {
    check("transpose", {{"axes", axes}}, {x3});
  }
  check("transpose", {{"axes", "(0, 3, 1, 2)"}}, {rng.tensor({3, 5, 37, 41}, 7, true)});
  check("transpose", {{"axes", "(2, 0, 3, 1)"}}, {rng.tensor({6, 50, 7, 64}, 20)});
  // Small dims everywhere: the gather path, reversed over 6 axes.
  check("transpose", {}, {rng.tensor({3, 4, 2, 5, 3, 7}, 5)});
  check("transpose", {{"axes", "(5, 1, 0, 2, 4, 3)"}}, {rng.tensor({3, 4, 2, 5, 3, 7}, 5, true)});
}

TEST(TransformPaths, RepeatAndTileRuns) {
  Rng rng(2);
  check("repeat", {{"repeats", "3"}, {"axis", "1"}}, {rng.tensor({300, 257}, 32)});
  check("repeat", {{"repeats", "2"}, {"axis", "-1"}}, {rng.tensor({70000}, 8, true)});
  check("repeat", {{"repeats", "5"}, {"axis", "0"}}, {rng.tensor({40, 3, 900}, 8, true)});
  check("repeat", {{"repeats", "70"}, {"axis", "1"}}, {rng.tensor({3, 40, 41}, 11)});
  check("repeat", {{"repeats", "1"}, {"axis", "2"}}, {rng.tensor({2, 3, 30000}, 11)});
  check("tile", {{"reps", "(3, 5)"}}, {rng.tensor({37, 129}, 32)});
  check("tile", {{"reps", "(2, 1, 3)"}}, {rng.tensor({200, 130}, 8, true)});
  check("tile", {{"reps", "(4095,)"}}, {rng.tensor({2, 17}, 3)});
  check("tile", {{"reps", "(40, 1)"}}, {rng.tensor({5, 3, 600}, 6, true)});
  check("tile", {{"reps", "(2, 3, 1, 4, 1, 2)"}}, {rng.tensor({9, 10, 11}, 9)});
}

TEST(TransformPaths, ReshapingCopiesAndConcatenate) {
  Rng rng(3);
  const Tensor big = rng.tensor({6, 50, 700}, 8, true);
  const Tensor big32 = rng.tensor({1, 300, 1, 700}, 31);
  check("flatten", {}, {big});
  check("flatten", {}, {big32});
  check("reshape", {{"shape", "(-1, 0, -4, 2, -1)"}}, {big});
  check("reshape", {{"shape", "(-3, -2)"}}, {big32});
  check("expand_dims", {{"axis", "-1"}, {"num_newaxis", "2"}}, {big});
  check("squeeze", {}, {big32});
  check("squeeze", {{"axis", "(0, -2, 0)"}}, {big32});
  for (const char* axis : {"0", "1", "2", "-1"}) {
    check("concatenate", {{"axis", axis}},
          {rng.tensor({20, 30, 100}, 8, true), rng.tensor({20, 30, 100}, 24),
           rng.tensor({20, 30, 100}, 3, true)});
  }
  check("concatenate", {{"axis", "1"}},
        {rng.tensor({400, 1, 3}, 5), rng.tensor({400, 250, 3}, 7, true),
         rng.tensor({400, 7, 3}, 32)});
  check("concatenate", {{"axis", "0"}}, {rng.tensor({90000}, 9)});
}

TEST(TransformPaths, StridedSliceAndSliceLike) {
  Rng rng(4);
  const Tensor x = rng.tensor({130, 257}, 32);
  const Tensor x8 = rng.tensor({9, 130, 257}, 8, true);
  check("strided_slice", {{"begin", "(3, 5)"}, {"end", "(-2, 250)"}}, {x});
  check("strided_slice", {{"begin", "(-1, -1)"}, {"end", "(-1000, -1000)"}, {"stride", "(-1, -1)"}},
        {x});
  check("strided_slice", {{"begin", "(1, 2)"}, {"stride", "(2, 3)"}}, {x});
  check("strided_slice",
        {{"stride", "(-9223372036854775808, 1)"}, {"begin", "(129,)"}, {"end", "(-1000,)"}}, {x});
  check("slice", {{"begin", "(0, 100, 256)"}, {"stride", "(1, 1, -2)"},
                  {"end", "(9, 130, -9223372036854775808)"}},
        {x8});
  check("strided_slice", {{"begin", "(2,)"}, {"stride", "(3,)"}}, {x8});
  // One long row: the engine splits the row itself among the threads.
  const Tensor v = rng.tensor({200001}, 8, true);
  check("strided_slice", {{"begin", "(3,)"}, {"stride", "(2,)"}}, {v});
  check("strided_slice", {{"begin", "(-2,)"}, {"end", "(-9223372036854775808,)"},
                          {"stride", "(-3,)"}}, {v});
  check("strided_slice", {{"begin", "(1,)"}, {"end", "(-1,)"}}, {v});
  check("slice_like", {}, {x8, rng.tensor({9, 100, 200}, 1)});
  check("slice_like", {{"axis", "(-1,)"}}, {x8, rng.tensor({1, 2, 3}, 1)});
  check("slice_like", {{"axis", "(1,)"}}, {x, rng.tensor({1, 100}, 2)});
}

TEST(TransformPaths, TakeAndLutGathersClamp) {
  Rng rng(5);
  const Tensor data = rng.tensor({40, 30, 60}, 20);
  const Tensor data8 = rng.tensor({40, 30, 60}, 8, true);
  check("take", {}, {data, rng.indices({300, 300}, -100, 80000, 32, false)});
  check("take", {}, {data8, rng.indices({70000}, -127, 127, 8, true)});
  check("take", {{"axis", "0"}}, {data, rng.indices({50}, -5, 45, 8, true)});
  check("take", {{"axis", "1"}}, {data8, rng.indices({7, 9}, -5, 35, 16, false)});
  check("take", {{"axis", "-1"}}, {data, rng.indices({80}, -100, 100, 8, true)});
  check("cvm_lut", {{"in_dim", "256"}},
        {rng.indices({300, 300}, -127, 127, 8, true), rng.tensor({256}, 8, true)});
  check("cvm_lut", {{"in_dim", "1000"}},
        {rng.indices({90000}, -2000, 2000, 12, false), rng.tensor({10, 100}, 31)});
}

TEST(TransformPaths, WhereSelectsElementsAndRows) {
  Rng rng(6);
  const Shape s = {300, 301};
  for (bool c8 : {false, true}) {
    for (bool a8 : {false, true}) {
      check("where", {},
            {rng.indices(s, -1, 1, 2, c8), rng.tensor(s, 8, a8), rng.tensor(s, 6, !a8)});
    }
  }
  check("where", {},
        {rng.indices({300}, -3, 3, 3, true), rng.tensor(s, 32), rng.tensor(s, 8, true)});
  check("where", {}, {rng.indices({2}, 0, 1, 1, false), rng.tensor({2, 40000}, 7),
                      rng.tensor({2, 40000}, 9)});
}

TEST(TransformPaths, PadRowsAndMergedTrailingAxes) {
  Rng rng(7);
  check("pad", {{"pad_width", "(1, 2, 3, 4)"}, {"constant_value", "-5"}},
        {rng.tensor({200, 300}, 8, true)});
  check("pad", {{"pad_width", "(2, 0, 0, 0, 0, 0)"}, {"constant_value", "2147483647"}},
        {rng.tensor({30, 40, 50}, 12)});
  check("pad", {{"pad_width", "(0, 1, 5, 0, 0, 0)"}}, {rng.tensor({30, 40, 50}, 6, true)});
  check("pad", {{"pad_width", "(4095, 4095)"}, {"constant_value", "-2147483647"}},
        {rng.tensor({60000}, 32)});
  check("pad", {{"pad_width", "(1, 1, 1, 1, 1, 1, 1, 1)"}}, {rng.tensor({9, 10, 11, 12}, 4)});
}

// Rules whose checks live in infer/: attribute extremes are logic errors on both backends.
TEST(TransformPaths, ExtremeAttributesAreLogicErrors) {
  Rng rng(8);
  const Tensor x = rng.tensor({4, 5}, 8);
  const OutcomeKind bad = OutcomeKind::kLogicError;
  check("reshape", {{"shape", "(9223372036854775807, -1)"}}, {x}, bad);
  check("reshape", {{"shape", "(-4, -9223372036854775808, -1, 5)"}}, {x}, bad);
  check("reshape", {{"shape", "(16777216, 16777216, 16777216, -1)"}}, {x}, bad);
  check("repeat", {{"repeats", "2147483647"}}, {x}, bad);
  check("tile", {{"reps", "(4095, 4095, 4095)"}}, {x}, bad);
  check("squeeze", {{"axis", "(-9223372036854775808,)"}}, {x}, bad);
  check("transpose", {{"axes", "(1, 1)"}}, {x}, bad);
  check("strided_slice", {{"begin", "(9223372036854775807,)"}}, {x}, bad);
  check("slice_like", {{"axis", "(-9223372036854775808,)"}}, {x, x}, bad);
  check("take", {{"axis", "2147483647"}}, {x, x}, bad);
  check("pad", {{"pad_width", "(0, 0, -9223372036854775808, 1)"}}, {x}, bad);
  check("expand_dims", {{"axis", "-2147483648"}}, {x}, bad);
}

}  // namespace
}  // namespace cvm
