// Records of the broadcast family (not yet written).
#include "schema.h"

namespace cvm::ops {

std::vector<OpInfo> broadcast_ops() { return {}; }

}  // namespace cvm::ops
