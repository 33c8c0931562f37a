#include "harness/graph/graph_jobs.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "harness/jobs/forked_jobs.h"

namespace cvm::graph {
namespace {

using Pairs = std::set<std::pair<std::string, std::string>>;

nlohmann::json finding_json(const GraphFinding& f) {
  return {{"signature", f.signature}, {"graph_level", f.graph_level}, {"backend", f.backend},
          {"op", f.op},               {"kind", f.kind},               {"what", f.what},
          {"node", f.node},           {"graph_seed", f.graph_seed},   {"count", f.count},
          {"repro", f.repro},         {"expected_by", f.expected_by}, {"nodes_drawn", f.nodes_drawn},
          {"nodes_saved", f.nodes_saved}, {"first_model", f.first_model}};
}

GraphFinding finding_from_json(const nlohmann::json& j) {
  GraphFinding f;
  f.signature = j.at("signature").get<std::string>();
  f.graph_level = j.at("graph_level").get<bool>();
  f.backend = j.at("backend").get<std::string>();
  f.op = j.at("op").get<std::string>();
  f.kind = j.at("kind").get<std::string>();
  f.what = j.at("what").get<std::string>();
  f.node = j.at("node").get<int>();
  f.graph_seed = j.at("graph_seed").get<uint64_t>();
  f.count = j.at("count").get<int64_t>();
  f.repro = j.at("repro").get<std::string>();
  f.expected_by = j.at("expected_by").get<std::string>();
  f.nodes_drawn = j.at("nodes_drawn").get<int>();
  f.nodes_saved = j.at("nodes_saved").get<int>();
  f.first_model = j.at("first_model").get<int64_t>();
  return f;
}

// Findings of one signature and explanation are one: counts summed, the earliest model's kept
// (its repro), the other jobs' repro folders removed.
void merge_findings(std::vector<GraphFinding>& into, const std::vector<GraphFinding>& from) {
  for (const GraphFinding& f : from) {
    auto same = std::find_if(into.begin(), into.end(), [&f](const GraphFinding& g) {
      return g.signature == f.signature && g.expected_by.empty() == f.expected_by.empty();
    });
    if (same == into.end()) {
      into.push_back(f);
      continue;
    }
    const int64_t count = same->count + f.count;
    const GraphFinding& dropped = f.first_model < same->first_model ? *same : f;
    std::error_code ignored;
    if (!dropped.repro.empty()) std::filesystem::remove_all(dropped.repro, ignored);
    if (f.first_model < same->first_model) *same = f;
    same->count = count;
  }
}

}  // namespace

nlohmann::json summary_json(const GraphsSummary& s) {
  nlohmann::json j = {{"seed", s.seed},         {"graphs", s.graphs},       {"valid", s.valid},
                      {"op_nodes", s.op_nodes}, {"drafts", s.drafts},       {"refused", s.refused},
                      {"seconds", s.seconds},   {"backends", s.backends},   {"compared", s.compared},
                      {"skipped", s.skipped},   {"skip_reasons", s.skip_reasons},
                      {"op_counts", s.op_counts}, {"pairs", s.pairs},       {"ops", s.ops},
                      {"chainable", s.chainable}, {"chained", s.chained},   {"invalid", s.invalid},
                      {"redrawn_constant", s.redrawn_constant}, {"storage_plans", s.storage_plans},
                      {"malformed", malformed_report(s.malformed)},
                      {"worker_restarts", s.worker_restarts}, {"worker_requests", s.worker_requests}};
  j["findings"] = nlohmann::json::array();
  for (const GraphFinding& f : s.findings) j["findings"].push_back(finding_json(f));
  return j;
}

GraphsSummary summary_from_json(const nlohmann::json& j) {
  GraphsSummary s;
  s.seed = j.at("seed").get<uint64_t>();
  s.graphs = j.at("graphs").get<int64_t>();
  s.valid = j.at("valid").get<int64_t>();
  s.op_nodes = j.at("op_nodes").get<int64_t>();
  s.drafts = j.at("drafts").get<int64_t>();
  s.refused = j.at("refused").get<int64_t>();
  s.seconds = j.at("seconds").get<double>();
  s.backends = j.at("backends").get<std::vector<std::string>>();
  s.compared = j.at("compared").get<std::map<std::string, int64_t>>();
  s.skipped = j.at("skipped").get<std::map<std::string, int64_t>>();
  s.skip_reasons = j.at("skip_reasons").get<std::map<std::string, std::string>>();
  s.worker_restarts = j.at("worker_restarts").get<std::map<std::string, int64_t>>();
  s.worker_requests = j.at("worker_requests").get<std::map<std::string, int64_t>>();
  s.op_counts = j.at("op_counts").get<std::map<std::string, int64_t>>();
  s.pairs = j.at("pairs").get<Pairs>();
  s.ops = j.at("ops").get<std::set<std::string>>();
  s.chainable = j.at("chainable").get<Pairs>();
  s.chained = j.at("chained").get<Pairs>();
  s.invalid = j.at("invalid").get<std::map<std::string, std::pair<int64_t, std::string>>>();
  s.redrawn_constant = j.at("redrawn_constant").get<int64_t>();
  s.storage_plans = j.at("storage_plans").get<std::map<std::string, int64_t>>();
  const nlohmann::json& bad = j.at("malformed");
  s.malformed.drawn = bad.at("drawn").get<int64_t>();
  s.malformed.refused = bad.at("refused").get<int64_t>();
  s.malformed.by_kind = bad.at("by_kind").get<std::map<std::string, int64_t>>();
  s.malformed.not_refused = bad.at("not_refused").get<std::vector<std::string>>();
  s.malformed.disagreements = bad.at("disagreements").get<std::map<std::string, int64_t>>();
  s.malformed.first_disagreement = bad.at("first_disagreement").get<std::map<std::string, std::string>>();
  for (const nlohmann::json& f : j.at("findings")) s.findings.push_back(finding_from_json(f));
  return s;
}

GraphsSummary merge_graph_summaries(const std::vector<GraphsSummary>& parts) {
  if (parts.empty()) return {};
  GraphsSummary m = parts.front();
  m.findings.clear();
  merge_findings(m.findings, parts.front().findings);
  for (size_t k = 1; k < parts.size(); ++k) {
    const GraphsSummary& p = parts[k];
    m.graphs += p.graphs;
    m.valid += p.valid;
    m.op_nodes += p.op_nodes;
    m.drafts += p.drafts;
    m.refused += p.refused;
    m.redrawn_constant += p.redrawn_constant;
    sum_counts(m.storage_plans, p.storage_plans);
    m.malformed.drawn += p.malformed.drawn;
    m.malformed.refused += p.malformed.refused;
    sum_counts(m.malformed.by_kind, p.malformed.by_kind);
    for (const std::string& line : p.malformed.not_refused) {
      if (m.malformed.not_refused.size() < 10) m.malformed.not_refused.push_back(line);
    }
    sum_counts(m.malformed.disagreements, p.malformed.disagreements);
    for (const auto& [b, first] : p.malformed.first_disagreement) m.malformed.first_disagreement.emplace(b, first);
    m.seconds = std::max(m.seconds, p.seconds);  // the jobs ran side by side
    sum_counts(m.compared, p.compared);
    sum_counts(m.skipped, p.skipped);
    sum_counts(m.worker_restarts, p.worker_restarts);
    sum_counts(m.worker_requests, p.worker_requests);
    for (const auto& [b, why] : p.skip_reasons) m.skip_reasons.emplace(b, why);
    sum_counts(m.op_counts, p.op_counts);
    m.pairs.insert(p.pairs.begin(), p.pairs.end());
    m.chained.insert(p.chained.begin(), p.chained.end());
    for (const auto& [op, c] : p.invalid) {
      auto [it, fresh] = m.invalid.emplace(op, c);
      if (!fresh) it->second.first += c.first;
    }
    merge_findings(m.findings, p.findings);
  }
  std::sort(m.findings.begin(), m.findings.end(),
            [](const GraphFinding& a, const GraphFinding& b) { return a.first_model < b.first_model; });
  return m;
}

GraphsSummary run_graphs_jobs(const Registry& registry, const GraphsOptions& options, int jobs,
                              const std::function<void()>& in_child) {
  if (jobs <= 1) return run_graphs(registry, options);
  ForkedJobsOptions fork;
  fork.what = "graphs";
  const std::vector<std::string> outputs = run_forked_jobs(
      jobs,
      [&](int k, const JobCounters&) {
        if (in_child) in_child();
        GraphsOptions mine = options;
        mine.job_index = k;
        mine.job_count = jobs;
        mine.max_repros = options.max_repros / jobs + (k < options.max_repros % jobs ? 1 : 0);
        return summary_json(run_graphs(registry, mine)).dump();
      },
      fork);
  std::vector<GraphsSummary> parts;
  for (const std::string& text : outputs) parts.push_back(summary_from_json(nlohmann::json::parse(text)));
  return merge_graph_summaries(parts);
}

}  // namespace cvm::graph
