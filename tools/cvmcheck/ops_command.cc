// cvmcheck ops: one line per operator: name, arity, backends implementing it, aliases.
#include <iomanip>
#include <iostream>

#include "backends/registry.h"
#include "commands.h"
#include "cvmcheck/registry.h"

namespace cvm::cli {

std::string arity_text(int min_inputs, int max_inputs) {
  if (max_inputs < 0) return std::to_string(min_inputs) + "+";
  if (max_inputs == min_inputs) return std::to_string(min_inputs);
  return std::to_string(min_inputs) + "-" + std::to_string(max_inputs);
}

Action add_ops_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "ops", "List the operators: name, arity, backends that implement it, aliases");
  (void)sub;
  return [] {
    for (const OpInfo& op : registry().ops()) {
      std::string backends;
      for (const Backend& b : registry().backends()) {
        if (!b.implements(op.name)) continue;
        backends += (backends.empty() ? "" : ",") + b.name;
        if (!b.available) backends += "(unavailable: " + b.unavailable_reason + ")";
      }
      std::cout << std::left << std::setw(22) << op.name << " " << std::setw(4)
                << arity_text(op.min_inputs, op.max_inputs) << " "
                << (backends.empty() ? "-" : backends);
      for (const std::string& alias : op.aliases) std::cout << " alias:" << alias;
      std::cout << "\n";
    }
    return kExitOk;
  };
}

}  // namespace cvm::cli
