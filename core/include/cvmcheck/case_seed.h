// The seed of each call of a run: every generated call (campaign, golden fixtures, MRT cases)
// is drawn from its own case seed, derived from the run's seed and the call's index, so one call
// replays alone and a run replays whole from its seed.
#pragma once

#include <cstdint>
#include <string>

namespace cvm {

// The seed of call number `index` of a run with `seed` (splitmix64).
uint64_t case_seed(uint64_t seed, uint64_t index);

// `seed` as 16 hexadecimal digits (a repro directory's suffix).
std::string seed_hex(uint64_t seed);

}  // namespace cvm
