// Golden fixtures of the MRT expansions (docs/mrt.md): for a few fixed seeds per identity,
// every step of the expansion as an ordinary case directory (so `cvmcheck run` replays each
// step and `cvmcheck golden verify` replays them all), plus the expected final output (the
// direct formula). Same MANIFEST.json format as golden/ (docs/golden-format.md), with an extra
// "finals" list. Deterministic: fixed seeds, integer data only, one draw per statement.
#pragma once

#include <cstdint>
#include <string>

#include "cvmcheck/registry.h"

namespace cvm::mrt {

struct MrtGoldenOptions {
  std::string out = "golden-mrt";
  int seeds_per_identity = 2;
  int size = 100;  // RapidCheck size of the last seed; seed k of n gets size * (k + 1) / n
  uint64_t seed = 20261123;   // fixed: changing it changes every case
};

struct MrtGoldenSummary {
  int64_t identities = 0, instances = 0, cases = 0, files = 0, bytes = 0;
};

// Writes the suite into options.out (must not exist or be empty). RuntimeError when an
// expansion on the reference differs from the direct formula (never written into fixtures).
MrtGoldenSummary generate_mrt_golden(const Registry& registry, const MrtGoldenOptions& options);

// The per-identity seed base shared by the fixtures and `cvmcheck mrt`.
uint64_t identity_seed(uint64_t seed, const std::string& identity);

}  // namespace cvm::mrt
