#include "harness/golden/golden_store.h"

#include <map>
#include <set>

namespace cvm {
namespace {

bool judged(const GoldenCaseResult& c) {
  return c.status == "pass" || c.status == "fail" || c.status == "xfail" || c.status == "xpass";
}

StoreFinding finding_of(const GoldenCaseResult& c, const std::string& backend) {
  StoreFinding f;
  f.signature = c.signature;
  f.op = c.op;
  f.backend = backend;
  const std::string detail = c.detail.substr(0, c.detail.find('\n'));
  f.summary = c.op + "/" + c.name + (detail.empty() ? "" : ": " + detail);
  f.descriptor = c.descriptor;
  f.repro_dir = c.case_dir;
  f.calls = 1;
  if (c.status == "xfail") f.expected_by = c.expectation;
  return f;
}

}  // namespace

StoreRun golden_store_run(const std::string& dir, const std::vector<std::string>& backends,
                          const std::vector<GoldenVerifyResult>& results, StoreRun facts) {
  facts.kind = "golden";
  facts.seed = 0;
  facts.source = dir;
  facts.calls = 0;
  std::set<std::string> ops;
  for (size_t k = 0; k < backends.size() && k < results.size(); ++k) {
    int64_t cases = 0;
    for (const GoldenCaseResult& c : results[k].cases) {
      if (!judged(c)) continue;
      ++cases;
      ops.insert(c.op);
    }
    facts.calls += cases;
    if (cases > 0) facts.backends.push_back(backends[k]);
  }
  facts.ops.assign(ops.begin(), ops.end());
  return facts;
}

std::vector<StoreFinding> golden_store_findings(const std::vector<std::string>& backends,
                                                const std::vector<GoldenVerifyResult>& results) {
  std::vector<StoreFinding> out;
  std::map<std::string, size_t> index;  // a signature's entry in `out`
  for (size_t k = 0; k < backends.size() && k < results.size(); ++k) {
    for (const GoldenCaseResult& c : results[k].cases) {
      if ((c.status != "fail" && c.status != "xfail") || c.signature.empty()) continue;
      const auto [it, first] = index.try_emplace(c.signature, out.size());
      if (first) {
        out.push_back(finding_of(c, backends[k]));
        continue;
      }
      // The same signature, listed and unlisted cases apart: one finding, unexpected when any
      // of its cases is, with the first unlisted case as its repro (as the campaign merges).
      StoreFinding& merged = out[it->second];
      ++merged.calls;
      if (c.status == "fail" && !merged.expected_by.empty()) {
        const int64_t calls = merged.calls;
        merged = finding_of(c, backends[k]);
        merged.calls = calls;
      }
    }
  }
  return out;
}

}  // namespace cvm
