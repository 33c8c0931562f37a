#include "store_options.h"

#include <cstdio>
#include <ctime>
#include <iostream>

#include "harness/campaign/campaign_store.h"
#include "optimized/cpu_features.h"

namespace cvm::cli {

void add_store_options(CLI::App* sub, StoreCli& cli) {
  sub->add_option("--store", cli.store,
                  std::string("Findings store (SQLite) that remembers runs and findings across "
                              "runs: what is new, open, fixed (docs/nightly.md); without a "
                              "path: ") + kDefaultStore)
      ->expected(0, 1)
      ->default_str(kDefaultStore);
  sub->add_option("--commit", cli.commit,
                  "The commit under test, as the store and reports name it (default: HEAD of the "
                  "working directory's checkout)");
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

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

StoreRun run_facts(const std::string& commit, const std::string& started) {
  StoreRun facts;
  facts.commit = commit;
  facts.started = started;
  facts.version = CVMCHECK_VERSION;
  facts.cpu_features = std::string("nn kernels: ") + opt::active_isa_name();
  return facts;
}

std::optional<StoreDelta> record_in_store(const CampaignResult& result, const StoreCli& cli,
                                          const std::string& started) {
  if (cli.store.empty()) return std::nullopt;
  FindingsStore store = FindingsStore::open(cli.store);
  const StoreRun run =
      campaign_store_run(result, run_facts(commit_under_test(cli.commit), started));
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
