// Storage plans: the compiler's liveness reuse and the loader's in-place sharing laid out as the
// original lays them out, every plan the generator draws accepted by the loader and free of
// overwritten live entries, and the checker failing plans that overwrite one.
#include <gtest/gtest.h>

#include <map>

#include "cvmcheck/case_seed.h"
#include "harness/graph/graph_build.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_storage.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

// data, param_1 -> conv2d (entry 2) -> relu (3) -> cvm_right_shift (4), the head.
Graph chain(StoragePlan plan) {
  GraphBuilder b;
  const EntryRef data = b.add_variable("data", {1, 1, 2, 2}, 8);
  const EntryRef w = b.add_variable("param_1", {1, 1, 1, 1}, 8);
  const uint32_t conv = b.add_op("conv2d", R"j({"channels": "1", "kernel_size": "(1, 1)", "use_bias": "False"})j",
                                 {data, w}, {{1, 1, 2, 2}}, {17});
  const uint32_t relu = b.add_op("relu", "{}", {{conv, 0, 0}}, {{1, 1, 2, 2}}, {17});
  const uint32_t shift = b.add_op("cvm_right_shift", R"({"precision": "8", "shift_bit": "1"})",
                                  {{relu, 0, 0}}, {{1, 1, 2, 2}}, {8});
  return b.finish({{shift, 0, 0}}, plan);
}

TEST(GraphStorage, PlansAsTheOriginalsCompiler) {
  // conv2d takes storage 0; relu a new one (conv2d is still read); the shift conv2d's freed 0;
  // the variables one each after the planned ones.
  EXPECT_EQ(chain(StoragePlan::kLiveness).storage_id, (std::vector<int64_t>{2, 3, 0, 1, 0}));
  // In place: relu and the shift each take their input's storage.
  EXPECT_EQ(chain(StoragePlan::kInPlace).storage_id, (std::vector<int64_t>{1, 2, 0, 0, 0}));
  EXPECT_EQ(chain(StoragePlan::kOnePerEntry).storage_id, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  for (StoragePlan p : {StoragePlan::kOnePerEntry, StoragePlan::kLiveness, StoragePlan::kInPlace}) {
    EXPECT_EQ(storage_conflict(chain(p)), std::nullopt) << storage_plan_name(p);
  }
}

TEST(GraphStorage, CheckerFailsPlansOverwritingALiveEntry) {
  Graph g = chain(StoragePlan::kLiveness);
  g.storage_id[4] = g.storage_id[1];  // the shift into the weight's storage
  EXPECT_NE(storage_conflict(g), std::nullopt);
  g = chain(StoragePlan::kLiveness);
  g.storage_id[3] = g.storage_id[0];  // relu over the data, read by the next inference
  EXPECT_NE(storage_conflict(g), std::nullopt);
  g = chain(StoragePlan::kLiveness);
  g.storage_id[3] = g.storage_id[4];  // relu and the shift after it in place: allowed
  EXPECT_EQ(storage_conflict(g), std::nullopt);
  // relu in place over conv2d, which an elemwise_add still reads afterwards: the loader takes
  // it (relu may share), the checker does not.
  GraphBuilder b;
  const EntryRef data = b.add_variable("data", {1, 4}, 8);
  const uint32_t neg = b.add_op("negative", "{}", {data}, {{1, 4}}, {8});
  const uint32_t relu = b.add_op("relu", "{}", {{neg, 0, 0}}, {{1, 4}}, {8});
  const uint32_t add = b.add_op("elemwise_add", "{}", {{relu, 0, 0}, {neg, 0, 0}}, {{1, 4}}, {9});
  g = b.finish({{add, 0, 0}}, StoragePlan::kInPlace);
  EXPECT_EQ(storage_conflict(g), std::nullopt);
  EXPECT_NE(g.storage_id[1], g.storage_id[2]);  // neg has two readers: no sharing
  g.storage_id[2] = g.storage_id[1];
  EXPECT_NO_THROW(check_graph(g, registry()));
  EXPECT_NE(storage_conflict(g), std::nullopt);
}

TEST(GraphStorage, GeneratorDrawsEveryPlanValidAndSafe) {
  std::map<StoragePlan, int> drawn;
  int reused = 0, shared = 0;
  for (uint64_t k = 0; k < 150; ++k) {
    GenOptions o;
    o.nodes = 12;
    const GeneratedModel m = generate_model(registry(), case_seed(31, k), o);
    ++drawn[m.storage];
    EXPECT_NO_THROW(check_graph(m.graph, registry())) << k << " " << storage_plan_name(m.storage);
    EXPECT_EQ(storage_conflict(m.graph), std::nullopt) << k << " " << storage_plan_name(m.storage);
    const std::set<int64_t> ids(m.graph.storage_id.begin(), m.graph.storage_id.end());
    if (m.storage != StoragePlan::kOnePerEntry) reused += ids.size() < m.graph.storage_id.size();
    if (m.storage != StoragePlan::kInPlace) continue;
    const std::vector<uint32_t> row_ptr = row_ptr_of(m.graph);
    for (size_t n = 0; n < m.graph.nodes.size(); ++n) {
      for (const EntryRef& in : m.graph.nodes[n].inputs) {
        shared += m.graph.storage_id[entry_index(row_ptr, in)] == m.graph.storage_id[row_ptr[n]];
      }
    }
  }
  for (StoragePlan p : {StoragePlan::kOnePerEntry, StoragePlan::kLiveness, StoragePlan::kInPlace}) {
    EXPECT_GE(drawn[p], 30) << storage_plan_name(p);
  }
  EXPECT_GE(reused, 30);
  EXPECT_GE(shared, 10);
}

TEST(GraphGen, RedrawsModelsWhoseOutputsAreAllConstant) {
  int redrawn = 0;
  for (uint64_t k = 0; k < 200; ++k) {
    GenOptions o;
    o.nodes = 1 + static_cast<int>(k % 12);
    const GeneratedModel m = generate_model(registry(), case_seed(5, k), o);
    redrawn += m.redrawn > 0;
    if (m.redrawn < kMaxConstantRedraws) {
      EXPECT_FALSE(outputs_constant(registry(), m)) << k;
    }
    o.redraw_constant = false;
    const GeneratedModel first = generate_model(registry(), case_seed(5, k), o);
    EXPECT_EQ(first.redrawn, 0);
    if (m.redrawn > 0) {
      EXPECT_TRUE(outputs_constant(registry(), first)) << k;
    }
  }
  EXPECT_GE(redrawn, 1);
}

}  // namespace
}  // namespace cvm::graph
