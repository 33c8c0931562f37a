// cvmcheck golden generate|verify: the golden fixture suite (docs/golden-format.md).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "commands.h"
#include "jobs_option.h"
#include "cvmcheck/errors.h"
#include "exec_options.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/jobs/stop_signal.h"
#include "harness/golden/golden.h"
#include "harness/golden/golden_exit.h"
#include "harness/golden/golden_graphs.h"
#include "harness/golden/golden_jobs.h"
#include "harness/golden/golden_store.h"
#include "optimized/kernels.h"
#include "store_options.h"

namespace cvm::cli {
namespace {

// The command line's settings, as parsed.
struct GoldenCli {
  GoldenOptions generate;
  bool graphs = false;  // generate the golden graph set instead
  std::string dir = "golden";
  std::vector<std::string> backends{"reference"};
  std::string json;
  XfailCli xfail;
  ExecCli exec;
  int jobs = 0;
  StoreCli store;
  std::string commit;
};

// One backend's results as JSON, for `cvmcheck report --golden`: the per-operator counts by
// status and every case that did not simply pass or skip, with its detail and expectation.
nlohmann::json golden_json(const GoldenVerifyResult& result) {
  nlohmann::json b{{"ok", result.ok()}, {"per_op", result.per_op}, {"stale", result.stale}};
  b["not_passing"] = nlohmann::json::array();
  for (const GoldenCaseResult& c : result.cases) {
    if (c.status == "pass" || c.status == "skipped") continue;  // counted in per_op
    b["not_passing"].push_back({{"op", c.op}, {"case", c.name}, {"status", c.status},
                                {"detail", c.detail}, {"expectation", c.expectation}});
  }
  return b;
}

void write_json(const std::string& path, const nlohmann::json& json) {
  std::ofstream out(path);
  out << json.dump(1) << "\n";
  check(out.good(), "cannot write ", path);
}

// The tables, the JSON when asked and the run in the store when one is selected; the exit
// status (golden_exit.h).
int report_verify(const GoldenCli& o, const std::vector<std::string>& backends,
                  const std::vector<GoldenVerifyResult>& results, const std::string& started,
                  double seconds) {
  nlohmann::json json{{"dir", o.dir}, {"backends", nlohmann::json::object()}};
  for (size_t k = 0; k < backends.size(); ++k) {
    std::cout << golden_table(results[k], backends[k]);
    json["backends"][backends[k]] = golden_json(results[k]);
  }
  if (!o.json.empty()) write_json(o.json, json);
  std::optional<StoreDelta> delta;
  if (!o.store.store.empty()) {
    StoreRun run = golden_store_run(o.dir, backends, results,
                                    store_run_facts(o.commit, started));
    run.seconds = seconds;
    run.stopped = stop_reason();  // an interrupted run fixes nothing
    delta = record_in_store(run, golden_store_findings(backends, results), o.store);
  }
  if (stop_signal() != 0) {
    std::cout << "stopped by " << signal_name(stop_signal()) << " after " << seconds
              << " s: the tables hold the cases judged before it\n";
  }
  return golden_exit_status(results, delta, o.store.fail_on, stop_signal() != 0);
}

// golden verify of a golden graph set: every model on each backend ('all': every built-in
// one), one process; exit 1 when a model differs or a file is damaged.
int run_verify_graphs(const GoldenCli& o) {
  const ExecSettings exec = exec_settings(o.exec);
  std::vector<std::string> backends;
  for (const std::string& name : o.backends) {
    if (name != "all") {
      backends.push_back(resolve_backend(registry(), name, exec));
      continue;
    }
    for (const Backend& b : registry().backends()) backends.push_back(b.name);
  }
  const ExpectationSet xfail = expectations(o.xfail);
  bool ok = true;
  for (const std::string& backend : backends) {
    const GoldenGraphsResult result = verify_golden_graphs(registry(), o.dir, backend, xfail);
    std::cout << golden_graphs_table(result, backend);
    ok = ok && result.ok();
  }
  return ok ? kExitOk : kExitMismatch;
}

// golden verify: every case on each backend, its table, and the JSON when asked.
int run_verify(const GoldenCli& o) {
  if (is_golden_graphs(o.dir)) return run_verify_graphs(o);
  install_stop_handlers();
  const ExpectationSet xfail = expectations(o.xfail);
  const ExecSettings exec = exec_settings(o.exec);
  std::vector<std::string> selected = o.backends;
  if (std::find(selected.begin(), selected.end(), "all") != selected.end()) {
    for (const Backend& b : registry().backends()) selected.push_back(b.name);
  }
  const int jobs = jobs_for("golden verify", o.jobs, selected);
  // With several jobs each job starts its own external workers (a worker's pipes belong to one
  // process); resolve_backend returns the name it is given, so the names are known here.
  const auto resolve = [&exec, jobs](const std::string& name) {
    return jobs == 1 ? resolve_backend(registry(), name, exec) : name;
  };
  std::vector<std::string> backends;
  for (const std::string& name : o.backends) {
    if (name == "all") {
      for (const Backend& b : registry().backends()) backends.push_back(b.name);
      for (const std::string& defined : defined_backend_names(exec)) {
        backends.push_back(resolve(defined));
      }
    } else {
      backends.push_back(resolve(name));
    }
  }
  const std::string started = utc_now();
  const auto start = std::chrono::steady_clock::now();
  std::vector<GoldenVerifyResult> results;
  if (jobs == 1) {
    for (const std::string& backend : backends) {
      results.push_back(verify_golden(registry(), o.dir, backend, xfail));
    }
  } else {
    for (const std::string& backend : backends) {  // the message one process gives
      check(registry().find_backend(backend) != nullptr || is_exec_backend(backend, exec),
            "unknown backend '", backend, "'");
    }
    // Each job runs the optimized kernels on one thread: the jobs already use every core.
    results = verify_golden_jobs(registry(), o.dir, backends, xfail, jobs,
                                 [&exec, &backends](int) {
                                   opt::set_threads(1);
                                   resolve_backends(registry(), backends, exec);
                                 });
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return report_verify(o, backends, results, started, took.count());
}

// golden generate --graphs: the set, and what it holds.
int generate_graphs(const std::string& out) {
  GoldenGraphsOptions options;
  if (out != GoldenOptions{}.out) options.out = out;
  const GoldenGraphsSummary s = generate_golden_graphs(registry(), options);
  std::cout << "wrote " << s.models << " models (" << s.files << " files, " << s.bytes << " bytes, "
            << s.operators.size() << " operators) into " << options.out << "\n";
  if (s.missing.empty()) return kExitOk;
  std::cerr << "no model holds:";
  for (const std::string& op : s.missing) std::cerr << " " << op;
  std::cerr << "\n";
  return kExitMismatch;
}

}  // namespace

Action add_golden_command(CLI::App& app) {
  auto o = std::make_shared<GoldenCli>();
  CLI::App* sub = app.add_subcommand("golden", "Generate or verify the golden fixture suite");
  sub->require_subcommand(1);
  CLI::App* gen = sub->add_subcommand("generate", "Write the suite (deterministic)");
  gen->add_option("--out", o->generate.out, "New directory to write (default golden)");
  gen->add_option("--random", o->generate.random_per_op,
                  "Generated valid calls per operator (default 6; more for a bigger set)")
      ->check(CLI::Range(0, 100000));
  gen->add_option("--per-rule", o->generate.per_rule,
                  "Generated calls per validity rule (default 1)")
      ->check(CLI::Range(1, 1000));
  gen->add_flag("--graphs", o->graphs,
                "Write the golden graph set instead: whole models with every entry's expected "
                "value (default --out golden-graphs)");
  CLI::App* verify = sub->add_subcommand(
      "verify", "Replay every case on a backend; with --store, record the run and its failing "
                "cases as findings (docs/nightly.md)");
  verify->add_option("dir", o->dir,
                     "Suite directory (default golden; before a --store without a path)");
  verify->add_option("--backend", o->backends,
                     "Backend, or 'all' (default reference); repeatable; exec:COMMAND runs an "
                     "external worker");
  add_exec_options(verify, o->exec);
  add_xfail_options(verify, o->xfail);
  verify->add_option("--json", o->json,
                     "Also write the results as JSON to this file: per backend, per operator "
                     "counts by status, every case failing, corrupt or listed, stale entries (for "
                     "the report)");
  verify->add_option("--jobs", o->jobs,
                     "Processes sharing the cases (default 0: one per core); the same tables and "
                     "exit status for any number")
      ->check(CLI::Range(0, 1024));
  add_store_options(verify, o->store, "failing case");
  add_commit_option(verify, o->commit);
  return [o, gen] {
    if (gen->parsed() && o->graphs) return generate_graphs(o->generate.out);
    if (gen->parsed()) {
      const GoldenSummary s = generate_golden(registry(), o->generate);
      std::cout << "wrote " << s.cases << " cases (" << s.files << " files, " << s.bytes
                << " bytes) for " << s.cases_per_op.size() << " operators into "
                << o->generate.out << "; " << s.omitted << " omitted (inputs over "
                << kGoldenMaxCaseInputBytes << " bytes, listed in the manifest)\n";
      return kExitOk;
    }
    return run_verify(*o);
  };
}

}  // namespace cvm::cli
