#include "report_store.h"

#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include "harness/campaign/expected_groups.h"
#include "harness/findings/findings_store.h"

namespace cvm::cli {
namespace {

nlohmann::json groups_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const ExpectedRuleGroup& g : group_expected_by_rule(findings)) {
    out.push_back({{"rule_id", g.rule_id},
                   {"label", g.label()},
                   {"entry", g.entry},
                   {"reason", g.reason},
                   {"lists", g.lists},
                   {"calls", g.calls},
                   {"findings", g.findings},
                   {"signatures", g.signatures}});
  }
  return out;
}

// Per run: how many findings it saw new, regressed, open and expected, and how many it fixed.
struct RunCounts {
  int64_t fresh = 0, regressed = 0, open = 0, expected = 0, fixed = 0;
};

nlohmann::json run_json(const StoredRun& r, const RunCounts& c) {
  return {{"id", r.id},
          {"kind", r.run.kind},
          {"started", r.run.started},
          {"commit", r.run.commit},
          {"seed", std::to_string(r.run.seed)},  // text: a JavaScript number would round it
          {"seconds", r.run.seconds},
          {"calls", r.run.calls},
          {"source", r.run.source},
          {"findings_seen", r.findings},
          {"new", c.fresh},
          {"regressed", c.regressed},
          {"open", c.open},
          {"expected", c.expected},
          {"fixed", c.fixed}};
}

nlohmann::json finding_json(const StoredFinding& f, const nlohmann::json& life) {
  nlohmann::json culprit = nullptr;
  if (!f.culprit.bisected.empty()) {
    culprit = {{"introduced", f.culprit.introduced},
               {"fixed", f.culprit.fixed},
               {"note", f.culprit.note},
               {"bisected", f.culprit.bisected}};
  }
  return {{"signature", f.signature},       {"op", f.op},
          {"backend", f.backend},           {"status", f.status},
          {"first_run", f.first_run},       {"first_commit", f.first_commit},
          {"last_run", f.last_run},         {"last_commit", f.last_commit},
          {"fixed_run", f.fixed_run},       {"fixed_commit", f.fixed_commit},
          {"runs_seen", f.runs_seen},       {"total_calls", f.total_calls},
          {"descriptor", f.descriptor},     {"repro_dir", f.repro_dir},
          {"culprit", culprit},             {"life", life}};
}

}  // namespace

nlohmann::json store_page_data(const std::string& path, size_t max_runs, size_t max_findings) {
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error("no findings store at " + path + " (--store names the SQLite file a "
                             "campaign --store wrote)");
  }
  const FindingsStore store = FindingsStore::open(path);
  const std::vector<StoredRun> runs = store.runs();
  const size_t skipped_runs = runs.size() > max_runs ? runs.size() - max_runs : 0;
  const int64_t first_shown = skipped_runs < runs.size() ? runs[skipped_runs].id : 0;
  std::map<int64_t, RunCounts> counts;
  std::map<std::string, nlohmann::json> lives;
  for (const StoredEvent& e : store.events()) {
    if (e.run < first_shown) continue;
    RunCounts& c = counts[e.run];
    c.fresh += e.status == "new" ? 1 : 0;
    c.regressed += e.status == "regressed" ? 1 : 0;
    c.open += e.status == "open" ? 1 : 0;
    c.expected += e.status == "expected" ? 1 : 0;
    c.fixed += e.status == "fixed" ? 1 : 0;
    lives[e.signature].push_back({{"run", e.run}, {"status", e.status}, {"calls", e.calls}});
  }
  nlohmann::json data{{"path", path}, {"runs_total", runs.size()}, {"runs", nlohmann::json::array()},
                      {"findings", nlohmann::json::array()}};
  for (size_t k = skipped_runs; k < runs.size(); ++k) {
    data["runs"].push_back(run_json(runs[k], counts[runs[k].id]));
  }
  std::vector<Finding> expected;
  size_t listed = 0, unlisted = 0;
  for (const StoredFinding& f : store.findings()) {  // the latest seen first
    if (f.status == "expected") {
      Finding e;
      e.key = f.signature;
      e.calls = f.total_calls;
      e.expected_by = f.expected_by;
      expected.push_back(std::move(e));
    } else if (listed < max_findings) {
      ++listed;
      const auto life = lives.find(f.signature);
      data["findings"].push_back(
          finding_json(f, life == lives.end() ? nlohmann::json::array() : life->second));
    } else {
      ++unlisted;
    }
  }
  data["findings_not_listed"] = unlisted;
  data["known_by_rule"] = groups_json(expected);
  return data;
}

nlohmann::json known_groups_data(const nlohmann::json& campaign_findings) {
  std::vector<Finding> findings;
  if (campaign_findings.is_array()) {
    for (const nlohmann::json& f : campaign_findings) {
      Finding c;
      c.key = f.value("signature", "");
      c.calls = f.value("calls", int64_t{0});
      c.expected_by = f.value("expected_by", "");
      findings.push_back(std::move(c));
    }
  }
  return groups_json(findings);
}

}  // namespace cvm::cli
