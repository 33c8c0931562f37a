// Records of the elementwise family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> elementwise_ops() { return {}; }

}  // namespace cvm::ops
