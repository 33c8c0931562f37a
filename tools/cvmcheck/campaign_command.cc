// cvmcheck campaign: the main job. A time-boxed differential campaign over every operator and
// backend with a live progress line, ending in the conformance table; --report writes it as JSON
// and JUnit XML. Exit status 1 on any mismatch.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "registry/registry.h"
#include "commands.h"
#include "jobs_option.h"
#include "exec_options.h"
#include "store_options.h"
#include "store_session.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_exit.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_report.h"
#include "harness/campaign/campaign_resume.h"
#include "harness/campaign/campaign_jobs.h"
#include "harness/campaign/campaign_summary.h"
#include "harness/engine/diff.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/jobs/stop_signal.h"
#include "optimized/kernels.h"
#include "optimized/paths.h"

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

// The command line's settings, as parsed.
struct CampaignCli {
  double seconds = 20;
  int64_t max_cases = -1;
  std::string ops, backends, report, shard, commit, resume_from;
  uint64_t seed = 0;
  double invalid_share = 0.3;
  bool quiet = false, allow_nothing_compared = false, allow_unreached_paths = false, profile = false;
  bool require_paths = false, resume = false;
  double checkpoint_seconds = 2;
  std::string table = "screen";
  int max_repros = 20, repros_per_signature = 1;
  int64_t max_repro_bytes = 16 << 20;
  double shrink_seconds = 2;
  std::vector<std::string> backend_list;
  XfailCli xfail;
  int jobs = 0;
  uint64_t block_calls = kDefaultBlockCalls;
  ExecCli exec;
  StoreCli store;
};

void add_options(CLI::App* sub, CampaignCli& o) {
  sub->add_option("--seconds", o.seconds, "Time box in seconds (default 20)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--max-cases", o.max_cases,
                  "Stop after this many calls; with --shard or --jobs, the campaign's first N "
                  "calls however it is cut");
  sub->add_option("--ops", o.ops, "Comma-separated operators (default: all)");
  sub->add_option("--backends", o.backends,
                  "Comma-separated backends compared with the reference (default: all built-in "
                  "and --backend-def ones)");
  sub->add_option("--backend", o.backend_list,
                  "One more backend (repeatable; for exec:COMMAND holding commas)");
  add_exec_options(sub, o.exec);
  add_xfail_options(sub, o.xfail);
  add_store_options(sub, o.store);
  sub->add_option("--seed", o.seed, "Seed (default: random, printed; the same seed replays)");
  sub->add_option("--report", o.report,
                  "Directory for campaign.json, junit.xml and repro case directories");
  sub->add_option("--invalid-share", o.invalid_share,
                  "Share of calls that break one validity rule (default 0.3)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--max-repros", o.max_repros,
                  "Repro directories in all beyond each finding's first, which is always written "
                  "within the byte bound (default 20; 0: no repros)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--repros-per-signature", o.repros_per_signature,
                  "Repro directories per finding signature (default 1)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-repro-bytes", o.max_repro_bytes,
                  "No new repro once this many bytes are written (default 16 MiB)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--shrink-seconds", o.shrink_seconds,
                  "Time to shrink each finding before its repro is saved (default 2; 0: none)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--allow-nothing-compared", o.allow_nothing_compared,
                "Exploratory runs: do not fail when a selected backend compared no call");
  CLI::Option* allow_paths = sub->add_flag(
      "--allow-unreached-paths", o.allow_unreached_paths,
      "A run of the default scope (every operator, the default backends) fails when a declared "
      "kernel path in scope was never reached; this accepts it (a short run). A narrower run only "
      "warns (docs/paths.md)");
  sub->add_flag("--require-paths", o.require_paths,
                "Fail on an unreached declared kernel path in any run, narrow ones too")
      ->excludes(allow_paths);
  CLI::Option* resume = sub->add_flag(
      "--resume", o.resume,
      "With --store: go on from the latest interrupted run (of --seed, if given, and --shard) at "
      "the call it had reached, with its schedule; the same --jobs");
  sub->add_option("--resume-from", o.resume_from,
                  "A run's campaign.json: go on from where that run stopped (its seed and "
                  "schedule), with no store; the same --shard and --jobs (a requeued Slurm "
                  "shard: docs/nightly.md, \"On a cluster\")")
      ->excludes(resume);
  sub->add_option("--checkpoint-seconds", o.checkpoint_seconds,
                  "With --store: record the findings so far this often, so that a killed run "
                  "keeps them (default 2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--shard", o.shard,
                  "K/N: make only shard K of N (1-based) of the seed's calls (every N-th block); "
                  "shards of one seed are disjoint, make the unsharded run's calls together, and "
                  "their reports merge (cvmcheck merge)");
  sub->add_option("--jobs", o.jobs,
                  "Processes sharing the campaign (default 0: one per core), each making every "
                  "N-th block of calls: the same seed makes the same calls with any number of "
                  "jobs; --max-cases bounds them in all")
      ->check(CLI::Range(0, 1024));
  sub->add_option("--block-calls", o.block_calls,
                  "Calls one schedule draws from its start (default 65536): the unit that "
                  "shards and jobs deal out; the same for every cut of one campaign")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_flag("--quiet", o.quiet, "No progress line");
  sub->add_option("--table", o.table,
                  "screen (default): one row per operator, one column per backend, findings one "
                  "line each; full: one row per operator x backend with every count, and each "
                  "finding's call and report")
      ->check(CLI::IsMember({"screen", "full"}));
  add_commit_option(sub, o.commit);
  sub->add_flag("--profile", o.profile,
                "After the table, where the time went: draw, each backend's runs, compare and "
                "bookkeeping (seconds, share, us per call), and calls/s, page faults per call and "
                "CPUs used (ci/bench-harness.sh)");
}

// --shard K/N into options; false (with the message printed) when it is not one.
bool parse_shard(const std::string& text, CampaignOptions& options) {
  if (text.empty()) return true;
  int k = 0, n = 0;
  char slash = 0, extra = 0;
  std::istringstream in(text);
  if (!(in >> k >> slash >> n) || slash != '/' || in >> extra || n < 1 || k < 1 || k > n) {
    std::cerr << "cvmcheck campaign: --shard wants K/N with 1 <= K <= N, got '" << text << "'\n";
    return false;
  }
  options.shard_index = k - 1;
  options.shard_count = n;
  return true;
}


// The live progress line: in place on a terminal, else a line every 5 s or a sixth of the time
// box, whichever is longer, so that a log of a long night stays about as short as a 30-s run's.
CampaignProgress progress_line(bool quiet, double seconds) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  const double interval = std::max(5.0, seconds / 6);
  auto last_line = std::make_shared<double>(-interval);
  return [quiet, tty, interval, last_line](const CampaignResult& r, double elapsed) {
    if (quiet) return;
    if (!tty && elapsed - *last_line < interval) return;
    *last_line = elapsed;
    std::cerr << (tty ? "\r" : "") << campaign_progress_text(r, elapsed) << (tty ? "   " : "\n")
              << std::flush;
  };
}

// The summary (the table and the lines under it), then the report files.
void print_results(const CampaignResult& result, const CampaignCli& o, int jobs) {
  CampaignSummaryOptions summary;
  summary.table = o.table == "full" ? TableStyle::kFull : TableStyle::kScreen;
  summary.profile = o.profile;
  summary.jobs = jobs;
  std::cout << campaign_summary(result, exec_backends(), summary);
  if (!o.report.empty()) {
    std::filesystem::create_directories(o.report);
    write_file(std::filesystem::path(o.report) / "campaign.json", campaign_json(result));
    write_file(std::filesystem::path(o.report) / "junit.xml", campaign_junit(result));
    std::cout << "report: " << o.report << "/campaign.json, " << o.report << "/junit.xml\n";
  }
}

// The verdict flags of the command line, as campaign.json records them (CampaignResult).
std::set<std::string> verdict_flags(const CampaignCli& o) {
  std::set<std::string> flags;
  if (o.allow_nothing_compared) flags.insert("allow-nothing-compared");
  if (o.allow_unreached_paths) flags.insert("allow-unreached-paths");
  if (o.require_paths) flags.insert("require-paths");
  return flags;
}

// Whether the run made every call up to --max-cases: counted by its calls, or, for a cut or
// resumed run (campaign.h), by the index of the call each job would make next.
bool reached_max_cases(const CampaignResult& result, const CampaignOptions& options) {
  if (options.max_cases < 0) return false;
  if (result.resume_state.empty()) return result.calls >= options.max_cases;
  const ResumeState state = parse_resume_state(result.resume_state);
  const bool by_index = state.shard_count > 1 || state.jobs > 1 || !options.resume_state.empty();
  if (!by_index) return result.calls >= options.max_cases;
  for (const JobResume& place : state.places) {
    const CallBlocks blocks(state.block_calls, state.shard_index, state.shard_count, place.job,
                            state.jobs);
    if (blocks.index(place.next) < static_cast<uint64_t>(options.max_cases)) return false;
  }
  return true;
}

// What the run was asked for and on what, for campaign.json's "run" and the report.
void record_run_facts(CampaignResult& result, const CampaignOptions& options,
                      const std::string& commit, const std::string& started) {
  result.commit = commit;
  result.resumed_from = options.resume_state;
  result.cpu_features = cpu_description();
  result.started = started;
  result.seconds_requested = options.seconds;
  result.max_cases = options.max_cases;
  // A signal that stopped the loop said so already (stop_signal.h); one that came after it
  // ended stopped nothing.
  if (stopped_by_signal(result)) return;
  result.stopped = reached_max_cases(result, options) ? "max_cases" : "time";
}

// --resume: the seed and resume state of the latest interrupted run of the store; false (with
// the message printed) when there is none to resume or it ran with another number of jobs.
bool resume_from_store(const CampaignCli& o, int jobs, CampaignOptions& options) {
  if (o.store.store.empty()) {
    std::cerr << "cvmcheck campaign: --resume needs --store (where the interrupted run is)\n";
    return false;
  }
  const std::optional<ResumePoint> point =
      find_resume_point(o.store, o.seed, options.shard_index, options.shard_count);
  if (!point) {
    std::cerr << "cvmcheck campaign: --resume: no interrupted campaign"
              << (o.seed != 0 ? " of seed " + std::to_string(o.seed) : std::string())
              << " of this shard in " << o.store.store << "\n";
    return false;
  }
  const ResumeState state = parse_resume_state(point->state);
  if (state.jobs != jobs) {
    std::cerr << "cvmcheck campaign: --resume: run " << point->run << " ran " << state.jobs
              << " jobs; resume it with --jobs " << state.jobs << "\n";
    return false;
  }
  options.seed = state.seed;
  options.resume_state = point->state;
  std::cerr << "cvmcheck campaign: resuming run " << point->run << " (seed " << state.seed
            << ", " << point->calls << " calls made) at its last checkpoint\n";
  return true;
}

// --resume-from REPORT: why the run that wrote that campaign.json cannot be resumed by this one
// ("" when it can: `options` then hold its seed and resume state). A requeued Slurm shard goes
// on from its last run's report, with no store on the shared file system.
std::string take_resume_state_of_report(const CampaignCli& o, int jobs, CampaignOptions& options) {
  try {
    std::ifstream in(o.resume_from);
    if (!in) return "cannot read it";
    const nlohmann::json report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    const nlohmann::json text = report.is_object() ? report.value("resume_state", nlohmann::json())
                                                   : nlohmann::json();
    if (!text.is_string() || text.get<std::string>().empty()) {
      return "not a campaign.json with a resume state";
    }
    const ResumeState state = parse_resume_state(text.get<std::string>());
    if (o.seed != 0 && state.seed != o.seed) {
      return "its run was of seed " + std::to_string(state.seed);
    }
    if (state.shard_index != options.shard_index || state.shard_count != options.shard_count) {
      return "its run was shard " + std::to_string(state.shard_index + 1) + "/" +
             std::to_string(state.shard_count) + "; resume it with that --shard";
    }
    if (state.jobs != jobs) {
      return "its run ran " + std::to_string(state.jobs) + " jobs; resume it with --jobs " +
             std::to_string(state.jobs);
    }
    options.seed = state.seed;
    options.resume_state = text.get<std::string>();
    std::cerr << "cvmcheck campaign: resuming the run of " << o.resume_from << " (seed "
              << state.seed << ", " << report.value("calls", nlohmann::json(0)).dump()
              << " calls made) where it stopped\n";
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool resume_from_report(const CampaignCli& o, int jobs, CampaignOptions& options) {
  const std::string why = take_resume_state_of_report(o, jobs, options);
  if (why.empty()) return true;
  std::cerr << "cvmcheck campaign: --resume-from " << o.resume_from << ": " << why << "\n";
  return false;
}

}  // namespace

int campaign_exit_status(const CampaignResult& result, const std::optional<StoreDelta>& delta,
                         const std::string& fail_on) {
  CampaignExitRules rules;
  rules.fail_on = fail_on;
  rules.default_scope = result.default_scope;
  rules.allow_nothing_compared = result.verdict_flags.count("allow-nothing-compared") != 0;
  rules.allow_unreached_paths = result.verdict_flags.count("allow-unreached-paths") != 0;
  rules.require_paths = result.verdict_flags.count("require-paths") != 0;
  const CampaignExit ending = campaign_exit(result, delta, rules);
  for (const std::string& line : ending.messages) {
    std::cerr << "cvmcheck campaign: " << line << "\n";
  }
  return ending.status;
}

Action add_campaign_command(CLI::App& app) {
  auto o = std::make_shared<CampaignCli>();
  CLI::App* sub = app.add_subcommand(
      "campaign", "Time-boxed differential campaign over operators and backends (the main job)");
  add_options(sub, *o);
  return [o] {
    install_stop_handlers();
    CampaignOptions options;
    options.seconds = o->seconds;
    options.max_cases = o->max_cases;
    options.block_calls = o->block_calls;
    options.ops = split_list(o->ops);
    options.backends = split_list(o->backends);
    options.backends.insert(options.backends.end(), o->backend_list.begin(),
                            o->backend_list.end());
    const ExecSettings exec = exec_settings(o->exec);
    if (options.backends.empty() && !exec.definitions.empty()) {
      options.backends = other_backends(registry());
      for (const std::string& name : defined_backend_names(exec)) options.backends.push_back(name);
      options.default_backends = true;
    }
    const int jobs = jobs_for("campaign", o->jobs,
                              options.backends.empty() ? other_backends(registry()) : options.backends);
    // Each job starts its own external workers (a worker's pipes belong to one process), and
    // runs the optimized kernels on one thread: the jobs already use every core, and OpenMP teams
    // in each job would only contend for them.
    const auto start_workers = [&options, exec] {
      options.backends = resolve_backends(registry(), options.backends, exec);
    };
    const auto prepare_job = [&start_workers] {
      opt::set_threads(1);
      // The ISA variants and optimized@3 force their own teams; the default backend follows
      // the process's one thread.
      if (Backend* base = registry().find_backend("optimized"); base != nullptr) {
        opt::path::mark_single_threaded(*base, "one thread per campaign job (--jobs); optimized@3 "
                                               "takes the team paths");
      }
      start_workers();
    };
    if (jobs == 1) start_workers();
    options.invalid_share = o->invalid_share;
    options.max_repros = o->max_repros;
    options.repros_per_signature = o->repros_per_signature;
    options.max_repro_bytes = o->max_repro_bytes;
    options.shrink_seconds = o->shrink_seconds;
    options.expected = expectations(o->xfail);
    options.seed = o->seed != 0 ? o->seed : std::random_device{}() * 0x100000001ULL + 1;
    if (!parse_shard(o->shard, options)) return kExitUsage;
    if (o->resume && !resume_from_store(*o, jobs, options)) return kExitUsage;
    if (!o->resume_from.empty() && !resume_from_report(*o, jobs, options)) return kExitUsage;
    options.repro_root = o->report.empty() ? "cvmcheck-repros" : o->report + "/repros";
    const std::string shard_args = o->shard.empty() ? "" : " --shard " + o->shard;
    std::cerr << "cvmcheck campaign: seed " << options.seed << shard_args << ", "
              << options.seconds << " s, " << jobs << (jobs == 1 ? " job" : " jobs")
              << "; replay with --seed " << options.seed << shard_args << "\n";
    const CampaignProgress progress = progress_line(o->quiet, options.seconds);
    const std::string started = utc_now();
    const std::string commit = commit_under_test(o->commit);
    // Recorded from its start and as it goes, so that a run killed later keeps what it found.
    CampaignStoreSession store(o->store, store_run_facts(commit, started), options);
    if (store.active()) {
      options.checkpoint = [&store](const CampaignResult& partial) { store.checkpoint(partial); };
      options.checkpoint_seconds = o->checkpoint_seconds;
    }
    CampaignResult result =
        jobs == 1 ? run_campaign(registry(), options, progress)
                  : run_campaign_jobs(registry(), options, jobs, prepare_job, progress);
    if (!o->quiet && isatty(STDERR_FILENO) != 0) std::cerr << "\n";
    record_run_facts(result, options, commit, started);
    result.default_scope = o->ops.empty() && o->backends.empty() && o->backend_list.empty();
    result.verdict_flags = verdict_flags(*o);
    print_results(result, *o, jobs);
    return campaign_exit_status(result, store.finish(result), o->store.fail_on);
  };
}

}  // namespace cvm::cli
