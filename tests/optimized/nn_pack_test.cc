// conv2d's packing on the AVX2-class tables (optimized/nn_avx2_pack.h). The weights: full
// 4-row panels transposed eight taps at a time; the taps past the last block of eight, a last
// channel group short of G, panels of fewer rows and kernels of fewer than eight taps word by
// word. The data rows: 16 pixels at a time, the rest value by value. Each edge on both sides,
// through every AVX2-class table (s8 quads for precision 8 x 8, u8 quads where a side has
// precision 7, AVX-VNNI natively or as its twin), int8 and int32 tensors, all distinct enough
// that a value moved to another row, tap, pixel or channel changes the output: bit for bit
// against the reference.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "registry/registry.h"
#include "support/call.h"
#include "support/isas.h"

namespace cvm {
namespace {

Tensor random_tensor(const Shape& shape, int p, DType dtype, std::mt19937& rng) {
  const auto a = static_cast<int32_t>(alpha(p));
  std::uniform_int_distribution<int32_t> value(-a, a);
  std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
  for (int32_t& x : v) x = value(rng);
  return Tensor::from_values(shape, v, p, dtype);
}

void put(Tensor& t, int64_t i, int32_t v) {
  if (t.dtype() == DType::kInt8) {
    t.i8()[i] = static_cast<int8_t>(v);
  } else {
    t.i32()[i] = v;
  }
}

// The AVX2-class ISA variants this machine runs (natively or as twins), by backend name.
std::vector<std::string> avx2_class_backends() {
  std::vector<std::string> names;
  for (const testing::IsaRun& run : testing::isa_runs()) {
    if (opt::isa_vectors(run.isa) == opt::Vectors::kAvx2Vectors) {
      names.push_back("optimized/" + run.name());
    }
  }
  return names;
}

// conv2d on each backend against the reference, bit for bit; the calls compared.
int64_t expect_reference_outputs(const std::vector<std::string>& backends,
                                 const nlohmann::json& attrs, const std::vector<Tensor>& in,
                                 const std::string& what) {
  const Outcome want = run_op_outcome(registry(), "reference", "conv2d", attrs, in);
  EXPECT_EQ(want.kind, OutcomeKind::kOk) << what << ": " << testing::describe(want);
  if (want.kind != OutcomeKind::kOk) return 0;
  int64_t calls = 0;
  for (const std::string& backend : backends) {
    const Outcome got = run_op_outcome(registry(), backend, "conv2d", attrs, in);
    EXPECT_EQ(got.kind, OutcomeKind::kOk) << backend << ", " << what;
    if (got.kind != OutcomeKind::kOk || got.outputs.size() != 1) continue;
    EXPECT_TRUE(got.outputs[0].identical(want.outputs[0])) << backend << ", " << what;
    ++calls;
  }
  return calls;
}

struct Geometry {
  int64_t in_channels, channels, kernel_h, kernel_w;
  std::string name() const {
    return std::to_string(in_channels) + " -> " + std::to_string(channels) + " channels, " +
           std::to_string(kernel_h) + " x " + std::to_string(kernel_w);
  }
};

// Taps 8 (one block), 7 (none), 9 and 15 (a block and a tail), 16 (two blocks), 1; input
// channels filling 1 or 2 groups of 4 and 2 and short of them; channels of one panel, two, a
// full one and a partial one, or a partial one alone.
std::vector<Geometry> geometries() {
  std::vector<Geometry> list;
  const std::pair<int64_t, int64_t> kernels[] = {{2, 4}, {1, 7}, {3, 3}, {3, 5}, {4, 4}, {1, 1}};
  for (const auto& [kh, kw] : kernels) {
    for (int64_t ic : {2, 3, 4, 5, 8}) {
      for (int64_t oc : {3, 4, 6, 8}) list.push_back({ic, oc, kh, kw});
    }
  }
  return list;
}

TEST(Avx2ClassWeightPacking, EveryPanelAndTapEdgeMatchesTheReference) {
  const std::vector<std::string> backends = avx2_class_backends();
  if (backends.empty()) GTEST_SKIP() << "this binary holds no AVX2-class ISA";
  std::mt19937 rng(20261129);
  int64_t calls = 0;
  for (const Geometry& g : geometries()) {
    const nlohmann::json attrs = {
        {"channels", std::to_string(g.channels)},
        {"kernel_size",
         "(" + std::to_string(g.kernel_h) + ", " + std::to_string(g.kernel_w) + ")"},
        {"padding", "(1, 2)"},
        {"use_bias", "false"}};
    for (const auto& [p_data, p_weight] : {std::pair{8, 8}, {7, 8}, {8, 7}}) {
      for (DType t : {DType::kInt8, DType::kInt32}) {
        const std::vector<Tensor> in = {
            random_tensor({1, g.in_channels, 5, 6}, p_data, t, rng),
            random_tensor({g.channels, g.in_channels, g.kernel_h, g.kernel_w}, p_weight, t, rng)};
        const std::string what = g.name() + ", precisions " + std::to_string(p_data) + " x " +
                                 std::to_string(p_weight) + (t == DType::kInt8 ? ", int8" : "");
        calls += expect_reference_outputs(backends, attrs, in, what);
      }
    }
  }
  EXPECT_GT(calls, 0);
}

// The data rows (nn_avx2_pack.h's fill_row_avx2): 16 pixels at a time for width strides 1 and
// 2, the others value by value. Widths around one and two steps, left padding before the
// first step, strides 1-3, channel groups full and short of 4 (a missing channel), so that
// a pixel or channel moved, dropped or left unshifted changes the output.
TEST(Avx2ClassRowFill, EveryStepAndPaddingEdgeMatchesTheReference) {
  const std::vector<std::string> backends = avx2_class_backends();
  if (backends.empty()) GTEST_SKIP() << "this binary holds no AVX2-class ISA";
  std::mt19937 rng(20261130);
  int64_t calls = 0;
  for (int64_t width : {15, 16, 17, 31, 33, 40, 70}) {
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t pad : {0, 1, 3}) {
        for (int64_t ic : {3, 4, 6}) {
          const nlohmann::json attrs = {
              {"channels", "4"}, {"kernel_size", "(2, 3)"},
              {"strides", "(1, " + std::to_string(stride) + ")"},
              {"padding", "(1, " + std::to_string(pad) + ")"}, {"use_bias", "false"}};
          for (const auto& [p_data, p_weight] : {std::pair{8, 8}, {7, 8}, {8, 7}}) {
            for (DType t : {DType::kInt8, DType::kInt32}) {
              const std::vector<Tensor> in = {
                  random_tensor({1, ic, 3, width}, p_data, t, rng),
                  random_tensor({4, ic, 2, 3}, p_weight, t, rng)};
              const std::string what =
                  "width " + std::to_string(width) + ", stride " + std::to_string(stride) +
                  ", pad " + std::to_string(pad) + ", " + std::to_string(ic) +
                  " channels, precisions " + std::to_string(p_data) + " x " +
                  std::to_string(p_weight) + (t == DType::kInt8 ? ", int8" : "");
              calls += expect_reference_outputs(backends, attrs, in, what);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(calls, 0);
}

// The value checks around the packing (the data's in a pass of its own, the weights' in the
// packing): a value past the precision in the data's last row or in the weights raises the
// value rule naming that input, and with both the data (input 0), as the reference checks them.
TEST(Avx2ClassRowFill, TheValueCheckNamesTheDataBeforeTheWeights) {
  std::vector<std::string> backends = avx2_class_backends();
  backends.push_back("optimized");
  const nlohmann::json attrs = {
      {"channels", "4"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}, {"use_bias", "false"}};
  std::mt19937 rng(20261131);
  for (int64_t batch : {1, 2}) {
    for (DType t : {DType::kInt8, DType::kInt32}) {
      for (const auto& [bad_data, bad_weights] :
           {std::pair{true, false}, {false, true}, {true, true}}) {
        std::vector<Tensor> in = {random_tensor({batch, 5, 6, 20}, 7, t, rng),
                                  random_tensor({4, 5, 3, 3}, 7, t, rng)};
        if (bad_data) put(in[0], in[0].size() - 1, 64);  // alpha(7) = 63
        if (bad_weights) put(in[1], 3, -64);
        const std::string want_input = bad_data ? "input 0:" : "input 1:";
        const std::string what = "batch " + std::to_string(batch) + (bad_data ? ", data" : "") +
                                 (bad_weights ? ", weights" : "") +
                                 (t == DType::kInt8 ? ", int8" : "");
        const Outcome want = run_op_outcome(registry(), "reference", "conv2d", attrs, in);
        ASSERT_EQ(want.rule, "global.value_range") << what;
        for (const std::string& backend : backends) {
          const Outcome got = run_op_outcome(registry(), backend, "conv2d", attrs, in);
          EXPECT_EQ(got.rule, want.rule) << backend << ", " << what;
          EXPECT_NE(got.message.find(want_input), std::string::npos)
              << backend << ", " << what << ": " << got.message;
        }
      }
    }
  }
}

}  // namespace
}  // namespace cvm
