// Generators of the ov family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_ov_generators(GeneratorTable&) {}

}  // namespace cvm
