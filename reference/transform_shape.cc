// Reference kernels of the transform_shape family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_transform_shape(Backend&) {}

}  // namespace cvm::ref
