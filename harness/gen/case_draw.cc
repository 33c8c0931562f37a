#include "harness/gen/case_draw.h"

namespace cvm {

rc::Shrinkable<Call> draw_shrinkable(const OpGenerators& gens, uint64_t seed,
                                     double invalid_share) {
  const double unit = static_cast<double>(seed >> 11) * 0x1.0p-53;
  const int size = static_cast<int>(seed % 101);
  const rc::Random random(seed);
  if (unit < invalid_share && !gens.invalid.empty()) {
    return gens.invalid[(seed >> 7) % gens.invalid.size()].gen(random, size);
  }
  return gens.valid(random, size);
}

bool draw_call(const OpGenerators& gens, uint64_t seed, double invalid_share, Call& call) {
  try {
    call = draw_shrinkable(gens, seed, invalid_share).value();
    return true;
  } catch (...) {
    // A generator that gives up (e.g. a discarded draw) is not a finding of the backends.
    return false;
  }
}

}  // namespace cvm
