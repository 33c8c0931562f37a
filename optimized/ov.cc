// Optimized kernels of the ov family (not yet written: the operators fall back to "not
// implemented", which every tool reports as skipped).
#include "optimized/kernels.h"

namespace cvm::opt {

void add_ov(Backend&) {}

}  // namespace cvm::opt
