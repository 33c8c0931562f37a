// cvmcheck run CASE_DIR [--backend NAME] [--out DIR]: runs one case and prints one JSON object.
#include <filesystem>
#include <iostream>

#include "backends/registry.h"
#include "commands.h"
#include "exec_options.h"
#include "cvmcheck/case.h"
#include "cvmcheck/npy.h"

namespace cvm::cli {

Action add_run_command(CLI::App& app) {
  struct Options {
    std::string dir;
    std::string backend = "reference";
    std::string out;
    ExecCli exec;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("run", "Run one case directory on a backend");
  sub->add_option("case_dir", options->dir, "Directory holding case.json")->required();
  sub->add_option("--backend", options->backend,
                  "Backend to run (default: reference); exec:COMMAND runs an external worker");
  sub->add_option("--out", options->out, "Write the outputs as output_K.npy into this directory");
  add_exec_options(sub, options->exec);
  return [options] {
    resolve_backend(registry(), options->backend, exec_settings(options->exec));
    const Backend* backend = registry().find_backend(options->backend);
    if (backend == nullptr) {
      std::cerr << "cvmcheck: unknown backend '" << options->backend << "'\n";
      return kExitUsage;
    }
    const CaseResult result = run_case(registry(), options->dir, options->backend);
    nlohmann::json report;
    report["outcome"] = outcome_name(result.outcome.kind);
    report["message"] = result.outcome.message;
    report["outputs"] = nlohmann::json::array();
    for (const Tensor& y : result.outcome.outputs) {
      report["outputs"].push_back({{"shape", y.shape()}, {"precision", y.precision()}});
    }
    if (result.matches) {
      report["matches"] = *result.matches;
      if (result.difference) report["difference"] = result.difference->what;
    }
    if (!options->out.empty()) {
      std::filesystem::create_directories(options->out);
      for (size_t k = 0; k < result.outcome.outputs.size(); ++k) {
        write_npy(options->out + "/output_" + std::to_string(k) + ".npy",
                  result.outcome.outputs[k]);
      }
    }
    std::cout << report.dump() << "\n";
    return result.matches.value_or(true) ? kExitOk : kExitMismatch;
  };
}

}  // namespace cvm::cli
