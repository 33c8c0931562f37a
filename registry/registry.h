// The top layer: the registry with every operator record and every backend built into this
// binary. It lives above every backend and the harness (planted backends) so that no lower
// layer can reach it; code below takes a Registry& (or the records only, ops/records.h).
#pragma once

#include "cvmcheck/registry.h"

namespace cvm {

// Assembled once, on first use (registry/registry.cc, which is where a new backend is added).
Registry& registry();

}  // namespace cvm
