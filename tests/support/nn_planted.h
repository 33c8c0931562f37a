// The campaign of the nn planted-fault tests (tests/optimized/*_planted_test.cc): dense and
// conv2d, valid calls only, a fixed seed, bounded by calls alone (never the machine's speed or
// load, nor an emulator's), on one backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cvmcheck/registry.h"

namespace cvm::testing {

// The mismatching calls of that campaign on `planted` (added to a copy of the registry, declaring
// the operators of `like`), or on `like` itself when `planted` is empty. Fails the calling test
// when the backend computed under 100 calls (too few to judge) and prints a line of figures.
int64_t nn_campaign_mismatches(std::optional<Backend> planted, const std::string& like,
                               uint64_t seed, int64_t max_cases);

}  // namespace cvm::testing
