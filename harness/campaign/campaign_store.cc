#include "harness/campaign/campaign_store.h"

#include <map>
#include <sstream>

namespace cvm {

StoreRun campaign_store_run(const CampaignResult& result, StoreRun facts) {
  facts.kind = "campaign";
  facts.seed = result.seed;
  facts.seconds = result.seconds;
  facts.calls = result.calls;
  facts.resume = result.resume_state;
  // A run a signal stopped is interrupted (it fixes nothing); one that ran out its time or
  // calls is complete.
  facts.stopped = result.stopped.rfind("signal:", 0) == 0 ? result.stopped : "";
  std::map<std::string, int64_t> backend_cases;
  for (const auto& [op, row] : result.table) {
    const auto reference = row.find(kReferenceBackend);
    if (reference != row.end() && reference->second.cases > 0) facts.ops.push_back(op);
    for (const auto& [backend, cell] : row) backend_cases[backend] += cell.cases;
  }
  for (const std::string& backend : result.backends) {
    if (backend_cases[backend] > 0) facts.backends.push_back(backend);
  }
  if (result.shard_count > 1) {
    facts.group = "campaign seed " + std::to_string(result.seed) + " in " +
                  std::to_string(result.shard_count) + " shards at " + facts.commit;
  }
  return facts;
}

std::vector<StoreFinding> campaign_store_findings(const CampaignResult& result) {
  std::vector<StoreFinding> out;
  std::map<std::string, size_t> index;  // a signature's entry in `out`
  for (const Finding& f : result.findings) {
    const auto [it, first] = index.try_emplace(f.key, out.size());
    if (!first) {
      // The same signature, explained and unexplained calls apart: one finding in the store,
      // unexpected when any of its calls is, with the repro of the unexplained ones.
      StoreFinding& merged = out[it->second];
      merged.calls += f.calls;
      if (f.expected_by.empty()) {
        merged.expected_by.clear();
        if (!f.descriptor.empty()) merged.descriptor = f.descriptor;
        if (!f.repro_dir.empty()) merged.repro_dir = f.repro_dir;
        merged.summary = f.summary.substr(0, f.summary.find('\n'));
      }
      continue;
    }
    StoreFinding s;
    s.signature = f.key;
    s.op = f.op;
    s.backend = f.backend;
    s.summary = f.summary.substr(0, f.summary.find('\n'));
    s.descriptor = f.descriptor;
    s.repro_dir = f.repro_dir;
    s.calls = f.calls;
    s.expected_by = f.expected_by;
    out.push_back(std::move(s));
  }
  return out;
}

std::string store_summary(const StoreDelta& delta, const std::vector<StoreFinding>& findings,
                          const std::string& store_path, size_t max_lines) {
  std::map<std::string, int64_t> calls;
  for (const StoreFinding& f : findings) calls[f.signature] = f.calls;
  std::ostringstream out;
  out << "findings store " << store_path << ": run " << delta.run;
  if (delta.previous_run == 0) {
    out << " (the first)";
  } else {
    out << " (since run " << delta.previous_run
        << (delta.previous_commit.empty() ? "" : " at " + delta.previous_commit) << ")";
  }
  out << ": " << delta.fresh.size() << " new, " << delta.regressed.size() << " regressed, "
      << delta.open.size() << " still open, " << delta.fixed.size() << " fixed, "
      << delta.expected.size() << " expected\n";
  size_t shown = 0, total = 0;
  const auto list = [&](const char* label, const std::vector<std::string>& signatures) {
    for (const std::string& signature : signatures) {
      ++total;
      if (shown >= max_lines) continue;
      ++shown;
      out << "  " << label << signature;
      const auto c = calls.find(signature);
      if (c != calls.end()) out << "  (" << c->second << (c->second == 1 ? " call)" : " calls)");
      out << "\n";
    }
  };
  list("new        ", delta.fresh);
  list("regressed  ", delta.regressed);
  list("fixed      ", delta.fixed);
  list("open       ", delta.open);
  if (total > shown) {
    out << "  ... " << total - shown << " more: cvmcheck findings list --store " << store_path
        << "\n";
  }
  return out.str();
}

}  // namespace cvm
