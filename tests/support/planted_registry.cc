#include "support/planted_registry.h"

#include <gtest/gtest.h>

#include "registry/registry.h"

#include "ops/schema.h"
#include "reference/kernels.h"

namespace cvm::testing {

std::unique_ptr<Registry> registry_with(const PlantedBug& bug) {
  auto r = std::make_unique<Registry>();
  ops::add_all_ops(*r);
  r->add_backend(ref::make_backend());
  r->add_backend(make_planted_backend(*r->find_backend("reference"), bug));
  return r;
}

Registry with_planted_kernel(const std::string& planted, const std::string& backend) {
  Registry r = registry();
  for (const PlantedBug& bug : planted_bugs()) {
    if (bug.backend != planted) continue;
    const Backend buggy = make_planted_backend(*r.find_backend("reference"), bug);
    r.find_backend(backend)->kernels[bug.op] = buggy.kernels.at(bug.op);
    return r;
  }
  ADD_FAILURE() << "no planted bug named " << planted;
  return Registry();
}

}  // namespace cvm::testing
