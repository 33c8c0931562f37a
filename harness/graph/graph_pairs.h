// The producer -> consumer operator pairs that can chain: those where the consumer can take the
// producer's output directly (as the input its drafter builds on, within the rank and precision
// it takes, its other inputs and attributes drawn by the drafter, accepted by the production inference and the
// generator's size bound). The denominator of a graph run's pair coverage (docs/graphs.md): a
// pair is counted as chainable once some small model data -> producer -> consumer is built, so
// the set is constructive, made by the same drafters and inference as the generator's models,
// never a hand-kept list.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "cvmcheck/registry.h"

namespace cvm::graph {

using OpPair = std::pair<std::string, std::string>;  // producer, consumer

// The pairs of `ops` that can chain, found by `tries` attempts per producer (each its own data
// shape and draws, from a fixed seed: the same set on every machine).
std::set<OpPair> chainable_pairs(const Registry& registry, const std::set<std::string>& ops,
                                 int tries = 256);

}  // namespace cvm::graph
