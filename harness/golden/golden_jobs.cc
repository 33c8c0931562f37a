#include "harness/golden/golden_jobs.h"

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/jobs/forked_jobs.h"

namespace cvm {

// Every field of GoldenCaseResult and GoldenVerifyResult travels: a field added there must be
// added here, or --jobs loses it.
nlohmann::json golden_result_json(const GoldenVerifyResult& result,
                                  const ExpectationSet& expected) {
  nlohmann::json cases = nlohmann::json::array();
  for (const GoldenCaseResult& c : result.cases) {
    cases.push_back({{"op", c.op},
                     {"name", c.name},
                     {"status", c.status},
                     {"detail", c.detail},
                     {"expectation", c.expectation},
                     {"signature", c.signature},
                     {"case_dir", c.case_dir},
                     {"descriptor", c.descriptor}});
  }
  nlohmann::json uses = nlohmann::json::array();
  for (const auto& [list, entries] : expected.by_backend) {
    for (size_t i = 0; i < entries.entries().size(); ++i) {
      const auto it = result.uses.find(&entries.entries()[i]);
      if (it == result.uses.end()) continue;
      uses.push_back({{"list", list},
                      {"index", i},
                      {"failures", it->second.failures},
                      {"passes", it->second.passes}});
    }
  }
  return {{"cases", cases},   {"per_op", result.per_op}, {"stale", result.stale},
          {"uses", uses},     {"precision_compared", result.precision_compared}};
}

GoldenVerifyResult golden_result_from_json(const nlohmann::json& json,
                                           const ExpectationSet& expected) {
  GoldenVerifyResult result;
  for (const nlohmann::json& c : json.at("cases")) {
    result.cases.push_back({c.at("op"), c.at("name"), c.at("status"), c.at("detail"),
                            c.at("expectation"), c.at("signature"), c.at("case_dir"),
                            c.at("descriptor")});
  }
  result.per_op = json.at("per_op").get<std::map<std::string, std::map<std::string, int64_t>>>();
  result.stale = json.at("stale").get<std::vector<std::string>>();
  result.precision_compared = json.at("precision_compared").get<bool>();
  for (const nlohmann::json& u : json.at("uses")) {
    const auto list = expected.by_backend.find(u.at("list").get<std::string>());
    const size_t index = u.at("index").get<size_t>();
    check(list != expected.by_backend.end() && index < list->second.entries().size(),
          "golden verify job: an expectation use names no entry");
    const ExpectationEntry* entry = &list->second.entries()[index];
    EntryUse& use = result.uses[entry];
    use.failures += u.at("failures").get<int64_t>();
    use.passes += u.at("passes").get<int64_t>();
  }
  return result;
}

GoldenVerifyResult merge_golden_jobs(const std::vector<GoldenVerifyResult>& parts,
                                     const ExpectationSet& expected) {
  check(!parts.empty(), "no golden verify jobs to merge");
  const size_t n = parts.size();
  size_t total = 0;
  for (const GoldenVerifyResult& part : parts) total += part.cases.size();
  GoldenVerifyResult merged;
  // Case k of the manifest is row k / N of part k % N.
  for (size_t k = 0; k < total; ++k) {
    const GoldenVerifyResult& part = parts[k % n];
    check(k / n < part.cases.size(), "golden verify job ", k % n + 1, " of ", n,
          " returned too few cases");
    merged.cases.push_back(part.cases[k / n]);
  }
  for (const GoldenVerifyResult& part : parts) {
    merged.precision_compared = merged.precision_compared && part.precision_compared;
    for (const auto& [op, counts] : part.per_op) {
      for (const auto& [status, count] : counts) merged.per_op[op][status] += count;
    }
    for (const auto& [entry, use] : part.uses) {
      EntryUse& into = merged.uses[entry];
      into.failures += use.failures;
      into.passes += use.passes;
    }
  }
  merged.stale = stale_entries(expected, merged.uses);  // over every job's uses
  return merged;
}

std::vector<GoldenVerifyResult> verify_golden_jobs(const Registry& registry,
                                                   const std::string& dir,
                                                   const std::vector<std::string>& backends,
                                                   const ExpectationSet& expected, int jobs,
                                                   const std::function<void(int)>& in_child) {
  ForkedJobsOptions fork;
  fork.what = "golden verify";
  const std::vector<std::string> outputs = run_forked_jobs(
      jobs,
      [&](int k, const JobCounters&) {
        if (in_child) in_child(k);
        nlohmann::json out = nlohmann::json::array();
        for (const std::string& backend : backends) {
          out.push_back(golden_result_json(
              verify_golden(registry, dir, backend, expected, GoldenVerifyPart{k, jobs}),
              expected));
        }
        return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      fork);
  std::vector<GoldenVerifyResult> merged;
  std::vector<nlohmann::json> parsed;
  for (const std::string& text : outputs) parsed.push_back(nlohmann::json::parse(text));
  for (size_t b = 0; b < backends.size(); ++b) {
    std::vector<GoldenVerifyResult> parts;
    for (const nlohmann::json& job : parsed) {
      parts.push_back(golden_result_from_json(job.at(b), expected));
    }
    merged.push_back(merge_golden_jobs(parts, expected));
  }
  return merged;
}

}  // namespace cvm
