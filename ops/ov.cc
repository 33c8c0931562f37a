// Records of the ov family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> ov_ops() { return {}; }

}  // namespace cvm::ops
