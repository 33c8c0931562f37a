// Reference kernels of the broadcast family (not yet written).
#include "kernels.h"

namespace cvm::ref {

void add_broadcast(Backend&) {}

}  // namespace cvm::ref
