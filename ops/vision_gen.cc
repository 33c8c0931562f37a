// Generators of the vision family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_vision_generators(GeneratorTable&) {}

}  // namespace cvm
