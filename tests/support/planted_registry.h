// A registry for tests of the planted bugs (harness/planted/planted.h).
#pragma once

#include <memory>
#include <string>

#include "cvmcheck/registry.h"
#include "harness/planted/planted.h"

namespace cvm::testing {

// Every operator, the reference and `bug`'s planted backend.
std::unique_ptr<Registry> registry_with(const PlantedBug& bug);

// The whole registry with `backend`'s kernel of the planted bug `planted`'s operator replaced by
// the buggy one: a bug in a built-in backend, as a kernel change would make it. Fails the calling
// test (empty registry) when no planted bug has that name.
Registry with_planted_kernel(const std::string& planted, const std::string& backend);

}  // namespace cvm::testing
