// A model as a folder (docs/graphs.md, "Graph folders"): graph.json (the original's graph JSON),
// params (its params blob) and data.npy (the input), which the original's own loader and
// `cvmcheck graphs --replay` both read; a finding's folder adds finding.json.
#pragma once

#include <string>

#include "harness/graph/graph.h"
#include "harness/graph/graph_load.h"

namespace cvm::graph {

struct ModelFiles {
  Graph graph;
  ModelInputs inputs;
};

// RuntimeError when a file cannot be written.
void write_graph_folder(const std::string& dir, const Graph& g, const ModelInputs& inputs);
// LogicError for a damaged file (GraphFormatError, the params' format, .npy); RuntimeError when
// a file is missing. The data's precision is the graph's for `data`.
ModelFiles read_graph_folder(const std::string& dir);

}  // namespace cvm::graph
