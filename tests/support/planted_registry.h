// A registry for tests of the planted bugs (harness/findings/planted.h).
#pragma once

#include <memory>

#include "cvmcheck/registry.h"
#include "harness/findings/planted.h"

namespace cvm::testing {

// Every operator, the reference and `bug`'s planted backend.
std::unique_ptr<Registry> registry_with(const PlantedBug& bug);

}  // namespace cvm::testing
