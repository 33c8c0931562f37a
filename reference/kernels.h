// Each family file adds its reference kernels to the backend (reference/<family>.cc).
#pragma once

#include "cvmcheck/op_list.h"
#include "cvmcheck/registry.h"

namespace cvm::ref {

#define CVMCHECK_FAMILY_KERNELS(family) void add_##family(Backend& backend);
CVMCHECK_FAMILIES(CVMCHECK_FAMILY_KERNELS)
#undef CVMCHECK_FAMILY_KERNELS

// The reference backend, named "reference", with every family above.
Backend make_backend();

}  // namespace cvm::ref
