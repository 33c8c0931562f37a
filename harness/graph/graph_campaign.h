// `cvmcheck graphs`: random models, each run on the reference and on every selected backend and
// diffed entry by entry (docs/graphs.md, "The command"). Findings are grouped by signature
// (backend, the first differing node's operator, what differs); the first model of each is saved
// as a graph folder. The sequence of models is a function of the seed: model k has seed
// case_seed(seed, k) (cvmcheck/case_seed.h), whatever the time limit cuts off.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"
#include "harness/findings/expectations.h"
#include "harness/graph/graph_malform.h"

namespace cvm::graph {

struct GraphsOptions {
  double seconds = 10;
  int64_t max_graphs = -1;  // < 0: until the time is up
  int nodes = 10;
  std::vector<std::string> backends;  // empty: the default (graphs_default_backends)
  uint64_t seed = 0;
  std::string report_dir;  // empty: no files
  int max_repros = 20;
  // Known differences (--xfail, --xfail-for): a finding they explain does not fail the run.
  ExpectationSet expectations;
  int shrink_tries = 200;  // per saved repro: candidate models tried (graph_shrink.h)
  // Job `job_index` of `job_count` (--jobs, graph_jobs.h): it makes models job_index,
  // job_index + job_count, ...; max_graphs bounds the models of all jobs together.
  int job_index = 0, job_count = 1;
  // The run's first model (--from-model K): with max_graphs K + 1, model K of the seed alone, as
  // a finding's `model` names it.
  int64_t first_model = 0;
};

struct GraphFinding {
  // The single call's signature where the first differing node differs alone (the campaign's);
  // "graph|<op>|<backend>|<kind>" for a graph-level finding (graph_signature.h).
  std::string signature;
  bool graph_level = true;
  std::string backend;
  std::string op;    // the first differing node's operator ("graph" for the graph as a whole)
  std::string kind;  // outcome, shape, precision, value
  std::string what;  // the first occurrence's difference
  int node = -1;
  uint64_t graph_seed = 0;
  int64_t count = 0;
  std::string repro;  // its folder, when saved
  std::string expected_by;  // a known difference: "FILE:LINE: reason"
  int nodes_drawn = 0, nodes_saved = 0;  // operator nodes of the first model and of its repro
  int64_t first_model = 0;  // the first model's index in the run (a merge of jobs keeps it)
};

struct GraphsSummary {
  uint64_t seed = 0;
  int64_t graphs = 0;
  int64_t valid = 0;  // graphs the reference ran to the end
  int64_t op_nodes = 0;
  int64_t drafts = 0, refused = 0;
  int64_t redrawn_constant = 0;                    // models drawn again: outputs all constant
  std::map<std::string, int64_t> storage_plans;    // models per storage plan drawn
  MalformedCounts malformed;                       // the malformed-model mode (graph_malform.h)
  double seconds = 0;
  std::vector<std::string> backends;
  std::map<std::string, int64_t> compared, skipped;  // per backend, graphs
  std::map<std::string, std::string> skip_reasons;    // per backend, the first one
  // Per external backend, its worker's restarts (after a crash, a hang or a protocol error) and
  // the requests sent to it (models, shrinking tries, single-call reruns; exec_backend.h): how
  // often the implementation went down.
  std::map<std::string, int64_t> worker_restarts, worker_requests;
  std::map<std::string, int64_t> op_counts;          // operator nodes in valid graphs
  std::set<std::pair<std::string, std::string>> pairs;  // producer -> consumer, valid graphs
  // The coverage's denominator: the operators drawn from, the pairs of them that can chain
  // (graph_pairs.h), and those of them covered (an input of the consumer the producer's).
  std::set<std::string> ops;
  std::set<std::pair<std::string, std::string>> chainable, chained;
  // Why the reference refused the invalid models: per blamed operator, the count and the first
  // message (a generator that drafts what the production inference accepts and the reference
  // refuses shows here).
  std::map<std::string, std::pair<int64_t, std::string>> invalid;
  std::vector<GraphFinding> findings;
};

// Every available built-in backend but the reference and the dispatch variants.
std::vector<std::string> graphs_default_backends(const Registry& registry);

GraphsSummary run_graphs(const Registry& registry, const GraphsOptions& options);

// Findings no expectation explains.
int64_t unexplained_findings(const GraphsSummary& s);

nlohmann::json graphs_report(const GraphsSummary& s);

}  // namespace cvm::graph
