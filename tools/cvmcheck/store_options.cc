#include "store_options.h"

#include <cstdio>
#include <iostream>

#include "harness/campaign/campaign_store.h"

namespace cvm::cli {

void add_store_options(CLI::App* sub, StoreCli& cli) {
  sub->add_option("--store", cli.store,
                  std::string("Findings store (SQLite) that remembers runs and findings across "
                              "runs: what is new, open, fixed (docs/nightly.md); without a "
                              "path: ") + kDefaultStore)
      ->expected(0, 1)
      ->default_str(kDefaultStore);
  sub->add_option("--fail-on", cli.fail_on,
                  "unexpected (default): exit 1 on any unexpected mismatch; new: only on findings "
                  "new or regressed since the store's last run; any: also on expected failures")
      ->check(CLI::IsMember({"unexpected", "new", "any"}));
}

std::string commit_under_test(const std::string& given) {
  if (!given.empty()) return given;
  FILE* pipe = ::popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");
  if (pipe == nullptr) return "";
  char line[64] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  ::pclose(pipe);
  std::string commit = read ? line : "";
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
  return commit;
}

std::optional<StoreDelta> record_in_store(const CampaignResult& result, const StoreCli& cli) {
  if (cli.store.empty()) return std::nullopt;
  FindingsStore store = FindingsStore::open(cli.store);
  StoreRun facts;
  facts.commit = result.commit;
  facts.started = result.started;
  facts.cpu_features = result.cpu_features;
  facts.version = CVMCHECK_VERSION;
  const StoreRun run = campaign_store_run(result, facts);
  StoreDelta delta = store.record(run, campaign_store_findings(result));
  std::cout << store_summary(delta, result, cli.store);
  return delta;
}

bool findings_fail(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                   const std::string& fail_on) {
  if (fail_on == "any") return result.mismatches > 0 || result.expected_failures > 0;
  if (fail_on == "new" && delta.has_value()) {
    return !delta->fresh.empty() || !delta->regressed.empty();
  }
  return result.mismatches > 0;
}

}  // namespace cvm::cli
