// The fast value generator: a generated tensor's values come from one RapidCheck draw (a 64-bit
// seed) expanded by splitmix64, with the same edge bias as gen::value, instead of one RapidCheck
// draw per element (each a split of its Random plus a Threefish block, and a shrink tree node:
// the largest share of a campaign call's time, docs/performance.md). The shrink tree is built
// lazily from the values:
// all zero, zeroed halves, quarters ... pairs, then each element towards 0, so a finding still
// shrinks to few non-zero values. docs/architecture.md, "How a generated call becomes a verdict".
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

namespace cvm::gen {

// The edge values of precision p (1..32): 0, +-1, +-alpha(p), +-(alpha(p)-1), powers of two and
// their neighbours up to alpha(p), in gen::value's order; a value listed twice (0 at p = 1, 2)
// is drawn twice as often, as gen::value draws it.
const std::vector<int32_t>& edge_values(int p);

// `count` values of precision p from `seed`: element i is an edge value with probability 3/5,
// else uniform in [-alpha(p), alpha(p)]. A prefix of a longer fill is the shorter fill, so a
// shrunk shape keeps the values it keeps.
std::vector<int32_t> fill_values(uint64_t seed, int64_t count, int p);

// The shrinks of a vector of values, lazily: all zero; each run of n/2, n/4 ... 2 elements
// zeroed (runs already zero skipped); each non-zero element towards 0. Every shrink keeps the
// length and moves values towards 0, so it stays within the precision.
rc::Seq<std::vector<int32_t>> shrink_values(const std::vector<int32_t>& values);

// `count` values of precision p with the shrink tree above (one draw from `random`).
rc::Gen<std::vector<int32_t>> filled_values(int64_t count, int p);

}  // namespace cvm::gen
