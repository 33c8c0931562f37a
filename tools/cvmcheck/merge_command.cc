// cvmcheck merge: the reports of a campaign's shards (`campaign --shard K/N`, one seed: a CI
// matrix, a cluster's job array) as one campaign's (docs/nightly.md, "Merging shards"):
// campaign.json and junit.xml, the table, one run in the findings store, and the campaign's exit
// status for the merged result. The merge itself is harness/campaign/campaign_merge.h.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "cvmcheck/errors.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_merge.h"
#include "harness/campaign/campaign_report.h"
#include "harness/campaign/campaign_shards.h"
#include "store_options.h"

namespace cvm::cli {
namespace {

namespace fs = std::filesystem;

struct MergeCli {
  std::vector<std::string> inputs;
  std::string report = "reports/campaign";
  std::string commit;
  int expect_shards = 0;
  std::string table = "screen";
  bool quiet = false;
  StoreCli store;
};

void add_options(CLI::App* sub, MergeCli& o) {
  sub->add_option("inputs", o.inputs,
                  "Each shard's report folder (holding campaign.json) or campaign.json; also an "
                  "earlier merge of some shards")
      ->required();
  sub->add_option("--report", o.report,
                  "Folder for the merged campaign.json and junit.xml (default reports/campaign)");
  add_store_options(sub, o.store);
  sub->add_option("--commit", o.commit,
                  "The commit under test: the reports must name it, or none (then they take it)");
  sub->add_option("--expect-shards", o.expect_shards,
                  "The shard count N: a shard lacking, or holding only its calls after a "
                  "resumption, is an error (exit 2) instead of a warning")
      ->check(CLI::PositiveNumber);
  sub->add_option("--table", o.table, "screen (default) or full, as cvmcheck campaign's")
      ->check(CLI::IsMember({"screen", "full"}));
  sub->add_flag("--quiet", o.quiet, "No table: the summary line, the reports and the store's lines");
}

// A shard's repros as its run recorded them (its --report folder/repros/NAME on the machine that
// ran it), found in the folder the report was given in when the recorded path is not there.
void locate_repros(CampaignResult& report, const fs::path& folder) {
  const auto located = [&folder](std::string& dir) {
    std::error_code error;
    if (dir.empty() || fs::exists(dir, error)) return;
    const fs::path here = folder / "repros" / fs::path(dir).filename();
    if (fs::exists(here, error)) dir = here.string();
  };
  for (Finding& f : report.findings) {
    located(f.repro_dir);
    for (std::string& dir : f.repro_dirs) located(dir);
  }
}

// The reports, named by their inputs; their commits set to --commit where they name none.
// LogicError naming the input that cannot be read or names another commit.
std::vector<CampaignResult> read_reports(const MergeCli& o) {
  std::vector<CampaignResult> reports;
  for (const std::string& input : o.inputs) {
    CampaignResult r = read_campaign_json(input);
    locate_repros(r, fs::is_directory(input) ? fs::path(input) : fs::path(input).parent_path());
    if (!o.commit.empty()) {
      verify(r.commit.empty() || r.commit == o.commit, input, " is of commit ", r.commit,
             ", not of --commit ", o.commit);
      r.commit = o.commit;
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

// The shards lacking (and partial), as an error under --expect-shards, else as a warning.
// False when that is an error.
bool judge_coverage(const CampaignResult& merged, int expected) {
  std::vector<int> lacking;
  size_t held = 0;
  for (int k = 0; k < merged.shard_count; ++k) {
    if (held < merged.merged_shards.size() && merged.merged_shards[held] == k) {
      ++held;
    } else {
      lacking.push_back(k);
    }
  }
  const bool error = expected > 0;
  const char* what = error ? "cvmcheck merge: " : "cvmcheck merge: warning: ";
  if (error && expected != merged.shard_count) {
    std::cerr << what << "--expect-shards " << expected << ", but the reports are shards of "
              << merged.shard_count << "\n";
    return false;
  }
  if (!lacking.empty()) {
    std::cerr << what << shard_list(lacking) << " of " << merged.shard_count
              << " lacking: the merged report holds only " << shard_list(merged.merged_shards)
              << "\n";
  }
  if (!merged.partial_shards.empty()) {
    std::cerr << what << shard_list(merged.partial_shards)
              << " holding only the calls after a resumption: the report of the run it "
                 "resumed from is not among the inputs\n";
  }
  return !error || (lacking.empty() && merged.partial_shards.empty());
}

void write_report_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

int run_merge(const MergeCli& o) {
  CampaignResult merged;
  try {
    merged = merge_campaign(read_reports(o), MergeOf::kShards, o.inputs).result;
  } catch (const LogicError& e) {
    std::cerr << "cvmcheck merge: " << e.what() << "\n";
    return kExitUsage;
  }
  if (!judge_coverage(merged, o.expect_shards)) return kExitUsage;
  fs::create_directories(o.report);
  write_report_file(fs::path(o.report) / "campaign.json", campaign_json(merged));
  write_report_file(fs::path(o.report) / "junit.xml", campaign_junit(merged));
  if (!o.quiet) {
    std::cout << campaign_table(merged, o.table == "full" ? TableStyle::kFull : TableStyle::kScreen);
  }
  std::cout << "merged " << merged.merged_shards.size() << " of " << merged.shard_count
            << " shards of seed " << merged.seed << " (" << o.inputs.size() << " reports): "
            << merged.calls << " calls, " << merged.mismatches << " mismatching, "
            << merged.findings.size() << " findings\n"
            << "report: " << o.report << "/campaign.json, " << o.report << "/junit.xml\n";
  const std::optional<StoreDelta> delta = record_in_store(merged, o.store);
  return campaign_exit_status(merged, delta, o.store.fail_on);
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeCli>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge the reports of a campaign's shards into one (docs/nightly.md)");
  add_options(sub, *o);
  return [o] { return run_merge(*o); };
}

}  // namespace cvm::cli
