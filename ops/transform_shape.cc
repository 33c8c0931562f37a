// Records of the transform_shape family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> transform_shape_ops() { return {}; }

}  // namespace cvm::ops
