// A `cvmcheck graphs` run and its findings as the findings store keeps them (docs/graphs.md,
// "The store"): one signature everywhere, so a single call's finding found through a model is
// the campaign's finding. A graph-level finding's operator is stored as "graph|<op>", and a
// graphs run lists the operators it covered that way: it can mark a graph-level finding fixed,
// never a campaign's (a few models prove less about one call than a campaign does), and a
// campaign never marks a graph-level finding fixed.
#pragma once

#include <vector>

#include "harness/findings/findings_store.h"
#include "harness/graph/graph_campaign.h"

namespace cvm::graph {

// `facts` (commit, version, CPU, start) completed from the summary: kind "graphs", seed, time,
// models (as calls), the backends that compared a model, the operators covered as "graph|<op>".
StoreRun graphs_store_run(const GraphsSummary& s, StoreRun facts);

// One entry per signature (explained and unexplained models of one merged, unexplained when any
// is), its summary the first difference and its repro the saved graph folder.
std::vector<StoreFinding> graphs_store_findings(const GraphsSummary& s);

}  // namespace cvm::graph
