#include "harness/gen/path_aim.h"

#include <rapidcheck.h>

#include <algorithm>

namespace cvm::gen {
namespace {

std::vector<PathThreshold>& current() {
  static std::vector<PathThreshold> thresholds;
  return thresholds;
}

std::map<std::string, int>& shares() {
  static std::map<std::string, int> boosted;
  return boosted;
}

AimMode& mode() {
  static AimMode current = AimMode::kMixed;
  return current;
}

// The values of `quantity` for `op` among the thresholds set.
std::vector<int64_t> values_of(const std::string& op, const std::string& quantity) {
  std::vector<int64_t> values;
  for (const PathThreshold& t : current()) {
    if (t.quantity != quantity || t.value < 1) continue;
    if (std::find(t.ops.begin(), t.ops.end(), op) != t.ops.end()) values.push_back(t.value);
  }
  return values;
}

// Uniform in [lo, hi] at full size (RapidCheck scales inRange with the case's size).
int64_t full(int64_t lo, int64_t hi) {
  return *rc::gen::resize(100, rc::gen::inRange<int64_t>(lo, hi + 1));
}

}  // namespace

void set_path_thresholds(const std::vector<PathThreshold>& thresholds) { current() = thresholds; }

const std::vector<PathThreshold>& path_thresholds() { return current(); }

bool aiming() { return !path_thresholds().empty() && mode() != AimMode::kNever; }

ScopedPathThresholds::ScopedPathThresholds(const std::vector<PathThreshold>& thresholds)
    : saved_(current()) {
  current() = thresholds;
}

ScopedPathThresholds::~ScopedPathThresholds() {
  current() = saved_;
  shares().clear();
  mode() = AimMode::kMixed;
}

void set_aim_shares(const std::map<std::string, int>& boosted) { shares() = boosted; }

void set_aim_mode(AimMode m) { mode() = m; }

std::optional<int64_t> aimed(const std::string& op, const std::string& quantity, int64_t lo,
                             int64_t hi, int share) {
  if (mode() == AimMode::kNever) return std::nullopt;
  const std::vector<int64_t> values = values_of(op, quantity);
  if (values.empty() || lo > hi) return std::nullopt;
  const auto boosted = shares().find(op);
  if (boosted != shares().end()) share = std::min(share, boosted->second);
  // Three times as often as the generator's own share (1 in 2 for the usual 6): an aim its
  // generator makes rare for its cost (a large image, 1 in 24) stays rarer than the others.
  if (mode() == AimMode::kOften) share = std::max(1, share / 3);
  if (full(1, share) != 1) return std::nullopt;
  const int64_t t = values[static_cast<size_t>(full(0, static_cast<int64_t>(values.size()) - 1))];
  int64_t v = t;
  switch (full(0, 4)) {
    case 0: v = t - 1; break;
    case 1: v = t; break;
    case 2: v = t + 1; break;
    default: {  // a multiple and a tail: the second (third) block's and the tail's code
      const int64_t k = full(2, 3);
      v = k * t + (full(0, 1) == 1 ? full(1, std::max<int64_t>(1, t - 1)) : 0);
    }
  }
  return std::clamp(v, lo, hi);
}

std::optional<Shape> aimed_shape(const std::string& op, int min_ndim, int max_ndim,
                                 int64_t max_elements) {
  const std::optional<int64_t> n = aimed(op, "elements", 1, max_elements);
  if (!n) return std::nullopt;
  const int ndim = static_cast<int>(full(min_ndim, max_ndim));
  // The count exactly: each leading axis takes a small divisor of what is left (1 if none),
  // the last axis the rest, so the run past the threshold is the innermost one.
  Shape dims(static_cast<size_t>(ndim), 1);
  int64_t left = *n;
  for (int i = 0; i + 1 < ndim; ++i) {
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= 8; ++d) {
      if (left % d == 0) divisors.push_back(d);
    }
    if (divisors.empty() || full(0, 2) == 0) continue;
    const int64_t d = divisors[static_cast<size_t>(full(0, static_cast<int64_t>(divisors.size()) - 1))];
    dims[static_cast<size_t>(i)] = d;
    left /= d;
  }
  dims.back() = left;
  return dims;
}

std::optional<Shape> aimed_sides(const std::string& op) {
  const auto side = aimed(op, "side", 1, 160);
  if (!side) return std::nullopt;
  const auto other = aimed(op, "side", 1, 160, 1);
  Shape shape = {*side, other.value_or(*side)};
  if (full(0, 2) == 0) shape.insert(shape.begin(), full(2, 4));
  return shape;
}

}  // namespace cvm::gen
