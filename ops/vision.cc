// Records of the vision family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> vision_ops() { return {}; }

}  // namespace cvm::ops
