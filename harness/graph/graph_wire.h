// The worker protocol's whole-model messages (worker_sdk/include/cvmcheck_worker_graph_codec.hpp)
// in terms of the graph types: a model as a graph request and back, a run as a model reply and
// back. The harness's side (graph_worker_run.h) and `cvmcheck worker` (graph_serve.h) share
// them, so both mean the same thing by a model.
#pragma once

#include "cvmcheck_worker.hpp"
#include "harness/graph/graph.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_load.h"
#include "harness/graph/graph_run.h"

namespace cvm::graph {

// The graph JSON as write_graph_json writes it, the params blob, and the data input as `data`.
// LogicError for a graph no file can hold (write_graph_json's refusal).
cvmcheck_worker::GraphRequest graph_request(const Graph& g, const ModelInputs& inputs);

// The model a request holds. LogicError (a bad model) for a graph JSON or a params blob the
// formats refuse, an input other than `data`, or an input breaking the tensor limits.
ModelFiles model_from_request(const cvmcheck_worker::GraphRequest& request);

// Every entry the run recorded, its outcome, the node blamed and the packed output.
cvmcheck_worker::ModelReply model_reply_from_run(const GraphRun& run);

// A worker's reply for `g` as a run. cvmcheck_worker::ProtocolError for a reply that cannot be
// this graph's: an entry count other than 0 or the graph's (`entries`, where the graph loads;
// 0 when it does not, which then accepts any count), a blamed node past the graph's nodes, an
// entry breaking the tensor limits.
GraphRun run_from_model_reply(const Graph& g, uint32_t entries,
                              const cvmcheck_worker::ModelReply& reply);

}  // namespace cvm::graph
