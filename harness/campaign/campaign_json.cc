#include "harness/campaign/campaign_json.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/campaign/campaign_paths.h"

namespace cvm {

namespace {

nlohmann::json table_json(const CampaignResult& result) {
  nlohmann::json table = nlohmann::json::object();
  for (const auto& [op, row] : result.table) {
    for (const auto& [backend, c] : row) {
      table[op][backend] = {{"cases", c.cases},           {"ok", c.ok},
                            {"logic_error", c.logic_error}, {"runtime_error", c.runtime_error},
                            {"mismatches", c.mismatches}, {"skipped", c.skipped},
                            {"expected", c.expected}};
    }
  }
  return table;
}

nlohmann::json finding_json(const Finding& f) {
  return {{"op", f.op},
          {"backend", f.backend},
          {"rule", f.rule},
          {"case_seed", f.case_seed},
          {"signature", f.key},
          {"calls", f.calls},
          {"repro_dir", f.repro_dir},
          {"repro_dirs", f.repro_dirs},
          {"drawn_input_elements", f.original_elements},
          {"repro_input_elements", f.shrunk_elements},
          {"expected_by", f.expected_by},
          {"first_index", f.first_index},
          {"descriptor", f.descriptor},
          {"descriptor_note", f.descriptor_note},
          {"duplicate_repros", f.duplicate_repros},
          {"report", f.summary}};
}

// "K/N" for one run's shard; for a merge, "merged H of N" and which shards it holds and lacks
// (1-based, as --shard names them).
void shard_json(const CampaignResult& result, nlohmann::json& json) {
  if (result.merged_shards.empty()) {
    json["shard"] =
        std::to_string(result.shard_index + 1) + "/" + std::to_string(result.shard_count);
    return;
  }
  json["shard"] = "merged " + std::to_string(result.merged_shards.size()) + " of " +
                  std::to_string(result.shard_count);
  const std::set<int> held(result.merged_shards.begin(), result.merged_shards.end());
  nlohmann::json shards = {{"count", result.shard_count},
                           {"held", nlohmann::json::array()},
                           {"lacking", nlohmann::json::array()},
                           {"partial", nlohmann::json::array()}};
  for (int k = 0; k < result.shard_count; ++k) {
    shards[held.count(k) != 0 ? "held" : "lacking"].push_back(k + 1);
  }
  for (int k : result.partial_shards) shards["partial"].push_back(k + 1);
  json["shards"] = shards;
}

}  // namespace

std::string campaign_json(const CampaignResult& result) {
  nlohmann::json json;
  json["seed"] = result.seed;
  shard_json(result, json);
  json["seconds"] = result.seconds;
  json["calls"] = result.calls;
  json["mismatching_calls"] = result.mismatches;
  json["expected_failures"] = result.expected_failures;
  json["unexpected_passes"] = result.unexpected_passes;
  json["stale_expectations"] = result.stale_expectations;
  json["repros_written"] = result.repros_written;
  json["shrink_seconds"] = result.shrink_seconds;
  json["repro_bytes"] = result.repro_bytes;
  json["nothing_compared"] = result.nothing_compared;
  json["declared_not_compared"] = result.declared_not_compared;
  json["not_applicable"] = result.not_applicable;
  json["paths"] = paths_json(result.paths);
  json["generator_failures"] = result.generator_failures;
  json["backends"] = result.backends;
  json["skipped_backends"] = result.skip_reasons;
  json["precision_not_compared"] = result.precision_not_compared;
  json["phase_seconds"] = result.phase_seconds;
  json["planned_share"] = result.planned_share;
  json["aimed_calls"] = result.aimed_calls;
  json["page_faults"] = {{"minor", result.minor_faults}, {"major", result.major_faults}};
  json["cpu_seconds"] = result.cpu_seconds;
  json["run"] = {{"commit", result.commit},
                 {"cpu_features", result.cpu_features},
                 {"started", result.started},
                 {"stopped", result.stopped},
                 {"seconds_requested", result.seconds_requested},
                 {"max_cases", result.max_cases},
                 {"block_calls", result.block_calls},
                 {"resumed_from", result.resumed_from},
                 {"default_scope", result.default_scope},
                 {"verdict_flags", result.verdict_flags}};
  json["resume_state"] = result.resume_state;
  json["table"] = table_json(result);
  json["op_seconds"] = nlohmann::json::object();
  for (const auto& [op, row] : result.table) {
    const auto it = result.op_seconds.find(op);
    json["op_seconds"][op] = it == result.op_seconds.end() ? 0.0 : it->second;
  }
  json["findings"] = nlohmann::json::array();
  for (const Finding& f : result.findings) json["findings"].push_back(finding_json(f));
  return json.dump(2) + "\n";
}

namespace {

// "K/N" (1 <= K <= N), or a merge's "shards" object.
void read_shard(const nlohmann::json& j, CampaignResult& r) {
  if (j.contains("shards")) {
    const nlohmann::json& shards = j.at("shards");
    r.shard_count = shards.at("count").get<int>();
    verify(r.shard_count >= 1, "shards.count ", r.shard_count, " is not a shard count");
    std::set<int> held;
    for (const int k : shards.at("held").get<std::vector<int>>()) {
      verify(k >= 1 && k <= r.shard_count && held.insert(k - 1).second, "shards.held names ",
                  k, " out of range or twice");
    }
    verify(!held.empty(), "shards.held is empty");
    r.merged_shards.assign(held.begin(), held.end());
    r.shard_index = r.merged_shards.front();
    for (const int k : shards.value("partial", std::vector<int>{})) {
      verify(held.count(k - 1) != 0, "shards.partial names ", k, ", a shard not held");
      r.partial_shards.push_back(k - 1);
    }
    return;
  }
  const std::string shard = j.value("shard", std::string("1/1"));
  int k = 0, n = 0;
  char slash = 0, extra = 0;
  std::istringstream in(shard);
  const bool parsed = static_cast<bool>(in >> k >> slash >> n) && slash == '/' && !(in >> extra);
  verify(parsed && n >= 1 && k >= 1 && k <= n, "shard '", shard, "' is not K/N");
  r.shard_index = k - 1;
  r.shard_count = n;
}

void read_counts(const nlohmann::json& j, CampaignResult& r) {
  r.seed = j.at("seed").get<uint64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.calls = j.at("calls").get<int64_t>();
  r.mismatches = j.at("mismatching_calls").get<int64_t>();
  r.generator_failures = j.value("generator_failures", int64_t{0});
  r.expected_failures = j.value("expected_failures", int64_t{0});
  r.unexpected_passes = j.value("unexpected_passes", std::vector<std::string>{});
  r.stale_expectations = j.value("stale_expectations", std::vector<std::string>{});
  r.repros_written = j.value("repros_written", int64_t{0});
  r.shrink_seconds = j.value("shrink_seconds", 0.0);
  r.repro_bytes = j.value("repro_bytes", int64_t{0});
  r.skip_reasons = j.value("skipped_backends", std::map<std::string, std::string>{});
  r.precision_not_compared = j.value("precision_not_compared", std::set<std::string>{});
  r.nothing_compared = j.value("nothing_compared", std::map<std::string, std::string>{});
  r.declared_not_compared =
      j.value("declared_not_compared", std::map<std::string, std::set<std::string>>{});
  r.not_applicable = j.value("not_applicable", std::map<std::string, std::string>{});
  r.op_seconds = j.value("op_seconds", std::map<std::string, double>{});
  r.phase_seconds = j.value("phase_seconds", std::map<std::string, double>{});
  r.planned_share = j.value("planned_share", std::map<std::string, double>{});
  r.aimed_calls = j.value("aimed_calls", std::map<std::string, int64_t>{});
  r.resume_state = j.value("resume_state", std::string());
  if (j.contains("page_faults")) {
    r.minor_faults = j.at("page_faults").value("minor", int64_t{0});
    r.major_faults = j.at("page_faults").value("major", int64_t{0});
  }
  r.cpu_seconds = j.value("cpu_seconds", 0.0);
  if (j.contains("paths")) r.paths = paths_from_json(j.at("paths"));
}

// The table, with a cell for every backend in every row (the reports index it so).
void read_table(const nlohmann::json& j, CampaignResult& r) {
  r.backends = j.at("backends").get<std::vector<std::string>>();
  verify(!r.backends.empty() && r.backends.front() == kReferenceBackend,
              "backends does not start with the reference");
  for (const auto& [op, row] : j.at("table").items()) {
    for (const auto& [backend, c] : row.items()) {
      CampaignCell& cell = r.table[op][backend];
      cell.cases = c.at("cases").get<int64_t>();
      cell.ok = c.value("ok", int64_t{0});
      cell.logic_error = c.value("logic_error", int64_t{0});
      cell.runtime_error = c.value("runtime_error", int64_t{0});
      cell.mismatches = c.value("mismatches", int64_t{0});
      cell.skipped = c.value("skipped", int64_t{0});
      cell.expected = c.value("expected", int64_t{0});
    }
  }
  for (auto& [op, row] : r.table) {
    for (const std::string& backend : r.backends) row[backend];
  }
}

void read_run(const nlohmann::json& j, CampaignResult& r) {
  if (!j.contains("run")) return;
  const nlohmann::json& run = j.at("run");
  r.commit = run.value("commit", std::string());
  r.cpu_features = run.value("cpu_features", std::string());
  r.started = run.value("started", std::string());
  r.stopped = run.value("stopped", std::string());
  r.seconds_requested = run.value("seconds_requested", 0.0);
  r.max_cases = run.value("max_cases", int64_t{-1});
  r.block_calls = run.value("block_calls", kDefaultBlockCalls);
  verify(r.block_calls >= 1, "run.block_calls ", r.block_calls, " is not a block");
  r.resumed_from = run.value("resumed_from", std::string());
  r.default_scope = run.value("default_scope", false);
  r.verdict_flags = run.value("verdict_flags", std::set<std::string>{});
}

void read_findings(const nlohmann::json& j, CampaignResult& r) {
  for (const nlohmann::json& f : j.at("findings")) {
    Finding finding;
    finding.op = f.at("op").get<std::string>();
    finding.backend = f.at("backend").get<std::string>();
    finding.key = f.at("signature").get<std::string>();
    finding.calls = f.at("calls").get<int64_t>();
    finding.rule = f.value("rule", std::string());
    finding.case_seed = f.value("case_seed", uint64_t{0});
    finding.repro_dir = f.value("repro_dir", std::string());
    finding.repro_dirs = f.value("repro_dirs", std::vector<std::string>{});
    finding.original_elements = f.value("drawn_input_elements", int64_t{0});
    finding.shrunk_elements = f.value("repro_input_elements", int64_t{0});
    finding.expected_by = f.value("expected_by", std::string());
    finding.first_index = f.value("first_index", uint64_t{0});
    finding.summary = f.value("report", std::string());
    finding.descriptor = f.value("descriptor", std::string());
    finding.descriptor_note = f.value("descriptor_note", std::string());
    finding.duplicate_repros = f.value("duplicate_repros", int64_t{0});
    r.findings.push_back(std::move(finding));
  }
}

}  // namespace

CampaignResult campaign_from_json(const nlohmann::json& json) {
  CampaignResult result;
  try {
    verify(json.is_object(), "not a JSON object");
    read_shard(json, result);
    read_counts(json, result);
    read_table(json, result);
    read_run(json, result);
    read_findings(json, result);
  } catch (const nlohmann::json::exception& e) {
    fail_logic("not a campaign report (campaign.json): ", e.what());
  } catch (const std::logic_error& e) {
    fail_logic("not a campaign report (campaign.json): ", e.what());
  }
  return result;
}

CampaignResult read_campaign_json(const std::string& path) {
  const std::filesystem::path file = std::filesystem::is_directory(path)
                                         ? std::filesystem::path(path) / "campaign.json"
                                         : std::filesystem::path(path);
  std::ifstream in(file, std::ios::binary);
  verify(in.good(), "cannot read ", file.string());
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail_logic(file.string(), ": not JSON: ", e.what());
  }
  try {
    return campaign_from_json(json);
  } catch (const LogicError& e) {
    fail_logic(file.string(), ": ", e.what());
  }
}

}  // namespace cvm
