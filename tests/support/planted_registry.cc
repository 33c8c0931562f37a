#include "support/planted_registry.h"

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

}  // namespace cvm::testing
