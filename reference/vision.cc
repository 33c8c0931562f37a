// Reference kernels of the vision family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_vision(Backend&) {}

}  // namespace cvm::ref
