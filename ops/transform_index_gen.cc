// Generators of the transform_index family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_transform_index_generators(GeneratorTable&) {}

}  // namespace cvm
