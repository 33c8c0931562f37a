// cvmcheck graphs [--seconds N] [--nodes N] [--backends a,b] [--seed S] [--report DIR]
// [--store [FILE]] [--xfail FILE] [--jobs N]: random models run on the reference and on each backend,
// diffed entry by entry, each finding shrunk and saved as a graph folder (docs/graphs.md).
// cvmcheck graphs --replay DIR [--backends a,b]: one saved model again, as `cvmcheck run DIR`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "commands.h"
#include "exec_options.h"
#include "harness/findings/run_status.h"
#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_jobs.h"
#include "jobs_option.h"
#include "harness/graph/graph_replay.h"
#include "harness/graph/graph_repro.h"
#include "harness/graph/graph_store.h"
#include "optimized/kernels.h"
#include "registry/registry.h"
#include "store_options.h"

namespace cvm::cli {
namespace {

struct GraphsCli {
  graph::GraphsOptions options;
  std::vector<std::string> backends;
  std::string replay;
  XfailCli xfail;
  StoreCli store;
  std::string commit;
  int jobs = 1;
  ExecCli exec;  // exec:COMMAND backends: a worker with kFlagGraphs runs whole models
};


int replay(const GraphsCli& cli) {
  const graph::ModelFiles m = graph::read_graph_folder(cli.replay);
  const std::vector<std::string> backends =
      cli.backends.empty() ? graph::graphs_default_backends(registry()) : cli.backends;
  const graph::GraphReplay r = graph::replay_model(registry(), graph::Model{m.graph, m.inputs}, backends);
  std::cout << r.report.dump() << "\n";
  return r.differs || r.skipped ? kExitMismatch : kExitOk;
}

// Prints the summary; true when a selected backend compared no model.
bool print_summary(const graph::GraphsSummary& s, const nlohmann::json& report) {
  std::cout << "graphs: " << s.graphs << " in " << report["seconds"].get<double>() << " s ("
            << report["graphs_per_second"].get<double>() << "/s), "
            << report["nodes_per_graph"].get<double>() << " nodes per graph, valid share "
            << report["valid_share"].get<double>() << ", " << s.op_counts.size() << " of "
            << s.ops.size() << " operators and " << s.chained.size() << " of "
            << s.chainable.size() << " chainable producer->consumer pairs covered ("
            << s.pairs.size() << " pairs through any input)\n";
  bool nothing_compared = false;
  for (const std::string& b : s.backends) {
    const int64_t n = s.compared.count(b) ? s.compared.at(b) : 0;
    std::cout << "  " << b << ": " << n << " compared";
    if (s.skipped.count(b)) std::cout << ", " << s.skipped.at(b) << " skipped (" << s.skip_reasons.at(b) << ")";
    if (s.worker_requests.count(b)) {
      std::cout << "; its worker: " << s.worker_requests.at(b) << " requests, "
                << s.worker_restarts.at(b) << " restarts";
    }
    std::cout << (n == 0 ? ": nothing compared\n" : "\n");
    nothing_compared = nothing_compared || n == 0;
  }
  for (const graph::GraphFinding& f : s.findings) {
    std::cout << (f.expected_by.empty() ? "FINDING " : "expected ") << f.signature
              << (f.graph_level ? " (graph-level, " : " (") << f.count << " graphs): " << f.what << "\n";
    if (!f.expected_by.empty()) std::cout << "  known: " << f.expected_by << "\n";
    if (!f.repro.empty()) {
      std::cout << "__REPRO: " << graph::graph_replay_line(f.repro, f.backend) << "  (" << f.nodes_drawn
                << " -> " << f.nodes_saved << " operator nodes)\n";
    }
  }
  return nothing_compared;
}

int run(GraphsCli& cli) {
  const ExecSettings exec = exec_settings(cli.exec);
  if (!cli.replay.empty()) {
    cli.backends = resolve_backends(registry(), cli.backends, exec);
    return replay(cli);
  }
  graph::GraphsOptions& o = cli.options;
  o.backends = cli.backends;
  o.expectations = expectations(cli.xfail);
  if (o.seed == 0) o.seed = std::random_device{}() * 0x100000001ULL + 1;
  std::cout << "graphs: seed " << o.seed << "\n";
  const std::string started = utc_now();
  const int jobs =
      jobs_for("graphs", cli.jobs, o.backends.empty() ? graph::graphs_default_backends(registry()) : o.backends);
  // Each job starts its own external workers (a worker's pipes belong to one process; the names
  // resolve_backends returns are those it is given) and runs the optimized kernels on one thread:
  // the jobs already use every core.
  if (jobs == 1) o.backends = resolve_backends(registry(), o.backends, exec);
  const graph::GraphsSummary s = graph::run_graphs_jobs(registry(), o, jobs, [&o, &exec] {
    opt::set_threads(1);
    resolve_backends(registry(), o.backends, exec);
  });
  const nlohmann::json report = graph::graphs_report(s);
  // A selected backend that compared no model fails the run, as in the campaign.
  const bool nothing_compared = print_summary(s, report);
  if (!o.report_dir.empty()) {
    std::filesystem::create_directories(o.report_dir);
    std::ofstream(o.report_dir + "/graphs.json") << report.dump(2) << "\n";
  }
  std::optional<StoreDelta> delta;
  if (!cli.store.store.empty()) {
    delta = record_in_store(graph::graphs_store_run(s, store_run_facts(cli.commit, started)),
                            graph::graphs_store_findings(s), cli.store);
  }
  const int64_t unexplained = graph::unexplained_findings(s);
  const int64_t explained = static_cast<int64_t>(s.findings.size()) - unexplained;
  const bool fails = findings_fail(unexplained, explained, delta, cli.store.fail_on);
  return fails || nothing_compared ? kExitMismatch : kExitOk;
}

}  // namespace

Action add_graphs_command(CLI::App& app) {
  auto cli = std::make_shared<GraphsCli>();
  CLI::App* sub = app.add_subcommand("graphs", "Random whole models diffed node by node (docs/graphs.md)");
  sub->add_option("--seconds", cli->options.seconds, "Time limit (default 10)");
  sub->add_option("--max-graphs", cli->options.max_graphs, "Stop after this many models");
  sub->add_option("--nodes", cli->options.nodes, "Operator nodes per model (default 10)")->check(CLI::Range(1, 64));
  sub->add_option("--backends", cli->backends, "Backends to diff against the reference")->delimiter(',');
  sub->add_option("--seed", cli->options.seed, "Seed (default: random, printed; the same seed replays)");
  sub->add_option("--report", cli->options.report_dir, "Write graphs.json and the repro folders here");
  sub->add_option("--shrink-tries", cli->options.shrink_tries,
                  "Candidate models tried to shrink each saved repro (default 200; 0: as drawn)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--from-model", cli->options.first_model,
                  "Start at model K of the seed (a finding's `model`; with --max-graphs K+1, that "
                  "model alone)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--jobs", cli->jobs,
                  "Processes sharing the models (default 1; 0: one per core), model k in job "
                  "k mod N: the same seed checks the same models with any number of jobs")
      ->check(CLI::Range(0, 1024));
  sub->add_option("--replay", cli->replay, "Run one saved graph folder instead (as `cvmcheck run DIR`)");
  add_xfail_options(sub, cli->xfail);
  add_exec_options(sub, cli->exec);
  add_store_options(sub, cli->store);
  add_commit_option(sub, cli->commit);
  return [cli] {
    try {
      return run(*cli);
    } catch (const LogicError& e) {
      std::cerr << "cvmcheck graphs: " << e.what() << "\n";
      return kExitCaseError;
    } catch (const RuntimeError& e) {
      std::cerr << "cvmcheck graphs: " << e.what() << "\n";
      return kExitCaseError;
    }
  };
}

}  // namespace cvm::cli
