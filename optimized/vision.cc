// Optimized kernels of the vision family (not yet written: the operators fall back to "not
// implemented", which every tool reports as skipped).
#include "optimized/kernels.h"

namespace cvm::opt {

void add_vision(Backend&) {}

}  // namespace cvm::opt
