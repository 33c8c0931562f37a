#include "store_options.h"
#include "store_session.h"

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "harness/campaign/campaign_store.h"

namespace cvm::cli {

void add_store_option(CLI::App* sub, StoreCli& cli) {
  sub->add_option("--store", cli.store,
                  std::string("Findings store (SQLite) that remembers runs and findings across "
                              "runs: what is new, open, fixed (docs/nightly.md); without a "
                              "path: ") + kDefaultStore)
      ->expected(0, 1)
      ->default_str(kDefaultStore);
}

void add_store_options(CLI::App* sub, StoreCli& cli, const std::string& what_fails) {
  add_store_option(sub, cli);
  sub->add_option("--fail-on", cli.fail_on,
                  "unexpected (default): exit 1 on any unexpected " + what_fails +
                      "; new: only on findings new or regressed since the store's last run; any: "
                      "also on expected failures")
      ->check(CLI::IsMember({"unexpected", "new", "any"}));
}

void add_commit_option(CLI::App* sub, std::string& commit) {
  sub->add_option("--commit", commit,
                  "The commit under test, as campaign.json, the report and the store name it "
                  "(default: HEAD of the working directory, when it is a git checkout)");
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

StoreRun store_run_facts(const std::string& commit_option, const std::string& started) {
  StoreRun facts;
  facts.commit = commit_under_test(commit_option);
  facts.started = started;
  facts.cpu_features = cpu_description();
  facts.version = CVMCHECK_VERSION;
  return facts;
}

std::optional<StoreDelta> record_in_store(const StoreRun& run,
                                          const std::vector<StoreFinding>& findings,
                                          const StoreCli& cli) {
  if (cli.store.empty()) return std::nullopt;
  FindingsStore store = FindingsStore::open(cli.store);
  print_abandoned_runs(std::cout, store.close_abandoned(), cli.store);
  StoreDelta delta = store.record(run, findings);
  std::cout << store_summary(delta, findings, cli.store);
  return delta;
}

std::optional<StoreDelta> record_in_store(const CampaignResult& result, const StoreCli& cli) {
  if (cli.store.empty()) return std::nullopt;
  StoreRun facts;
  facts.commit = result.commit;
  facts.started = result.started;
  facts.cpu_features = result.cpu_features;
  facts.version = CVMCHECK_VERSION;
  return record_in_store(campaign_store_run(result, facts), campaign_store_findings(result), cli);
}

}  // namespace cvm::cli
