// Records of the transform_index family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> transform_index_ops() { return {}; }

}  // namespace cvm::ops
