// Every operator record, without backends: for code below the top layer (the harness's
// generator table and fuzz input format) that needs the records but must not depend on the
// backends (registry/registry.h assembles those).
#pragma once

#include "cvmcheck/registry.h"

namespace cvm::ops {

// A registry holding every record (ops/schema.h's add_all_ops) and no backend.
const Registry& records();

}  // namespace cvm::ops
