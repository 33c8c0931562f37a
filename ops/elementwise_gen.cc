// Generators of the elementwise family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_elementwise_generators(GeneratorTable&) {}

}  // namespace cvm
