// Reference kernels of the transform_index family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_transform_index(Backend&) {}

}  // namespace cvm::ref
