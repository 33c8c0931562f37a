// Optimized kernels of the transform_index family (not yet written: the operators fall back to "not
// implemented", which every tool reports as skipped).
#include "optimized/kernels.h"

namespace cvm::opt {

void add_transform_index(Backend&) {}

}  // namespace cvm::opt
