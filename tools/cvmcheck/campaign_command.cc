// cvmcheck campaign: the main job. A time-boxed differential campaign over every operator and
// backend with a live progress line, ending in the conformance table; --report writes it as JSON
// and JUnit XML. Exit status 1 on any mismatch.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

#include "backends/registry.h"
#include "commands.h"
#include "harness/campaign.h"

namespace cvm::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

Action add_campaign_command(CLI::App& app) {
  struct Options {
    double seconds = 20;
    int64_t max_cases = -1;
    std::string ops, backends, report;
    uint64_t seed = 0;
    double invalid_share = 0.3;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "campaign", "Time-boxed differential campaign over operators and backends (the main job)");
  sub->add_option("--seconds", o->seconds, "Time box in seconds (default 20)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--max-cases", o->max_cases, "Stop after this many calls");
  sub->add_option("--ops", o->ops, "Comma-separated operators (default: all)");
  sub->add_option("--backends", o->backends,
                  "Comma-separated backends compared with the reference (default: all)");
  sub->add_option("--seed", o->seed, "Seed (default: random, printed; the same seed replays)");
  sub->add_option("--report", o->report,
                  "Directory for campaign.json, junit.xml and repro case directories");
  sub->add_option("--invalid-share", o->invalid_share,
                  "Share of calls that break one validity rule (default 0.3)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_flag("--quiet", o->quiet, "No progress line");
  return [o] {
    CampaignOptions options;
    options.seconds = o->seconds;
    options.max_cases = o->max_cases;
    options.ops = split_list(o->ops);
    options.backends = split_list(o->backends);
    options.invalid_share = o->invalid_share;
    options.seed = o->seed != 0 ? o->seed : std::random_device{}() * 0x100000001ULL + 1;
    options.repro_root = o->report.empty() ? "cvmcheck-repros" : o->report + "/repros";
    std::cerr << "cvmcheck campaign: seed " << options.seed << ", " << options.seconds
              << " s; replay with --seed " << options.seed << "\n";
    const bool tty = isatty(STDERR_FILENO) != 0;
    double last_line = -10;
    auto progress = [&](const CampaignResult& r, double elapsed) {
      if (o->quiet) return;
      if (!tty && elapsed - last_line < 5) return;
      last_line = elapsed;
      std::ostringstream line;
      line << "[" << std::fixed << std::setprecision(1) << std::setw(6) << elapsed << " s] "
           << r.calls << " calls, " << std::setprecision(0)
           << (elapsed > 0 ? static_cast<double>(r.calls) / elapsed : 0.0) << " calls/s, "
           << r.mismatches << " mismatches, " << r.findings.size() << " findings";
      std::cerr << (tty ? "\r" : "") << line.str() << (tty ? "   " : "\n") << std::flush;
    };
    const CampaignResult result = run_campaign(registry(), options, progress);
    if (!o->quiet && tty) std::cerr << "\n";
    std::cout << campaign_table(result);
    for (const CampaignFinding& f : result.findings) {
      std::cout << "\nFINDING " << f.key << " (case seed " << f.case_seed << ")\n" << f.summary;
    }
    if (!o->report.empty()) {
      std::filesystem::create_directories(o->report);
      write_file(std::filesystem::path(o->report) / "campaign.json", campaign_json(result));
      write_file(std::filesystem::path(o->report) / "junit.xml", campaign_junit(result));
      std::cout << "report: " << o->report << "/campaign.json, " << o->report << "/junit.xml\n";
    }
    return result.mismatches == 0 ? kExitOk : kExitMismatch;
  };
}

}  // namespace cvm::cli
