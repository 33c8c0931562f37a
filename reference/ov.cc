// Reference kernels of the ov family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_ov(Backend&) {}

}  // namespace cvm::ref
