// External backends by name: `exec:COMMAND` (the command line is the name) or a name defined
// with `--backend-def NAME=COMMAND`. Resolving one starts its worker
// (harness/worker_client/worker_client.h), completes the handshake and registers a Backend whose
// calls go to the worker, so every tool that takes a backend name takes these too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm {

struct ExecSettings {
  std::vector<std::string> definitions;  // "NAME=COMMAND", from --backend-def
  double call_timeout_s = 10;
  int64_t memory_bytes = int64_t{4} << 30;  // 0: no limit
  std::string log_dir;                      // the workers' stderr logs; empty: $TMPDIR
  double spin_us = 0;                       // WorkerOptions::spin_us
  bool hang_stacks = false;                 // WorkerOptions::hang_stacks
};

inline constexpr const char* kExecPrefix = "exec:";

// True for "exec:..." and for names defined in `settings`.
bool is_exec_backend(const std::string& name, const ExecSettings& settings);

// Returns `name` after registering its worker when it is an external backend not registered
// yet; any other name is returned unchanged. WorkerStartError when the worker does not start;
// LogicError for an empty command or a malformed definition.
std::string resolve_backend(Registry& registry, const std::string& name,
                            const ExecSettings& settings);
std::vector<std::string> resolve_backends(Registry& registry,
                                          const std::vector<std::string>& names,
                                          const ExecSettings& settings);

// The command-line arguments that select `backend` again in a new process (for __REPRO lines):
// "--backend NAME", "--backend 'exec:CMD'", or "--backend-def 'NAME=CMD' --backend NAME".
std::string backend_cli_args(const std::string& backend);
// Only the definition part: "--backend-def 'NAME=CMD'" for a backend defined by one, else "".
std::string backend_definition_args(const std::string& backend);

// An external backend whose worker's handshake says its outputs carry no precision
// (cvmcheck_worker::kFlagNoPrecision, e.g. ONNX Runtime) is registered with
// Backend::reports_precision false. What the tables say after "precision not compared: backend NAME".
inline constexpr const char* kPrecisionNotCompared =
    " reports no output precision (its worker's handshake flag): precisions were not compared; "
    "values, shapes, dtypes and error classes were";

// The external backends registered so far, with their worker's statistics, for reports.
struct ExecBackendInfo {
  std::string name, command, implementation, log_path;
  int64_t calls = 0, restarts = 0;
  size_t operators = 0;
};
std::vector<ExecBackendInfo> exec_backends();

class WorkerClient;
// The worker of external backend `name` when it runs whole models (its hello has
// cvmcheck_worker::kFlagGraphs), for graph::run_graph; nullptr for any other backend.
WorkerClient* model_worker(const std::string& name);

// Quotes `text` for a POSIX shell.
std::string shell_quote(const std::string& text);

}  // namespace cvm
