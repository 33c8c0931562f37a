// cvmcheck graphs [--seconds N] [--nodes N] [--backends a,b] [--seed S] [--report DIR]:
// random models run on the reference and on each backend, diffed entry by entry
// (docs/graphs.md). cvmcheck graphs --replay DIR [--backends a,b]: one saved model again.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "commands.h"
#include "exec_options.h"
#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_run.h"
#include "registry/registry.h"

namespace cvm::cli {
namespace {

struct GraphsCli {
  graph::GraphsOptions options;
  std::vector<std::string> backends;
  std::string replay;
  ExecCli exec;  // exec:COMMAND backends: a worker with kFlagGraphs runs whole models
};

nlohmann::json run_json(const graph::Graph& g, const graph::GraphRun& r) {
  nlohmann::json j = {{"outcome", outcome_name(r.kind)}};
  if (r.skipped) j["skipped"] = r.skip_reason;
  if (r.kind != OutcomeKind::kOk) {
    j["message"] = r.message;
    j["node"] = graph::node_label(g, r.node);
  }
  return j;
}

int replay(const GraphsCli& cli) {
  const graph::ModelFiles m = graph::read_graph_folder(cli.replay);
  const std::vector<std::string> backends =
      cli.backends.empty() ? graph::graphs_default_backends(registry()) : cli.backends;
  const graph::GraphRun expected = graph::run_graph(registry(), "reference", m.graph, m.inputs);
  nlohmann::json report = {{"reference", run_json(m.graph, expected)}};
  bool differs = false;
  for (const std::string& b : backends) {
    const graph::GraphRun actual = graph::run_graph(registry(), b, m.graph, m.inputs);
    nlohmann::json j = run_json(m.graph, actual);
    if (!actual.skipped) {
      if (const auto d = graph::diff_runs(m.graph, expected, actual)) {
        j["difference"] = {{"node", graph::node_label(m.graph, d->node)}, {"kind", d->kind}, {"what", d->what}};
        differs = true;
      }
    }
    report[b] = j;
  }
  std::cout << report.dump() << "\n";
  return differs ? kExitMismatch : kExitOk;
}

int run(GraphsCli& cli) {
  cli.backends = resolve_backends(registry(), cli.backends, exec_settings(cli.exec));
  if (!cli.replay.empty()) return replay(cli);
  graph::GraphsOptions& o = cli.options;
  o.backends = cli.backends;
  if (o.seed == 0) o.seed = std::random_device{}() * 0x100000001ULL + 1;
  std::cout << "graphs: seed " << o.seed << "\n";
  const graph::GraphsSummary s = graph::run_graphs(registry(), o);
  const nlohmann::json report = graph::graphs_report(s);
  std::cout << "graphs: " << s.graphs << " in " << report["seconds"].get<double>() << " s ("
            << report["graphs_per_second"].get<double>() << "/s), "
            << report["nodes_per_graph"].get<double>() << " nodes per graph, valid share "
            << report["valid_share"].get<double>() << ", " << s.op_counts.size() << " operators and "
            << s.pairs.size() << " producer->consumer pairs covered\n";
  // A selected backend that compared no model fails the run, as in the campaign.
  bool nothing_compared = false;
  for (const std::string& b : s.backends) {
    const int64_t n = s.compared.count(b) ? s.compared.at(b) : 0;
    std::cout << "  " << b << ": " << n << " compared";
    if (s.skipped.count(b)) std::cout << ", " << s.skipped.at(b) << " skipped (" << s.skip_reasons.at(b) << ")";
    std::cout << (n == 0 ? ": nothing compared\n" : "\n");
    nothing_compared = nothing_compared || n == 0;
  }
  for (const graph::GraphFinding& f : s.findings) {
    std::cout << "FINDING " << f.signature << " (" << f.count << " graphs): " << f.what << "\n";
    if (!f.repro.empty()) std::cout << "__REPRO: cvmcheck graphs --replay " << f.repro << " --backends " << f.backend << "\n";
  }
  if (!o.report_dir.empty()) {
    std::filesystem::create_directories(o.report_dir);
    std::ofstream(o.report_dir + "/graphs.json") << report.dump(2) << "\n";
  }
  return s.findings.empty() && !nothing_compared ? kExitOk : kExitMismatch;
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
  sub->add_option("--replay", cli->replay, "Run one saved graph folder instead");
  add_exec_options(sub, cli->exec);
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
