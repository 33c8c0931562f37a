#include "support/isas.h"

namespace cvm::testing {

std::vector<opt::Isa> all_isas() {
  std::vector<opt::Isa> isas;
  for (int i = 0; i < opt::kIsaCount; ++i) isas.push_back(static_cast<opt::Isa>(i));
  return isas;
}

std::vector<opt::Isa> machine_isas() {
  std::vector<opt::Isa> isas;
  for (opt::Isa isa : all_isas()) {
    if (opt::isa_built(isa) && opt::isa_supported(isa)) isas.push_back(isa);
  }
  return isas;
}

std::vector<IsaRun> isa_runs() {
  std::vector<IsaRun> runs;
  for (opt::Isa isa : machine_isas()) runs.push_back({isa, false});
  for (opt::Isa isa : all_isas()) {
    if (opt::isa_has_twin(isa)) runs.push_back({isa, true});
  }
  return runs;
}

std::vector<std::string> isa_path_backends() {
  std::vector<std::string> names;
  for (opt::Isa isa : all_isas()) {
    if (!opt::isa_built(isa)) continue;
    names.push_back(std::string("optimized/") + opt::isa_name(isa) +
                    (opt::isa_has_twin(isa) ? "~simde" : ""));
  }
  return names;
}

}  // namespace cvm::testing
