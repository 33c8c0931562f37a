// Generators of the broadcast family (not yet written).
#include "harness/generators.h"

namespace cvm {

void add_broadcast_generators(GeneratorTable&) {}

}  // namespace cvm
