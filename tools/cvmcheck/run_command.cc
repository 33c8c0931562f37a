// cvmcheck run CASE_DIR [--backend NAME] [--out DIR]: runs one case and prints one JSON object.
// cvmcheck run --call 'DESCRIPTOR' [--backend NAME] [--out DIR]: runs the call a descriptor
// names (docs/call-descriptor.md) on its backend and on the reference, and prints the diff.
// cvmcheck run GRAPH_DIR [--backend NAME]: a saved model (graph.json, params, data.npy) on the
// reference and the backend (default: the graphs' default backends), diffed (docs/graphs.md).
#include <filesystem>
#include <iostream>

#include "registry/registry.h"
#include "commands.h"
#include "exec_options.h"
#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/diff.h"
#include "harness/engine/diff_report.h"
#include "harness/findings/finding.h"
#include "harness/engine/verdict.h"
#include "harness/graph/graph_campaign.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_replay.h"
#include "optimized/kernels.h"

namespace cvm::cli {
namespace {

nlohmann::json outcome_json(const Outcome& outcome) {
  nlohmann::json out;
  out["outcome"] = outcome_name(outcome.kind);
  out["message"] = outcome.message;
  if (!outcome.rule.empty()) out["rule"] = outcome.rule;
  out["outputs"] = nlohmann::json::array();
  for (const Tensor& y : outcome.outputs) {
    out["outputs"].push_back({{"shape", y.shape()}, {"precision", y.precision()}});
  }
  return out;
}

// The operator's canonical name, so that a signature printed here equals the campaign's and the
// findings store's for the same failure, whichever alias the case or descriptor used.
std::string canonical_op(const std::string& op) {
  const OpInfo* info = registry().find_op(op);
  return info == nullptr ? op : info->name;
}

// The failing case's signature (harness/engine/verdict.h), against the outcome it stores.
std::string case_signature(const std::string& dir, const std::string& backend,
                           const CaseResult& result) {
  const CaseSpec spec = read_case(dir);
  Outcome expected;
  expected.kind = spec.expect->outcome;
  expected.rule = spec.expect->rule;
  return difference_signature(canonical_op(spec.op), backend, *result.difference, expected,
                              result.outcome);
}

void write_outputs(const std::string& dir, const Outcome& outcome) {
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  for (size_t k = 0; k < outcome.outputs.size(); ++k) {
    write_npy(dir + "/output_" + std::to_string(k) + ".npy", outcome.outputs[k]);
  }
}

// `cvmcheck run DIR`: the case on one backend, judged against its expectation.
int run_case_dir(const std::string& dir, const std::string& name, const std::string& out) {
  const CaseResult result = judge_case(registry(), dir, name);
  nlohmann::json report = outcome_json(result.outcome);
  if (result.matches) {
    report["matches"] = *result.matches;
    if (result.difference) {
      report["difference"] = result.difference->what;
      report["signature"] = case_signature(dir, name, result);
    }
  }
  write_outputs(out, result.outcome);
  std::cout << report.dump() << "\n";
  return result.matches.value_or(true) ? kExitOk : kExitMismatch;
}

// `cvmcheck run --call DESCRIPTOR`: the call on its backend and on the reference.
int run_descriptor(const CallDescriptor& descriptor, const std::string& name,
                   const std::string& out) {
  // The recorded thread count, so that the optimized kernels take the same path.
  if (descriptor.threads > 0) opt::set_threads(descriptor.threads);
  const Call& call = descriptor.call;
  const DiffResult diff = diff_call(registry(), call, {name});
  const BackendRun* run = diff.runs.empty() ? nullptr : &diff.runs.front();
  const Outcome& outcome = run != nullptr && !run->skipped ? run->outcome : diff.reference;
  nlohmann::json report = outcome_json(outcome);
  report["backend"] = name;
  if (descriptor.threads > 0) report["threads"] = descriptor.threads;
  report["reference"] = outcome_json(diff.reference);
  report["reference"].erase("outputs");
  if (run != nullptr && run->skipped) {
    // Nothing compared (unavailable, or the operator is not implemented): never a pass.
    report.erase("outcome");
    report.erase("message");
    report.erase("outputs");
    report["skipped"] = run->skip_reason;
    std::cout << report.dump() << "\n";
    return kExitMismatch;
  }
  report["matches"] = diff.passed();
  if (diff.expectation_failure) report["expectation_failure"] = *diff.expectation_failure;
  if (run != nullptr && run->difference) report["difference"] = run->difference->what;
  if (!diff.passed()) {
    CallVerdict verdict;
    verdict.diff = diff;
    report["signature"] = finding_signature(canonical_op(call.op), verdict, call.rule);
  }
  write_outputs(out, outcome);
  std::cout << report.dump() << "\n";
  if (!diff.passed()) std::cerr << diff_report(diff, call);
  return diff.passed() ? kExitOk : kExitMismatch;
}

// `cvmcheck run GRAPH_DIR`: the model on the reference and the backends, every difference named.
int run_graph_dir(const std::string& dir, const std::vector<std::string>& backends) {
  try {
    const graph::ModelFiles m = graph::read_graph_folder(dir);
    const graph::GraphReplay r = graph::replay_model(registry(), graph::Model{m.graph, m.inputs}, backends);
    std::cout << r.report.dump() << "\n";
    return r.differs || r.skipped ? kExitMismatch : kExitOk;
  } catch (const std::exception& e) {
    // A damaged or missing file: the harness's input is broken, no outcome.
    std::cerr << "cvmcheck run: " << dir << ": " << e.what() << "\n";
    return kExitCaseError;
  }
}

}  // namespace

Action add_run_command(CLI::App& app) {
  struct Options {
    std::string dir;
    std::string call;
    std::string backend;
    std::string out;
    ExecCli exec;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "run", "Run one case directory on a backend, or one call descriptor (--call) on its backend "
             "against the reference");
  CLI::Option* dir = sub->add_option("case_dir", options->dir,
                                     "Directory holding case.json, or a graph folder (graph.json)");
  sub->add_option("--call", options->call,
                  "A call descriptor (docs/call-descriptor.md), e.g. from a __REPRO line: runs it "
                  "on its backend (or --backend) and on the reference, applying its threads=")
      ->excludes(dir);
  sub->add_option("--backend", options->backend,
                  "Backend to run (default: reference, or the descriptor's); exec:COMMAND runs an "
                  "external worker");
  sub->add_option("--out", options->out, "Write the outputs as output_K.npy into this directory");
  add_exec_options(sub, options->exec);
  return [options] {
    if (options->dir.empty() == options->call.empty()) {
      std::cerr << "cvmcheck run: give a case directory or --call DESCRIPTOR\n";
      return kExitUsage;
    }
    if (!options->dir.empty() && graph::is_graph_folder(options->dir)) {
      std::vector<std::string> backends = graph::graphs_default_backends(registry());
      if (!options->backend.empty()) {
        resolve_backend(registry(), options->backend, exec_settings(options->exec));
        if (registry().find_backend(options->backend) == nullptr) {
          std::cerr << "cvmcheck: unknown backend '" << options->backend << "'\n";
          return kExitUsage;
        }
        backends = {options->backend};
      }
      return run_graph_dir(options->dir, backends);
    }
    CallDescriptor descriptor;
    if (!options->call.empty()) {
      try {
        descriptor = parse_call_descriptor(options->call);
      } catch (const LogicError& e) {
        // Like an unreadable case.json: the harness's input is broken, no outcome.
        std::cerr << "cvmcheck run: unreadable " << e.what() << "\n";
        return kExitCaseError;
      }
    }
    std::string name = options->backend;
    if (name.empty()) name = descriptor.backend.empty() ? "reference" : descriptor.backend;
    resolve_backend(registry(), name, exec_settings(options->exec));
    const Backend* backend = registry().find_backend(name);
    if (backend == nullptr) {
      std::cerr << "cvmcheck: unknown backend '" << name << "'\n";
      return kExitUsage;
    }
    return options->call.empty() ? run_case_dir(options->dir, name, options->out)
                                 : run_descriptor(descriptor, name, options->out);
  };
}

}  // namespace cvm::cli
