// Storage plans (docs/graphs.md, "Storage plans"): which storage each entry of a model lives in.
// Three kinds, as models in the wild have them: one storage per entry; liveness reuse as the
// original's compiler plans it (its PlanMemory pass: an entry's storage goes back to a free list
// once every consumer of its holder has run, and a later output takes the free storage nearest
// its size; every variable then gets a storage of its own, DecorateMemoryPlan); and the same
// with in-place sharing where the original's loader allows it (an output of one of its in-place
// operators takes its input's storage when that input has no other reader left).
// `storage_conflict` is the property every plan must keep: no entry is written while another
// entry of its storage may still be read.
#pragma once

#include <optional>
#include <string>

#include "harness/graph/graph.h"

namespace cvm::graph {

enum class StoragePlan { kOnePerEntry, kLiveness, kInPlace };

inline constexpr int kStoragePlanCount = 3;
const char* storage_plan_name(StoragePlan plan);  // "one_per_entry", "liveness", "in_place"

// Sets g.storage_id for `plan` from g's nodes and heads (g otherwise well formed).
void plan_storage(Graph& g, StoragePlan plan);

// The operators whose output the original's loader lets share an input's storage.
bool loader_allows_in_place(const std::string& op);

// nullopt when no entry can be overwritten while it is still to be read: for any two entries of
// one storage, the later one is written after the earlier one's last reader, or by that reader
// itself when it is an in-place operator (loader_allows_in_place). Variables are read for the
// model's whole life (the original loads parameters once for many inferences) and heads until
// its end. Otherwise one line naming both entries and their nodes.
std::optional<std::string> storage_conflict(const Graph& g);

}  // namespace cvm::graph
