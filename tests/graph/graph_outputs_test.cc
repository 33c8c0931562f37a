// The packed output (graph_outputs.h): what the original's CVMAPIInference writes, computed from
// the heads as its SaveTensor does: int8 or int32 by the heads' precision, several heads row by
// row, argmax with the original's stride and int8 comparison, detection's buffer length, and the
// heads it cannot concatenate refused as it refuses them.
#include <gtest/gtest.h>

#include <cstring>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_outputs.h"

namespace cvm::graph {
namespace {

std::vector<int32_t> int32s(const PackedOutput& p) {
  EXPECT_EQ(p.type_size, 4u);
  std::vector<int32_t> out(p.bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), p.bytes.data(), p.bytes.size());
  return out;
}

Graph with_postprocess(const char* method) {
  Graph g;
  if (method != nullptr) g.postprocess = method;
  return g;
}

TEST(GraphOutputs, OneHeadIsInt8UpToEightBitsElseInt32) {
  const Graph g;
  PackedOutput p = pack_outputs(g, {Tensor::from_values({3}, {1, -2, 127}, 8)});
  EXPECT_EQ(p.type_size, 1u);
  EXPECT_EQ(p.bytes, (std::vector<uint8_t>{1, 0xfe, 127}));
  p = pack_outputs(g, {Tensor::from_values({3}, {1, -2, 300}, 10)});
  EXPECT_EQ(int32s(p), (std::vector<int32_t>{1, -2, 300}));
}

TEST(GraphOutputs, SeveralHeadsAreConcatenatedRowByRow) {
  const Graph g;
  const PackedOutput p = pack_outputs(g, {Tensor::from_values({2, 2}, {1, 2, 3, 4}, 4),
                                          Tensor::from_values({2, 1}, {-5, -6}, 12)});
  EXPECT_EQ(int32s(p), (std::vector<int32_t>{1, 2, -5, 3, 4, -6}));
  // Rows unlike: the original refuses ("detection model output cannot concat").
  try {
    pack_outputs(g, {Tensor::from_values({2}, {1, 2}, 4), Tensor::from_values({2, 2}, {1, 2, 3, 4}, 4)});
    ADD_FAILURE() << "packed heads of 1 and 2 rows";
  } catch (const LogicError& e) {
    EXPECT_EQ(e.rule(), "graph.postprocess");
  }
}

TEST(GraphOutputs, ArgmaxKeepsTheOriginalsStrideAndInt8Comparison) {
  // 4 rows of 2: the original's loop visits rows starting at 0 and 2 of the flat data (its index
  // steps by the row width while it counts rows), writing 2 indices; the rest of its 4-element
  // buffer stays zero. 200 compares as int8 (-56): 100 is larger.
  const PackedOutput p = pack_outputs(
      with_postprocess("argmax"), {Tensor::from_values({4, 2}, {5, 9, 7, 1, 0, 0, 0, 0}, 10)});
  EXPECT_EQ(int32s(p), (std::vector<int32_t>{1, 0, 0, 0}));
  const PackedOutput q =
      pack_outputs(with_postprocess("argmax"), {Tensor::from_values({1, 2}, {200, 100}, 9)});
  EXPECT_EQ(int32s(q), (std::vector<int32_t>{1}));
}

TEST(GraphOutputs, DetectionConcatenatesIntoItsBufferLength) {
  const Graph g = with_postprocess("detection");
  const Tensor boxes = Tensor::from_values({1, 3, 2}, {1, 2, 3, 4, 5, 6}, 8);
  const Tensor scores = Tensor::from_values({1, 3, 1}, {7, 8, 9}, 8);
  EXPECT_EQ(int32s(pack_outputs(g, {boxes, scores})),
            (std::vector<int32_t>{1, 2, 7, 3, 4, 8, 5, 6, 9}));
  // A batch of 2: 6 rows written, a buffer of 3 (the first head's second-last axis) kept.
  const Tensor boxes2 = Tensor::from_values({2, 3, 1}, {1, 2, 3, 4, 5, 6}, 8);
  const Tensor scores2 = Tensor::from_values({2, 3, 1}, {7, 8, 9, 10, 11, 12}, 8);
  EXPECT_EQ(int32s(pack_outputs(g, {boxes2, scores2})), (std::vector<int32_t>{1, 7, 2, 8, 3, 9}));
  EXPECT_THROW(pack_outputs(g, {boxes}), LogicError);  // one head cannot be concatenated
  // A method the original does not know is none.
  EXPECT_EQ(pack_outputs(with_postprocess("other"), {boxes}).type_size, 1u);
}

TEST(GraphOutputs, TheDiffComparesPackedOutputsAfterTheEntries) {
  const Graph g;
  GraphRun expected;
  expected.packed = PackedOutput{1, {1, 2, 3}};
  GraphRun actual = expected;
  EXPECT_FALSE(diff_runs(g, expected, actual));
  actual.packed->bytes[2] = 4;
  auto d = diff_runs(g, expected, actual);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "packed");
  EXPECT_EQ(d->node, -1);
  EXPECT_NE(d->what.find("element 2"), std::string::npos) << d->what;
  actual.packed = PackedOutput{4, {1, 2, 3, 0}};
  EXPECT_EQ(diff_runs(g, expected, actual)->kind, "packed");
  actual.packed.reset();  // one side without: not compared
  EXPECT_FALSE(diff_runs(g, expected, actual));
  actual.failure = "crash";
  actual.kind = OutcomeKind::kRuntimeError;
  EXPECT_EQ(diff_runs(g, expected, actual)->kind, "crash");
}

}  // namespace
}  // namespace cvm::graph
