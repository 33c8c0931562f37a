// Generators of the transform_shape family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_transform_shape_generators(GeneratorTable&) {}

}  // namespace cvm
