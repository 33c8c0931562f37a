// The AVX2 kernels chosen by precision (nn_isa_avx2.cc: vpmaddubsw where the data or the
// weights have at most 7 bits, |x| x sign(w, x) for 8 x 8; the gemv of one or
// two rows) at the saturation edge of vpmaddubsw's int16 pair sums: every value +-alpha, where a
// data of precision 7 (stored x + 64 = 127) times weights +-127 gives pair sums of +-32,258,
// data of precision 8 (x + 128 = 255) times weights +-63 gives +-32,130, and 8 x 8 bits
// (|x| = 127 times +-127) +-32,258: the largest that stay exact.
// optimized/avx2 against the reference, bit for bit, on conv2d and dense, int8 and int32.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/cpu_features.h"
#include "registry/registry.h"
#include "support/call.h"

namespace cvm {
namespace {

Tensor all(const Shape& shape, int p, int sign, DType dtype) {
  const std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)),
                               static_cast<int32_t>(sign * alpha(p)));
  return Tensor::from_values(shape, v, p, dtype);
}

void expect_same(const std::string& op, const std::string& attrs, const std::vector<Tensor>& in,
                 const std::string& what) {
  const nlohmann::json a = parse_attrs_json(attrs);
  const Outcome want = run_op_outcome(registry(), "reference", op, a, in);
  const Outcome got = run_op_outcome(registry(), "optimized/avx2", op, a, in);
  ASSERT_EQ(want.kind, OutcomeKind::kOk) << what << ": " << testing::describe(want);
  ASSERT_EQ(got.kind, OutcomeKind::kOk) << what << ": " << testing::describe(got);
  ASSERT_EQ(got.outputs.size(), 1u) << what;
  EXPECT_TRUE(got.outputs[0].identical(want.outputs[0])) << what;
}

struct Edge {
  int p_data, p_weight, data_sign, weight_sign;
  std::string name() const {
    return "p" + std::to_string(p_data) + (data_sign > 0 ? "+" : "-") + " x p" +
           std::to_string(p_weight) + (weight_sign > 0 ? "+" : "-");
  }
};

std::vector<Edge> edges() {
  std::vector<Edge> list;
  for (const auto& [pd, pw] : {std::pair{7, 8}, {8, 7}, {7, 7}, {8, 8}}) {
    for (int sd : {1, -1}) {
      for (int sw : {1, -1}) list.push_back({pd, pw, sd, sw});
    }
  }
  return list;
}

TEST(Avx2U8Edge, DenseAtTheSaturationEdgeMatchesTheReference) {
  if (!opt::isa_supported(opt::Isa::kAvx2)) GTEST_SKIP() << "this CPU lacks AVX2";
  // Rows 1 and 2: the gemv; 3 and 5: the packed GEMM (a partial panel). Depths with tails of
  // the gemv's 16 or 32 and of the GEMM's k-groups; units with a column tail.
  for (const Edge& e : edges()) {
    for (DType t : {DType::kInt8, DType::kInt32}) {
      for (int64_t rows : {1, 2, 3, 5}) {
        for (int64_t depth : {4, 37, 70}) {
          const int64_t units = 11;
          const std::string what = "dense " + e.name() + " rows " + std::to_string(rows) +
                                   " depth " + std::to_string(depth);
          expect_same("dense", R"({"units": "11", "use_bias": "false"})",
                      {all({rows, depth}, e.p_data, e.data_sign, t),
                       all({units, depth}, e.p_weight, e.weight_sign, t)},
                      what);
        }
      }
    }
  }
}

TEST(Avx2U8Edge, Conv2dAtTheSaturationEdgeMatchesTheReference) {
  if (!opt::isa_supported(opt::Isa::kAvx2)) GTEST_SKIP() << "this CPU lacks AVX2";
  // 6 input channels (a partial group of 4), 3 x 3 kernel, padding 1: the padded border is the
  // shifted zero; 5 output channels (a partial panel).
  const std::string attrs =
      R"J({"channels": "5", "kernel_size": "(3, 3)", "padding": "(1, 1)", "use_bias": "false"})J";
  for (const Edge& e : edges()) {
    for (DType t : {DType::kInt8, DType::kInt32}) {
      expect_same("conv2d", attrs,
                  {all({1, 6, 7, 9}, e.p_data, e.data_sign, t),
                   all({5, 6, 3, 3}, e.p_weight, e.weight_sign, t)},
                  "conv2d " + e.name());
    }
  }
}

}  // namespace
}  // namespace cvm
