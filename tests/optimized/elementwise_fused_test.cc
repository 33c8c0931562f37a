// The optimized elementwise, broadcast and flat-copy transform kernels (reshape and the other
// shape-only operators, concatenate) check the input values inside their main pass
// (optimized/fused_pass.h: chunks of fused::kChunk elements, threads over runs of chunks, one
// loop per instruction set). The generators keep tensors small, so these cases cover what they
// miss: many chunks and thread shares, every instruction set this CPU has, an out-of-range
// value that only the last chunk sees, and the int32 extremes, which must be rejected (or
// computed) without undefined behaviour (the asan-ubsan preset makes any UB report fatal).
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "registry/registry.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/cpu_features.h"
#include "optimized/fused_pass.h"
#include "optimized/kernels.h"
#include "support/isas.h"

namespace cvm {
namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
// Past the threads threshold (2^16 elements) and not a whole number of chunks.
constexpr int64_t kRows = 5, kCols = 3 * opt::fused::kChunk + 1237;

// Values of precision p, the edges +-alpha(p) often (int8 storage when asked and p <= 8).
Tensor random_tensor(std::mt19937& gen, const Shape& shape, int p, bool int8 = false) {
  std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
  const int64_t a = alpha(p);
  std::uniform_int_distribution<int64_t> value(-a, a), pick(0, 7);
  for (int32_t& e : v) {
    const int64_t k = pick(gen);
    e = static_cast<int32_t>(k == 0 ? a : k == 1 ? -a : value(gen));
  }
  return Tensor::from_values(shape, v, p, int8 && p <= 8 ? DType::kInt8 : DType::kInt32);
}

std::string describe(const std::string& op, const nlohmann::json& attrs,
                     const std::vector<Tensor>& inputs) {
  std::string what = op + " " + attrs.dump();
  for (const Tensor& t : inputs) {
    what += ' ';
    what += shape_str(t.shape());
    what += t.dtype() == DType::kInt8 ? "i8 p" : "i32 p";
    what += std::to_string(t.precision());
  }
  return what;
}

// The instruction sets this CPU runs, the portable loop first, then the emulated twins.
std::vector<testing::IsaRun> isas() { return testing::isa_runs(); }
using testing::IsaRun;

// The reference once; the optimized backend on 1 and 2 threads and on every instruction set
// must give the same outcome kind and, when ok, the same bytes.
void check(const std::string& op, const nlohmann::json& attrs, const std::vector<Tensor>& inputs,
           OutcomeKind expected = OutcomeKind::kOk) {
  const std::string what = describe(op, attrs, inputs);
  const Outcome ref = run_op_outcome(registry(), "reference", op, attrs, inputs);
  ASSERT_EQ(ref.kind, expected) << what << ": " << ref.message;
  for (const IsaRun& isa : isas()) {
    opt::set_isa_cap(isa.isa, isa.emulated);
    for (int threads : {1, 2}) {
      opt::set_threads(threads);
      const Outcome got = run_op_outcome(registry(), "optimized", op, attrs, inputs);
      opt::set_threads(0);
      const std::string where = what + " on " + opt::isa_name(isa.isa) +
                                (isa.emulated ? "~simde, " : ", ") + std::to_string(threads) +
                                " threads";
      EXPECT_EQ(got.kind, ref.kind) << where << ": " << got.message;
      if (got.kind != ref.kind || ref.kind != OutcomeKind::kOk) continue;
      ASSERT_EQ(got.outputs.size(), 1u) << where;
      EXPECT_TRUE(got.outputs[0].identical(ref.outputs[0])) << where;
    }
  }
  opt::clear_isa_cap();
}

struct UnaryCase {
  const char* op;
  nlohmann::json attrs;
};

std::vector<UnaryCase> unary_cases() {
  return {{"abs", nlohmann::json::object()},
          {"negative", nlohmann::json::object()},
          {"cvm_precision", nlohmann::json::object()},
          {"clip", {{"a_min", "-1000"}, {"a_max", "70000"}}},
          {"cvm_clip", {{"precision", "9"}}},
          {"cvm_right_shift", {{"precision", "8"}, {"shift_bit", "1"}}},
          {"cvm_right_shift", {{"precision", "16"}, {"shift_bit", "5"}}},
          {"cvm_right_shift", {{"precision", "32"}, {"shift_bit", "32"}}},
          {"cvm_left_shift", {{"precision", "20"}, {"shift_bit", "3"}}}};
}

TEST(ElementwiseFused, UnaryManyChunksMatchTheReference) {
  std::mt19937 gen(1);
  const Tensor x16 = random_tensor(gen, {kRows, kCols}, 16);
  const Tensor x8 = random_tensor(gen, {kRows, kCols}, 8, true);
  for (const UnaryCase& c : unary_cases()) {
    check(c.op, c.attrs, {x16});
    check(c.op, c.attrs, {x8});
  }
  // Full-range int32: the left shift clamps nearly everything at p0 + s = 32.
  const Tensor x31 = random_tensor(gen, {kRows * kCols}, 31);
  check("cvm_left_shift", {{"precision", "32"}, {"shift_bit", "1"}}, {x31});
  check("cvm_right_shift", {{"precision", "32"}, {"shift_bit", "31"}}, {x31});
}

TEST(ElementwiseFused, BinaryAndBroadcastManyChunksMatchTheReference) {
  std::mt19937 gen(2);
  const Tensor a = random_tensor(gen, {kRows, kCols}, 31);
  const Tensor b = random_tensor(gen, {kRows, kCols}, 30);
  const Tensor b8 = random_tensor(gen, {kRows, kCols}, 7, true);
  for (const char* op : {"elemwise_add", "elemwise_sub"}) {
    check(op, {}, {a, b});
    check(op, {}, {b8, a});
  }
  const Tensor x = random_tensor(gen, {kRows, kCols}, 15);
  const Tensor row = random_tensor(gen, {kCols}, 15);
  const Tensor column = random_tensor(gen, {kRows, 1}, 12);
  const Tensor scalar = random_tensor(gen, {1}, 8, true);
  const Tensor nonzero = Tensor::from_values({1}, {-3}, 3);
  for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
                         "broadcast_max", "broadcast_greater"}) {
    check(op, {}, {x, x});
    check(op, {}, {x, row});
    check(op, {}, {column, x});
    check(op, {}, {x, scalar});
    check(op, {}, {column, row});
  }
  check("broadcast_div", {}, {x, nonzero});
}

// One value just outside +-alpha(p) as the very last element: only the last chunk of the last
// thread sees it, and the kernel must still fail with logic_error.
TEST(ElementwiseFused, OutOfRangeInTheLastChunkIsALogicError) {
  std::mt19937 gen(3);
  const auto with_last = [](Tensor t, int64_t v) {
    if (t.dtype() == DType::kInt8) {
      t.i8()[t.size() - 1] = static_cast<int8_t>(v);
    } else {
      t.set(t.size() - 1, static_cast<int32_t>(v));
    }
    return t;
  };
  const Tensor ok = random_tensor(gen, {kRows, kCols}, 16);
  for (int64_t bad : {alpha(16) + 1, -alpha(16) - 1}) {
    const Tensor x = with_last(ok, bad);
    for (const UnaryCase& c : unary_cases()) check(c.op, c.attrs, {x}, OutcomeKind::kLogicError);
    check("elemwise_add", {}, {ok, x}, OutcomeKind::kLogicError);
    check("elemwise_sub", {}, {x, ok}, OutcomeKind::kLogicError);
    check("broadcast_add", {}, {x, random_tensor(gen, {kCols}, 16)}, OutcomeKind::kLogicError);
    check("broadcast_mul", {}, {random_tensor(gen, {kRows, 1}, 10), x},
          OutcomeKind::kLogicError);
  }
  // The broadcast operand out of range: a row read once per output row, a scalar held.
  const Tensor row = with_last(random_tensor(gen, {kCols}, 12), alpha(12) + 1);
  check("broadcast_max", {}, {ok, row}, OutcomeKind::kLogicError);
  check("broadcast_greater", {}, {ok, Tensor::from_values({1}, {200}, 8)},
        OutcomeKind::kLogicError);
  // int8 storage with a value beyond its precision.
  const Tensor x8 = with_last(random_tensor(gen, {kRows, kCols}, 5, true), -16);
  check("abs", {}, {x8}, OutcomeKind::kLogicError);
  check("elemwise_add", {}, {x8, random_tensor(gen, {kRows, kCols}, 5, true)},
        OutcomeKind::kLogicError);
}

// Precision 32 admits +-(2^31 - 1): INT32_MAX is computed like the reference, INT32_MIN is a
// logic_error; the kernels meet INT32_MIN before the check, so their arithmetic must not
// overflow on it (UBSan would report it in the asan-ubsan build).
TEST(ElementwiseFused, Int32ExtremesWithPrecision32) {
  std::mt19937 gen(4);
  Tensor valid = random_tensor(gen, {kRows, kCols}, 32);
  valid.set(0, kMax32);
  valid.set(valid.size() - 1, -kMax32);
  Tensor invalid = valid;
  invalid.set(kCols + 7, kMin32);
  // Precision 31 with both extremes: operators whose inference needs p0 <= 31 still run.
  Tensor invalid31 = random_tensor(gen, {kRows, kCols}, 31);
  invalid31.set(3, kMax32);
  invalid31.set(invalid31.size() - 2, kMin32);
  const Tensor small = random_tensor(gen, {kRows, kCols}, 8);
  for (const UnaryCase& c : unary_cases()) {
    if (std::string(c.op) == "cvm_left_shift") continue;  // p0 + s > 32 is a logic_error anyway
    check(c.op, c.attrs, {valid});
    check(c.op, c.attrs, {invalid}, OutcomeKind::kLogicError);
  }
  for (const char* shift : {"1", "3"}) {
    check("cvm_left_shift", {{"precision", "32"}, {"shift_bit", shift}}, {invalid},
          OutcomeKind::kLogicError);
    check("cvm_left_shift", {{"precision", "32"}, {"shift_bit", "1"}}, {invalid31},
          OutcomeKind::kLogicError);
  }
  check("clip", {{"a_min", "-2147483647"}, {"a_max", "2147483647"}}, {invalid},
        OutcomeKind::kLogicError);
  // Sums of precision-32 operands exceed the output precision: a logic_error either way.
  check("elemwise_add", {}, {valid, small}, OutcomeKind::kLogicError);
  check("elemwise_sub", {}, {small, invalid}, OutcomeKind::kLogicError);
  check("elemwise_add", {}, {invalid31, invalid31}, OutcomeKind::kLogicError);
  check("elemwise_sub", {}, {small, invalid31}, OutcomeKind::kLogicError);
  // broadcast_max and broadcast_div keep the precision: INT32_MIN against -1 and 0 must not trap.
  const Tensor minus_one = Tensor::from_values({1}, {-1}, 2);
  check("broadcast_div", {}, {valid, minus_one});
  check("broadcast_div", {}, {invalid, minus_one}, OutcomeKind::kLogicError);
  check("broadcast_div", {}, {invalid, Tensor::from_values({1}, {0}, 2)},
        OutcomeKind::kLogicError);
  check("broadcast_max", {}, {invalid, small}, OutcomeKind::kLogicError);
  check("broadcast_mul", {}, {invalid31, Tensor::from_values({1}, {0}, 1)},
        OutcomeKind::kLogicError);
  check("broadcast_add", {}, {invalid31, Tensor::from_values({1}, {1}, 2)},
        OutcomeKind::kLogicError);
  check("broadcast_greater", {}, {valid, invalid}, OutcomeKind::kLogicError);
}

// The flat copies check their inputs in the copy: every value is read once, the bad one last.
TEST(ElementwiseFused, FlatCopiesCheckTheirInputs) {
  std::mt19937 gen(5);
  const Tensor x = random_tensor(gen, {kRows, kCols}, 20);
  const Tensor x8 = random_tensor(gen, {kRows, kCols}, 6, true);
  Tensor bad = x;
  bad.set(bad.size() - 1, static_cast<int32_t>(alpha(20) + 1));
  check("reshape", {{"shape", "(-1,)"}}, {x});
  check("reshape", {{"shape", "(-1,)"}}, {x8});
  check("flatten", {}, {bad}, OutcomeKind::kLogicError);
  check("squeeze", {}, {bad}, OutcomeKind::kLogicError);
  for (const char* axis : {"0", "1"}) {
    check("concatenate", {{"axis", axis}}, {x, x8, x});
    check("concatenate", {{"axis", axis}}, {x, x8, bad}, OutcomeKind::kLogicError);
    check("concatenate", {{"axis", axis}}, {bad, x8, x}, OutcomeKind::kLogicError);
  }
}

// where selects with the value check of all three inputs in the same pass (optimized/
// transform_index.cc): many chunks agree with the reference, and a value out of range in the
// last element of any one input (condition, x or y; int32 or int8) is a logic_error.
TEST(ElementwiseFused, WhereSelectsAndChecksAllThreeInputs) {
  std::mt19937 gen(5);
  const Tensor cond = random_tensor(gen, {kRows, kCols}, 2);
  const Tensor x = random_tensor(gen, {kRows, kCols}, 20);
  const Tensor y8 = random_tensor(gen, {kRows, kCols}, 8, true);
  check("where", {}, {cond, x, y8});
  check("where", {}, {random_tensor(gen, {kRows, kCols}, 3, true), y8, x});
  const auto with_last = [](Tensor t, int32_t v) {
    if (t.dtype() == DType::kInt8) {
      t.i8()[t.size() - 1] = static_cast<int8_t>(v);
    } else {
      t.set(t.size() - 1, v);
    }
    return t;
  };
  check("where", {}, {with_last(cond, 2), x, y8}, OutcomeKind::kLogicError);
  check("where", {}, {cond, with_last(x, -static_cast<int32_t>(alpha(20)) - 1), y8},
        OutcomeKind::kLogicError);
  check("where", {}, {cond, x, with_last(y8, -128)}, OutcomeKind::kLogicError);
}

}  // namespace
}  // namespace cvm
