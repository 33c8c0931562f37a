#include "harness/graph/graph_store.h"

#include <map>

namespace cvm::graph {

StoreRun graphs_store_run(const GraphsSummary& s, StoreRun facts) {
  facts.kind = "graphs";
  facts.seed = s.seed;
  facts.seconds = s.seconds;
  facts.calls = s.graphs;
  for (const auto& [op, count] : s.op_counts) {
    if (count > 0) facts.ops.push_back("graph|" + op);
  }
  if (s.graphs > 0) {
    facts.ops.push_back("graph|graph");
    facts.ops.push_back("graph|variable");
  }
  for (const std::string& b : s.backends) {
    const auto it = s.compared.find(b);
    if (it != s.compared.end() && it->second > 0) facts.backends.push_back(b);
  }
  return facts;
}

std::vector<StoreFinding> graphs_store_findings(const GraphsSummary& s) {
  std::vector<StoreFinding> out;
  std::map<std::string, size_t> index;
  for (const GraphFinding& f : s.findings) {
    const auto [it, first] = index.try_emplace(f.signature, out.size());
    if (!first) {
      StoreFinding& merged = out[it->second];
      merged.calls += f.count;
      if (f.expected_by.empty()) {
        merged.expected_by.clear();
        merged.summary = f.what;
        if (!f.repro.empty()) merged.repro_dir = f.repro;
      }
      continue;
    }
    StoreFinding e;
    e.signature = f.signature;
    e.op = f.graph_level ? "graph|" + f.op : f.op;
    e.backend = f.backend;
    e.summary = f.what;
    e.repro_dir = f.repro;
    e.calls = f.count;
    e.expected_by = f.expected_by;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace cvm::graph
