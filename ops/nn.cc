// Records of the nn family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> nn_ops() { return {}; }

}  // namespace cvm::ops
