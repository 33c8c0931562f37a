// Draws aimed at the kernels' path thresholds (cvmcheck/paths.h, docs/paths.md): the backends
// under test declare the sizes that decide their paths (a chunk, a k-block, a panel height,
// vector lanes); while a campaign has set them, a generator draws such a size on either side of
// one (t - 1, t, t + 1, or a multiple plus a tail) now and then, within its own caps. Unset (the
// default: properties, golden, fuzz targets), nothing is drawn for it, so those draws keep their
// bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/paths.h"
#include "cvmcheck/tensor.h"

namespace cvm::gen {

// The thresholds aimed at from now on (empty: none). Not thread-safe: set before drawing.
void set_path_thresholds(const std::vector<PathThreshold>& thresholds);
const std::vector<PathThreshold>& path_thresholds();
// Sets thresholds for a scope and restores the previous ones.
class ScopedPathThresholds {
 public:
  explicit ScopedPathThresholds(const std::vector<PathThreshold>& thresholds);
  ~ScopedPathThresholds();
  ScopedPathThresholds(const ScopedPathThresholds&) = delete;
  ScopedPathThresholds& operator=(const ScopedPathThresholds&) = delete;

 private:
  std::vector<PathThreshold> saved_;
};

// True while a campaign aims (thresholds set): a generator may then add draws of its own (a
// value at a limit) that the fixed draws of golden, the properties and the fuzz targets never
// make, so their bytes stay as they are.
bool aiming();

// Operators whose draws aim more often (1 in `share`): the campaign's feedback for paths with
// few calls so far. Empty: every operator at the generator's own share.
void set_aim_shares(const std::map<std::string, int>& shares);

// How the next draws aim while thresholds are set: kMixed at each generator's own share (and the
// feedback's), kNever not at all (aiming() false: the small calls of an operator), kOften three
// times as often as the generator's own share (one draw in 2 for the usual 1 in 6; the large
// calls at the thresholds). The campaign's schedule
// draws each operator's calls in two arms, never and often, each in its own share of the time
// (harness/campaign/call_schedule.h), so that an operator's few expensive calls at the
// thresholds do not take the calls of its many cheap ones.
enum class AimMode { kMixed, kNever, kOften };
void set_aim_mode(AimMode mode);

// Inside a generator: with probability 1/share (when `op` has a threshold of `quantity`), a
// value near one, clamped to [lo, hi]; otherwise nullopt, and nothing is drawn when no
// threshold applies.
std::optional<int64_t> aimed(const std::string& op, const std::string& quantity, int64_t lo,
                             int64_t hi, int share = 6);

// A shape of ndim in [min_ndim, max_ndim] whose element count is aimed at an "elements"
// threshold of `op` (up to `max_elements`), or nullopt as above.
std::optional<Shape> aimed_shape(const std::string& op, int min_ndim, int max_ndim,
                                 int64_t max_elements = int64_t{1} << 17);

// A shape of two sides near a "side" threshold of `op` (a small leading axis at times), or
// nullopt as above: the tiled copy of a transposing view.
std::optional<Shape> aimed_sides(const std::string& op);

}  // namespace cvm::gen
