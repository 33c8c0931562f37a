#include "exec_options.h"

#include "cvmcheck/errors.h"

namespace cvm::cli {
namespace {

int64_t parse_bytes(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    fail_logic("--worker-memory '", text, "': expected bytes, e.g. 0, 512M or 4G");
  }
  const std::string suffix = text.substr(used);
  double scale = 1;
  if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M" || suffix == "m") scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024 * 1024;
  else verify(suffix.empty(), "--worker-memory '", text, "': unknown suffix '", suffix, "'");
  verify(value >= 0 && value * scale < 9.0e18, "--worker-memory '", text, "' out of range");
  return static_cast<int64_t>(value * scale);
}

}  // namespace

void add_exec_options(CLI::App* sub, ExecCli& cli) {
  sub->add_option("--backend-def", cli.settings.definitions,
                  "NAME=COMMAND: an external backend (a worker process) named NAME; repeatable")
      ->group("External backends");
  sub->add_option("--call-timeout", cli.settings.call_timeout_s,
                  "Seconds an external backend may take per call before it is a hang (default 10)")
      ->check(CLI::PositiveNumber)
      ->group("External backends");
  sub->add_option("--worker-memory", cli.worker_memory,
                  "Address-space limit of each worker (rlimit), e.g. 512M, 4G; 0: none "
                  "(default 4G)")
      ->group("External backends");
  sub->add_option("--worker-spin-us", cli.settings.spin_us,
                  "Microseconds to poll for a worker's reply before sleeping on it (default 0); "
                  "helps only with a core to spare per worker (docs/backend-protocol.md)")
      ->check(CLI::NonNegativeNumber)
      ->group("External backends");
  sub->add_flag("--hang-stacks", cli.settings.hang_stacks,
               "On a hang, append the worker's stacks (gdb, when installed) to its stderr log "
               "with .stacks.txt")
      ->group("External backends");
  sub->add_option("--worker-log-dir", cli.settings.log_dir,
                  "Directory for the workers' stderr logs (default: $TMPDIR)")
      ->group("External backends");
}

ExecSettings exec_settings(const ExecCli& cli) {
  ExecSettings settings = cli.settings;
  settings.memory_bytes = parse_bytes(cli.worker_memory);
  return settings;
}

void add_xfail_options(CLI::App* sub, XfailCli& cli) {
  sub->add_option("--xfail", cli.for_all,
                  "Expected-failure list for every backend (docs/expected-failures.md); "
                  "repeatable");
  sub->add_option("--xfail-for", cli.for_one,
                  "BACKEND=FILE: an expected-failure list for one backend; repeatable");
}

ExpectationSet expectations(const XfailCli& cli) {
  return read_expectations(cli.for_all, cli.for_one);
}

std::vector<std::string> defined_backend_names(const ExecSettings& settings) {
  std::vector<std::string> names;
  for (const std::string& def : settings.definitions) {
    const size_t eq = def.find('=');
    if (eq != std::string::npos) names.push_back(def.substr(0, eq));
  }
  return names;
}

}  // namespace cvm::cli
