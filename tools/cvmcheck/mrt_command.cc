// cvmcheck mrt: checks every MRT expansion identity (the MRT formalization, docs/mrt.md) for N random cases
// or a time budget on the chosen backends and prints a table (identity, backend, cases,
// mismatches); exit status 1 on any mismatch. --write-golden DIR writes the MRT fixtures.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "commands.h"
#include "jobs_option.h"
#include "exec_options.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/jobs/stop_signal.h"
#include "harness/mrt/mrt_golden.h"
#include "harness/mrt/mrt_run.h"
#include "optimized/kernels.h"

namespace cvm::cli {
namespace {

mrt::PlantedBug planted_named(const std::string& name) {
  if (name.empty() || name == "none") return mrt::PlantedBug::kNone;
  for (mrt::PlantedBug bug : mrt::all_planted_bugs()) {
    if (name == mrt::planted_bug_name(bug)) return bug;
  }
  throw std::invalid_argument("unknown planted bug '" + name + "'");
}

// The command line's settings, as parsed.
struct MrtCli {
  int64_t cases = 200;
  double seconds = 0;
  std::string backend = "all", identity, planted, golden_out, table = "screen", json;
  uint64_t seed = 0;
  int golden_seeds = 2;
  int jobs = 0;
  ExecCli exec;
};

// The rows as JSON, for `cvmcheck report --mrt`.
void write_mrt_json(const std::string& path, const std::vector<mrt::MrtRow>& rows, uint64_t seed,
                    const std::string& planted) {
  nlohmann::json json{{"seed", seed}, {"planted", planted}};
  json["rows"] = nlohmann::json::array();
  for (const mrt::MrtRow& r : rows) {
    json["rows"].push_back({{"identity", r.identity}, {"backend", r.backend},
                            {"cases", r.cases}, {"mismatches", r.mismatches},
                            {"skipped", r.skipped}, {"first_mismatch", r.first_mismatch}});
  }
  std::ofstream out(path);
  out << json.dump(1) << "\n";
  if (!out.good()) throw std::runtime_error("cannot write " + path);
}

void add_options(CLI::App* sub, MrtCli* o) {
  sub->add_option("--table", o->table,
                  "screen (default): one row per operator family, one column per backend; "
                  "full: one row per identity x backend")
      ->check(CLI::IsMember({"screen", "full"}));
  sub->add_option("--cases", o->cases, "Random cases per identity (default 200)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  sub->add_option("--seconds", o->seconds,
                  "Time budget in seconds, shared evenly by the identities (overrides --cases)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--backend", o->backend,
                  "Backend, or 'all' (default all); exec:COMMAND runs an external worker");
  add_exec_options(sub, o->exec);
  sub->add_option("--identity", o->identity, "Only identities whose name contains this text");
  sub->add_option("--seed", o->seed, "Seed (default: random, printed; the same seed replays)");
  sub->add_option("--planted", o->planted,
                  "Run a wrong expansion to see the check fail (conv2d_drop_zp_product, ...)");
  sub->add_option("--write-golden", o->golden_out,
                  "Write the MRT golden fixtures into this new directory instead of checking");
  sub->add_option("--jobs", o->jobs,
                  "Processes sharing the cases (default 0: one per core); with --cases the same "
                  "table for any number")
      ->check(CLI::Range(0, 1024));
  sub->add_option("--golden-seeds", o->golden_seeds, "Seeds per identity in the fixtures (2)")
      ->check(CLI::Range(1, 100));
  sub->add_option("--json", o->json, "Also write the rows as JSON to this file (for the report)");
}

}  // namespace

Action add_mrt_command(CLI::App& app) {
  auto o = std::make_shared<MrtCli>();
  CLI::App* sub = app.add_subcommand(
      "mrt", "Check the MRT quantization expansions (the MRT formalization) against their direct formulas");
  add_options(sub, o.get());
  return [o] {
    install_stop_handlers();
    if (!o->golden_out.empty()) {
      mrt::MrtGoldenOptions options;
      options.out = o->golden_out;
      options.seeds_per_identity = o->golden_seeds;
      const mrt::MrtGoldenSummary s = mrt::generate_mrt_golden(registry(), options);
      std::cout << "wrote " << s.cases << " step cases of " << s.instances << " instances of "
                << s.identities << " identities (" << s.files << " files, " << s.bytes
                << " bytes) into " << options.out << "\n";
      return kExitOk;
    }
    const mrt::PlantedBug bug = planted_named(o->planted);
    const ExecSettings exec = exec_settings(o->exec);
    std::vector<std::string> selected;
    for (const Backend* b : mrt::selected_backends(registry(), o->backend)) {
      selected.push_back(b->name);
    }
    const int jobs = jobs_for("mrt", o->jobs, selected);
    // With several jobs each job starts its own external worker (a worker's pipes belong to one
    // process) and runs the optimized kernels on one thread (the jobs already use every core).
    if (o->backend != "all" && jobs == 1) resolve_backend(registry(), o->backend, exec);
    const bool known = !mrt::selected_backends(registry(), o->backend).empty() ||
                       (jobs > 1 && is_exec_backend(o->backend, exec));
    if (!known) {
      std::cerr << "cvmcheck: unknown backend '" << o->backend << "'\n";
      return kExitUsage;
    }
    mrt::MrtRunOptions options;
    options.backend = o->backend;
    options.seed = o->seed != 0 ? o->seed : std::random_device{}();
    for (const mrt::Scheme& s : mrt::all_schemes()) {
      if (mrt::scheme_name(s).find(o->identity) != std::string::npos) options.schemes.push_back(s);
    }
    options.cases = o->cases;
    options.seconds_per_identity =
        o->seconds > 0 ? o->seconds / std::max<size_t>(1, options.schemes.size()) : 0;
    options.bug = bug;
    const std::vector<mrt::MrtRow> rows =
        jobs == 1 ? mrt::run_mrt(registry(), options)
                  : mrt::run_mrt_jobs(registry(), options, jobs, [o, &exec](int) {
                      opt::set_threads(1);
                      if (o->backend != "all") resolve_backend(registry(), o->backend, exec);
                    });
    const std::string planted = bug == mrt::PlantedBug::kNone ? "" : o->planted;
    std::cout << mrt::mrt_table(rows, options.seed, planted, o->table == "full");
    if (!o->json.empty()) write_mrt_json(o->json, rows, options.seed, planted);
    bool ok = true;
    for (const mrt::MrtRow& row : rows) ok = ok && row.mismatches == 0;
    if (stop_signal() != 0) {
      std::cout << "stopped by " << signal_name(stop_signal())
                << ": the table holds the cases made before it\n";
      return ok ? kExitInterrupted : kExitMismatch;
    }
    return ok ? kExitOk : kExitMismatch;
  };
}

}  // namespace cvm::cli
