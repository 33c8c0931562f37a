// The pairs that can chain (harness/graph/graph_pairs.h): the natural chains of real models are
// among them, a rank no consumer takes is not, and every pair the generator itself makes
// through a consumer's first input is one (where's first input, its condition, is always a
// parameter; its x is the entry it is drafted on).
#include <gtest/gtest.h>

#include <iostream>

#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_pairs.h"
#include "registry/registry.h"

namespace cvm::graph {
namespace {

const std::set<OpPair>& all_pairs() {
  static const std::set<OpPair> pairs = chainable_pairs(registry(), generator_ops());
  return pairs;
}

TEST(GraphPairs, NaturalChainsCanChainAndRankMismatchesCannot) {
  const std::set<OpPair>& pairs = all_pairs();
  std::cout << pairs.size() << " pairs of " << generator_ops().size() << " operators can chain\n";
  for (const OpPair p : {OpPair{"conv2d", "relu"}, OpPair{"flatten", "dense"},
                         OpPair{"get_valid_counts", "non_max_suppression"},
                         OpPair{"relu", "max_pool2d"}, OpPair{"dense", "dense"}}) {
    EXPECT_EQ(pairs.count(p), 1u) << p.first << " -> " << p.second;
  }
  // dense makes rank 2; conv2d and max_pool2d take rank 4 only.
  EXPECT_EQ(pairs.count({"dense", "conv2d"}), 0u);
  EXPECT_EQ(pairs.count({"flatten", "max_pool2d"}), 0u);
}

TEST(GraphPairs, EveryPairTheGeneratorMakesCanChain) {
  const std::set<OpPair>& pairs = all_pairs();
  GenOptions options;
  options.nodes = 20;
  std::set<OpPair> made;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Graph g = generate_model(registry(), seed, options).graph;
    for (const Node& n : g.nodes) {
      if (n.is_variable() || n.inputs.empty() || n.operator_name() == "where") continue;
      const Node& from = g.nodes[n.inputs[0].node];
      if (!from.is_variable()) made.emplace(from.operator_name(), n.operator_name());
    }
  }
  for (const OpPair& p : made) EXPECT_EQ(pairs.count(p), 1u) << p.first << " -> " << p.second;
  std::cout << made.size() << " first-input pairs made by 300 models of 20 nodes\n";
}

}  // namespace
}  // namespace cvm::graph
