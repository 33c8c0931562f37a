// A generated call from its case seed (cvmcheck/case_seed.h): which of an operator's generators
// draws it (valid, or one breaking a rule) and with what size, all derived from the seed, so a
// call replays alone, and its shrink tree comes with it (walked only for a finding).
#pragma once

#include <rapidcheck.h>

#include <cstdint>

#include "harness/engine/call.h"
#include "harness/gen/generators.h"

namespace cvm {

// Draws the call of case seed `seed`: a valid call, or (with probability invalid_share) a call
// breaking one rule.
rc::Shrinkable<Call> draw_shrinkable(const OpGenerators& gens, uint64_t seed,
                                     double invalid_share);
// As draw_shrinkable, the value only; false when the generator gave up (not a finding).
bool draw_call(const OpGenerators& gens, uint64_t seed, double invalid_share, Call& call);

}  // namespace cvm
