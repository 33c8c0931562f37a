// Generators of the nn family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_nn_generators(GeneratorTable&) {}

}  // namespace cvm
