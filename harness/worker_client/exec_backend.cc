#include "harness/worker_client/exec_backend.h"

#include <map>
#include <set>
#include <memory>
#include <cctype>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/paths.h"
#include "harness/worker_client/worker_client.h"

namespace cvm {
namespace {

struct ExecBackend {
  std::string command;
  bool defined = false;  // by --backend-def (else an inline exec:)
  std::shared_ptr<WorkerClient> client;
};

// Workers live as long as the process: the registry's backends hold calls into them.
std::map<std::string, ExecBackend>& started() {
  static std::map<std::string, ExecBackend> backends;
  return backends;
}

// NAME -> COMMAND of every --backend-def; LogicError on a malformed one.
std::map<std::string, std::string> definitions(const ExecSettings& settings) {
  std::map<std::string, std::string> out;
  for (const std::string& def : settings.definitions) {
    const size_t eq = def.find('=');
    verify(eq != std::string::npos && eq > 0 && eq + 1 < def.size(),
           "--backend-def '", def, "': expected NAME=COMMAND");
    const std::string name = def.substr(0, eq);
    verify(name.find_first_of(" \t/'\"") == std::string::npos && name.rfind(kExecPrefix, 0) != 0,
           "--backend-def '", def, "': the name may not contain spaces, quotes or '/', nor start "
           "with exec:");
    out[name] = def.substr(eq + 1);
  }
  return out;
}

// The kernel paths the worker's hello declares, each defined in the path table (so paths::find
// gives its operators and description) and listed once in `backend.paths`. A worker declaring
// more than the table holds fails its start, as a malformed hello does.
void declare_paths(const WorkerClient& client, Backend& backend) {
  std::set<std::string> seen;
  for (const cvmcheck_worker::PathDecl& p : client.hello().paths) {
    if (!seen.insert(p.id).second) continue;
    try {
      paths::define(p.id.c_str(), p.ops.c_str(), p.description.c_str());
    } catch (const std::exception& e) {
      throw WorkerStartError(concat("worker '", client.options().command,
                                    "' declares kernel paths the harness cannot hold: ", e.what()));
    }
    backend.paths.push_back(p.id);
  }
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool is_exec_backend(const std::string& name, const ExecSettings& settings) {
  return name.rfind(kExecPrefix, 0) == 0 || definitions(settings).count(name) != 0;
}

std::string resolve_backend(Registry& registry, const std::string& name,
                            const ExecSettings& settings) {
  if (registry.find_backend(name) != nullptr) return name;
  const auto defs = definitions(settings);
  const bool inline_exec = name.rfind(kExecPrefix, 0) == 0;
  if (!inline_exec && defs.count(name) == 0) return name;  // unknown: the caller says so
  ExecBackend backend;
  backend.command = inline_exec ? name.substr(std::string(kExecPrefix).size()) : defs.at(name);
  backend.defined = !inline_exec;
  verify(backend.command.find_first_not_of(" \t") != std::string::npos, "backend '", name,
         "': empty command");
  WorkerOptions options;
  options.command = backend.command;
  options.call_timeout_s = settings.call_timeout_s;
  options.hang_stacks = settings.hang_stacks;
  options.memory_bytes = settings.memory_bytes;
  options.spin_us = settings.spin_us;
  if (!settings.log_dir.empty()) {
    std::string file;
    for (char c : name) file += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    options.log_path = settings.log_dir + "/" + file.substr(0, 80) + ".stderr.log";
  }
  backend.client = std::make_shared<WorkerClient>(options);

  Backend b;
  b.name = name;
  b.reports_precision =
      (backend.client->hello().flags & cvmcheck_worker::kFlagNoPrecision) == 0;
  for (const std::string& op : backend.client->hello().ops) {
    // The handshake may list aliases; unknown names are the worker's business (never called).
    if (const OpInfo* info = registry.find_op(op)) b.external_ops.insert(info->name);
  }
  declare_paths(*backend.client, b);
  std::shared_ptr<WorkerClient> client = backend.client;
  b.external = [client](const std::string& op, const nlohmann::json& attrs,
                        const std::vector<Tensor>& inputs) {
    return client->call(op, attrs, inputs);
  };
  b.external_begin = [client](const std::string& op, const nlohmann::json& attrs,
                              const std::vector<Tensor>& inputs) -> std::function<Outcome()> {
    client->begin(op, attrs, inputs);
    return [client] { return client->finish(); };
  };
  registry.add_backend(std::move(b));
  started()[name] = std::move(backend);
  return name;
}

std::vector<std::string> resolve_backends(Registry& registry,
                                          const std::vector<std::string>& names,
                                          const ExecSettings& settings) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& name : names) out.push_back(resolve_backend(registry, name, settings));
  return out;
}

std::string backend_cli_args(const std::string& backend) {
  const auto it = started().find(backend);
  if (it == started().end()) return "--backend " + backend;
  if (!it->second.defined) return "--backend " + shell_quote(backend);
  return "--backend-def " + shell_quote(backend + "=" + it->second.command) + " --backend " +
         backend;
}

std::string backend_definition_args(const std::string& backend) {
  const auto it = started().find(backend);
  if (it == started().end() || !it->second.defined) return "";
  return "--backend-def " + shell_quote(backend + "=" + it->second.command);
}

WorkerClient* model_worker(const std::string& name) {
  const auto it = started().find(name);
  if (it == started().end() || !it->second.client->runs_models()) return nullptr;
  return it->second.client.get();
}

std::vector<ExecBackendInfo> exec_backends() {
  std::vector<ExecBackendInfo> out;
  for (const auto& [name, backend] : started()) {
    ExecBackendInfo info;
    info.name = name;
    info.command = backend.command;
    info.implementation = backend.client->hello().name;
    info.log_path = backend.client->log_path();
    info.calls = backend.client->calls();
    info.restarts = backend.client->restarts();
    info.operators = backend.client->hello().ops.size();
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace cvm
