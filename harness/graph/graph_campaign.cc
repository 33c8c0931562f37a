#include "harness/graph/graph_campaign.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>

#include "cvmcheck/case_seed.h"
#include "cvmcheck/errors.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_pairs.h"
#include "harness/graph/graph_repro.h"
#include "harness/graph/graph_rng.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_signature.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm::graph {
namespace {

using Clock = std::chrono::steady_clock;

std::string file_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  }
  return s;
}

void count_coverage(const GeneratedModel& m, GraphsSummary& s) {
  const Graph& g = m.graph;
  for (const Node& n : g.nodes) {
    if (n.is_variable()) continue;
    const std::string op = n.operator_name();
    ++s.op_counts[op];
    for (const EntryRef& e : n.inputs) {
      const Node& from = g.nodes[e.node];
      if (from.is_variable()) continue;
      s.pairs.emplace(from.operator_name(), op);
      if (s.chainable.count({from.operator_name(), op}) != 0) {
        s.chained.emplace(from.operator_name(), op);
      }
    }
  }
}

// The first model of a finding, shrunk, as a graph folder under the report's repros/.
void save_repro(const Registry& registry, const GraphsOptions& o, const GeneratedModel& m,
                const GraphRun& expected, const GraphDifference& d, GraphFinding& f, int& saved) {
  if (o.report_dir.empty() || saved >= o.max_repros) return;
  const ShrunkModel shrunk = shrink_finding(registry, f.backend, f.signature, Model{m.graph, m.inputs},
                                            expected, d, o.expectations, o.shrink_tries);
  f.nodes_saved = shrunk.op_nodes_after;
  const std::string dir = o.report_dir + "/repros/" + file_name(f.backend + "-" + f.op + "-" + f.kind) +
                          "-" + seed_hex(m.seed);
  std::filesystem::remove_all(dir);
  nlohmann::json j = {{"signature", f.signature}, {"graph_level", f.graph_level},
                      {"backend", f.backend},     {"node", shrunk.node},
                      {"op", f.op},               {"kind", f.kind},
                      {"what", f.what},           {"graph_seed", seed_hex(m.seed)},
                      {"nodes_drawn", f.nodes_drawn}, {"nodes_saved", f.nodes_saved}};
  if (!f.expected_by.empty()) j["expected_by"] = f.expected_by;
  write_graph_repro(dir, shrunk.model, j, f.backend);
  f.repro = dir;
  ++saved;
}

// A model and its index in the run.
struct ModelAt {
  const GeneratedModel& model;
  int64_t index = 0;
};

void record(const Registry& registry, const GraphsOptions& o, const ModelAt& at,
            const std::string& backend, const GraphRun& expected, const GraphRun& actual,
            const GraphDifference& d, GraphsSummary& s, int& saved) {
  const GeneratedModel& m = at.model;
  const GraphSignature sig = classify_difference(registry, m.graph, expected, actual, backend, d, o.expectations);
  // Explained and unexplained models of one signature are two findings, as in the campaign, so
  // an unexplained one never hides behind an explained one.
  for (GraphFinding& f : s.findings) {
    if (f.signature == sig.signature && f.expected_by.empty() == sig.expected_by.empty()) {
      ++f.count;
      return;
    }
  }
  GraphFinding f;
  f.signature = sig.signature;
  f.graph_level = sig.graph_level;
  f.backend = backend;
  f.op = sig.op;
  f.kind = d.kind;
  f.what = d.what;
  f.node = d.node;
  f.graph_seed = m.seed;
  f.first_model = at.index;
  f.count = 1;
  f.expected_by = sig.expected_by;
  f.nodes_drawn = op_node_count(m.graph);
  f.nodes_saved = f.nodes_drawn;
  // A known difference gets no repro and no shrinking time, as in the campaign: the repro bound
  // is kept for the findings someone must look at.
  if (f.expected_by.empty()) save_repro(registry, o, m, expected, d, f, saved);
  s.findings.push_back(f);
}

// A malformed model answered with another outcome class than the reference's: a graph-level
// finding `graph|malformed.<kind>|<backend>|outcome|<reference>-><actual>`, judged by the lists
// as operator `graph|malformed.<kind>`, saved as drawn (a malformation is not shrunk).
void record_malformed(const GraphsOptions& o, const MalformedDisagreement& d, int64_t model,
                      GraphsSummary& s, int& saved) {
  const std::string op = "malformed." + d.kind;
  const std::string signature = graph_level_signature(op, d.backend, "outcome") + "|" +
                                outcome_name(d.reference.kind) + "->" + outcome_name(d.actual.kind);
  const std::string expected_by =
      graph_expectation(o.expectations, d.backend, "graph|" + op, "malformed", signature);
  for (GraphFinding& f : s.findings) {
    if (f.signature == signature && f.expected_by.empty() == expected_by.empty()) {
      ++f.count;
      return;
    }
  }
  GraphFinding f;
  f.signature = signature;
  f.backend = d.backend;
  f.op = op;
  f.kind = "outcome";
  f.what = concat(outcome_name(d.actual.kind), " ", d.actual.message, " vs ",
                  outcome_name(d.reference.kind), " ", d.reference.message, " on the reference");
  f.graph_seed = d.model.seed;
  f.first_model = model;
  f.count = 1;
  f.expected_by = expected_by;
  f.nodes_drawn = f.nodes_saved = op_node_count(d.model.graph);
  if (!o.report_dir.empty() && saved < o.max_repros && expected_by.empty()) {
    f.repro = o.report_dir + "/repros/" + file_name(d.backend + "-" + op) + "-" + seed_hex(d.model.seed);
    std::filesystem::remove_all(f.repro);
    nlohmann::json j = {{"signature", f.signature}, {"graph_level", true}, {"backend", f.backend},
                        {"op", op}, {"kind", f.kind}, {"what", f.what},
                        {"graph_seed", seed_hex(d.model.seed)}};
    if (!expected_by.empty()) j["expected_by"] = expected_by;
    write_graph_repro(f.repro, Model{d.model.graph, d.model.inputs}, j, f.backend);
    ++saved;
  }
  s.findings.push_back(f);
}

}  // namespace

std::vector<std::string> graphs_default_backends(const Registry& registry) {
  std::vector<std::string> names;
  for (const Backend& b : registry.backends()) {
    if (b.name != kReferenceBackend && b.available && b.variant_of.empty() && !b.external) names.push_back(b.name);
  }
  return names;
}

GraphsSummary run_graphs(const Registry& registry, const GraphsOptions& o) {
  GraphsSummary s;
  s.seed = o.seed;
  s.backends = o.backends.empty() ? graphs_default_backends(registry) : o.backends;
  GenOptions gen;
  gen.nodes = o.nodes;
  gen.ops = generator_ops();
  for (const std::string& b : s.backends) {
    const Backend* backend = registry.find_backend(b);
    if (backend == nullptr) fail_logic("unknown backend '", b, "'");
    // Only operators every selected backend implements: a model with another would be skipped.
    for (auto it = gen.ops.begin(); it != gen.ops.end();) it = backend->implements(*it) ? std::next(it) : gen.ops.erase(it);
  }
  if (gen.ops.empty()) fail_logic("the selected backends implement none of the generator's operators");
  s.ops = gen.ops;
  s.chainable = chainable_pairs(registry, gen.ops);
  const Clock::time_point start = Clock::now();
  int saved = 0;
  const int64_t step = std::max(1, o.job_count);
  for (int64_t k = o.first_model + o.job_index; o.max_graphs < 0 || k < o.max_graphs; k += step) {
    if (std::chrono::duration<double>(Clock::now() - start).count() >= o.seconds) break;
    const GeneratedModel m = generate_model(registry, case_seed(o.seed, static_cast<uint64_t>(k)), gen);
    const GraphRun expected = run_graph(registry, kReferenceBackend, m.graph, m.inputs);
    ++s.graphs;
    s.drafts += m.drafts;
    s.refused += m.refused;
    s.redrawn_constant += m.redrawn;
    ++s.storage_plans[storage_plan_name(m.storage)];
    check_malformed(registry, m, k, s.backends, s.malformed,
                    [&](const MalformedDisagreement& d) { record_malformed(o, d, k, s, saved); });
    s.op_nodes += static_cast<int64_t>(m.graph.nodes.size() - m.inputs.params.size()) - 1;
    if (expected.kind == OutcomeKind::kOk) {
      ++s.valid;
      count_coverage(m, s);
    } else {
      std::string op = "graph";
      if (expected.node >= 0) {
        const Node& n = m.graph.nodes[static_cast<size_t>(expected.node)];
        op = n.is_variable() ? "variable" : n.operator_name();
      }
      auto& [count, first] = s.invalid[op];
      if (count++ == 0) first = expected.message;
    }
    for (const std::string& b : s.backends) {
      const GraphRun actual = run_graph(registry, b, m.graph, m.inputs);
      if (actual.skipped) {
        if (s.skipped[b]++ == 0) s.skip_reasons[b] = actual.skip_reason;
        continue;
      }
      ++s.compared[b];
      if (const auto d = diff_runs(m.graph, expected, actual)) {
        record(registry, o, ModelAt{m, k}, b, expected, actual, *d, s, saved);
      }
    }
  }
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const ExecBackendInfo& w : exec_backends()) {
    if (std::find(s.backends.begin(), s.backends.end(), w.name) == s.backends.end()) continue;
    s.worker_restarts[w.name] = w.restarts;
    s.worker_requests[w.name] = w.calls;
  }
  return s;
}

int64_t unexplained_findings(const GraphsSummary& s) {
  int64_t n = 0;
  for (const GraphFinding& f : s.findings) n += f.expected_by.empty() ? 1 : 0;
  return n;
}

nlohmann::json graphs_report(const GraphsSummary& s) {
  nlohmann::json j;
  j["seed"] = s.seed;
  j["graphs"] = s.graphs;
  j["seconds"] = s.seconds;
  j["graphs_per_second"] = s.seconds > 0 ? static_cast<double>(s.graphs) / s.seconds : 0.0;
  j["nodes_per_graph"] = s.graphs > 0 ? static_cast<double>(s.op_nodes) / static_cast<double>(s.graphs) : 0.0;
  j["valid_share"] = s.graphs > 0 ? static_cast<double>(s.valid) / static_cast<double>(s.graphs) : 0.0;
  j["insertions"] = {{"drafted", s.drafts}, {"refused_by_inference", s.refused}};
  j["redrawn_constant"] = s.redrawn_constant;
  j["storage_plans"] = s.storage_plans;
  j["malformed"] = malformed_report(s.malformed);
  j["backends"] = s.backends;
  j["compared"] = s.compared;
  j["worker_restarts"] = s.worker_restarts;
  j["worker_requests"] = s.worker_requests;
  j["skipped"] = s.skipped;
  j["skip_reasons"] = s.skip_reasons;
  j["operators_covered"] = s.op_counts;
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [from, to] : s.pairs) pairs.push_back(from + "->" + to);
  j["pairs_covered"] = {{"count", s.pairs.size()}, {"pairs", pairs}};
  nlohmann::json missing = nlohmann::json::array();
  for (const auto& [from, to] : s.chainable) {
    if (s.chained.count({from, to}) == 0) missing.push_back(from + "->" + to);
  }
  j["pairs_chainable"] = {
      {"count", s.chainable.size()},
      {"covered", s.chained.size()},
      {"share", s.chainable.empty() ? 0.0
                                    : static_cast<double>(s.chained.size()) /
                                          static_cast<double>(s.chainable.size())},
      {"missing", missing}};
  j["operators_drawn_from"] = s.ops;
  nlohmann::json findings = nlohmann::json::array();
  for (const GraphFinding& f : s.findings) {
    findings.push_back({{"signature", f.signature}, {"backend", f.backend}, {"op", f.op},
                        {"kind", f.kind}, {"first_differing_node", f.node}, {"what", f.what},
                        {"graph_seed", seed_hex(f.graph_seed)}, {"model", f.first_model},
                        {"count", f.count}, {"repro", f.repro},
                        {"graph_level", f.graph_level}, {"expected_by", f.expected_by},
                        {"nodes_drawn", f.nodes_drawn}, {"nodes_saved", f.nodes_saved}});
  }
  nlohmann::json invalid = nlohmann::json::object();
  for (const auto& [op, c] : s.invalid) invalid[op] = {{"count", c.first}, {"first", c.second}};
  j["invalid_by_operator"] = invalid;
  j["findings"] = findings;
  return j;
}

}  // namespace cvm::graph
