// cvmcheck: conformance and differential checks of the CVM integer operators.
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>
#include <map>

#include "commands.h"
#include "cvmcheck/case.h"
#include "harness/worker_client/worker_client.h"

int main(int argc, char** argv) {
  // OpenMP threads that wait passively: libgomp's default spin-wait at barriers is ruinous when
  // the harness's processes (--jobs, one per core) each run a 3-thread team for optimized@3: a
  // campaign with --jobs 2 made 6.5k calls/s spinning and 13k passive on 2 cores
  // (docs/performance.md). libgomp reads the variable when it loads, before main, so the process
  // re-executes itself once with it set; a value the user set is kept.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: go on with the default policy
  }
  // Keep freed memory in the heap: glibc otherwise maps every block over 128 KiB afresh and
  // trims the heap top after each call, so a campaign (and a worker serving it) paid 10-30
  // first-touch page faults per call for buffers it had just freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{"cvmcheck: conformance and differential checks of the CVM integer operators"};
  app.require_subcommand(1);
  std::map<CLI::App*, cvm::cli::Action> actions;
  for (auto add : {cvm::cli::add_ops_command, cvm::cli::add_run_command,
                    cvm::cli::add_campaign_command, cvm::cli::add_golden_command,
                    cvm::cli::add_repro_command, cvm::cli::add_corpus_command,
                    cvm::cli::add_mrt_command, cvm::cli::add_worker_command,
                    cvm::cli::add_findings_command, cvm::cli::add_report_command,
                    cvm::cli::add_bisect_command, cvm::cli::add_graphs_command,
                    cvm::cli::add_merge_command}) {
    cvm::cli::Action action = add(app);
    actions[app.get_subcommands({}).back()] = action;
  }
  if (const int status = cvm::cli::check_subcommand_names(app, argc, argv); status >= 0) {
    return status;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : cvm::cli::kExitUsage;
  }
  try {
    for (CLI::App* sub : app.get_subcommands()) return actions.at(sub)();
  } catch (const cvm::WorkerStartError& e) {
    std::cerr << "cvmcheck: external backend: " << e.what() << "\n";
    return cvm::cli::kExitWorkerStart;
  } catch (const cvm::CaseFileError& e) {
    std::cerr << "cvmcheck: unreadable case: " << e.what() << "\n";
    return cvm::cli::kExitCaseError;
  } catch (const std::exception& e) {
    std::cerr << "cvmcheck: " << e.what() << "\n";
    return cvm::cli::kExitUsage;
  }
  return cvm::cli::kExitUsage;
}
