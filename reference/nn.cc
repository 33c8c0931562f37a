// Reference kernels of the nn family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_nn(Backend&) {}

}  // namespace cvm::ref
