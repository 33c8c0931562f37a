// Reference kernels of the elementwise family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_elementwise(Backend&) {}

}  // namespace cvm::ref
