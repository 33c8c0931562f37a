// Drafters of the reduce, transform and vision operators (graph_gen_ops.h).
#include <algorithm>
#include <numeric>

#include "cvmcheck/precision.h"
#include "harness/graph/graph_gen_ops.h"

namespace cvm::graph {
namespace {

const LiveEntry& at(const std::vector<LiveEntry>& live, int i) { return live[static_cast<size_t>(i)]; }
int64_t rank_of(const LiveEntry& e) { return static_cast<int64_t>(e.shape.size()); }

std::vector<int64_t> some_axes(Rng& rng, int64_t n) {
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < n; ++a) {
    if (rng.chance(0.4)) axes.push_back(rng.chance(0.2) ? a - n : a);
  }
  return axes;
}

template <bool kSum>
std::optional<Draft> reduce(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int64_t n = rank_of(at(live, primary));
  return Draft{kSum ? "sum" : "max",
               {{"axis", tuple_text(some_axes(rng, n))},
                {"keepdims", rng.chance(0.5) ? "True" : "False"},
                {"exclude", rng.chance(0.1) ? "True" : "False"}},
               {live_input(primary)}};
}

std::optional<Draft> repeat(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int64_t n = rank_of(at(live, primary));
  return Draft{"repeat",
               {{"repeats", std::to_string(rng.range(1, 3))}, {"axis", std::to_string(rng.range(-n, n - 1))}},
               {live_input(primary)}};
}

std::optional<Draft> tile(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int64_t n = std::min<int64_t>(rank_of(at(live, primary)) + 1, kMaxNdim);
  std::vector<int64_t> reps(static_cast<size_t>(rng.range(1, n)));
  for (int64_t& r : reps) r = rng.range(1, 2);
  return Draft{"tile", {{"reps", tuple_text(reps)}}, {live_input(primary)}};
}

std::optional<Draft> concatenate(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const LiveEntry& x = at(live, primary);
  const int64_t axis = rng.range(0, rank_of(x) - 1);
  Draft d{"concatenate", {{"axis", std::to_string(axis)}}, {live_input(primary)}};
  for (size_t i = 0; i < live.size() && d.inputs.size() < 3; ++i) {
    Shape s = live[i].shape;
    if (static_cast<int>(i) == primary || s.size() != x.shape.size()) continue;
    s[static_cast<size_t>(axis)] = x.shape[static_cast<size_t>(axis)];
    if (s == x.shape && rng.chance(0.5)) d.inputs.push_back(live_input(static_cast<int>(i)));
  }
  if (d.inputs.size() == 1 || rng.chance(0.3)) {
    Shape s = x.shape;
    s[static_cast<size_t>(axis)] = rng.range(1, 4);
    d.inputs.push_back(param_input(s, static_cast<int>(rng.range(1, 8))));
  }
  return d;
}

std::optional<Draft> expand_dims(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const int64_t n = rank_of(at(live, primary));
  if (n >= kMaxNdim) return std::nullopt;
  return Draft{"expand_dims",
               {{"axis", std::to_string(rng.range(-n - 1, n))},
                {"num_newaxis", std::to_string(rng.range(1, std::min<int64_t>(2, kMaxNdim - n)))}},
               {live_input(primary)}};
}

// A new shape of the same element count: the dims split and merged at random.
std::optional<Draft> reshape(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  Shape s{shape_size(at(live, primary).shape)};
  for (int k = static_cast<int>(rng.range(0, 3)); k > 0 && s.size() < 4; --k) {
    const size_t i = static_cast<size_t>(rng.below(s.size()));
    std::vector<int64_t> divisors;
    for (int64_t f = 2; f < s[i]; ++f) {
      if (s[i] % f == 0) divisors.push_back(f);
    }
    if (divisors.empty()) continue;
    const int64_t f = rng.pick(divisors);
    s[i] /= f;
    s.insert(s.begin() + static_cast<long>(i), f);
  }
  if (rng.chance(0.2)) s[static_cast<size_t>(rng.below(s.size()))] = -1;  // inferred
  return Draft{"reshape", {{"shape", tuple_text(s)}}, {live_input(primary)}};
}

std::optional<Draft> squeeze(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const Shape& s = at(live, primary).shape;
  std::vector<int64_t> ones;
  for (size_t a = 0; a < s.size(); ++a) {
    if (s[a] == 1) ones.push_back(static_cast<int64_t>(a));
  }
  if (ones.empty() || ones.size() == s.size()) return std::nullopt;
  const std::vector<int64_t> axis = rng.chance(0.5) ? std::vector<int64_t>{} : std::vector<int64_t>{rng.pick(ones)};
  return Draft{"squeeze", {{"axis", tuple_text(axis)}}, {live_input(primary)}};
}

std::optional<Draft> transpose(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  std::vector<int64_t> axes(static_cast<size_t>(rank_of(at(live, primary))));
  std::iota(axes.begin(), axes.end(), 0);
  for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[static_cast<size_t>(rng.below(i))]);
  if (rng.chance(0.2)) axes.clear();  // reversed
  return Draft{"transpose", {{"axes", tuple_text(axes)}}, {live_input(primary)}};
}

std::optional<Draft> strided_slice(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const Shape& s = at(live, primary).shape;
  std::vector<int64_t> begin, end, stride;
  for (size_t a = 0; a < s.size() && (a == 0 || rng.chance(0.7)); ++a) {
    const int64_t b = rng.range(0, s[a] - 1);
    begin.push_back(b);
    if (b > 0 && rng.chance(0.2)) {  // backwards
      end.push_back(rng.range(0, b - 1));
      stride.push_back(-rng.range(1, 2));
    } else {
      end.push_back(rng.range(b + 1, s[a]));
      stride.push_back(rng.range(1, 2));
    }
  }
  return Draft{"strided_slice",
               {{"begin", tuple_text(begin)}, {"end", tuple_text(end)}, {"stride", tuple_text(stride)}},
               {live_input(primary)}};
}

DraftInput index_param(Rng& rng, int64_t size) {
  Shape shape{rng.range(1, 4)};
  if (rng.chance(0.3)) shape.push_back(rng.range(1, 3));
  DraftInput in = param_input(shape, 8);
  in.param.lo = -1;
  in.param.hi = std::min<int64_t>(size, 126);
  return in;
}

std::optional<Draft> take(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const Shape& s = at(live, primary).shape;
  const bool flat = rng.chance(0.4);
  const int64_t axis = rng.range(0, static_cast<int64_t>(s.size()) - 1);
  Draft d{"take", {{"axis", flat ? "None" : std::to_string(axis)}}, {live_input(primary)}};
  d.inputs.push_back(index_param(rng, flat ? shape_size(s) : s[static_cast<size_t>(axis)]));
  return d;
}

std::optional<Draft> cvm_lut(Rng& rng, int primary, const std::vector<LiveEntry>&) {
  const int64_t in_dim = rng.range(1, 16);
  return Draft{"cvm_lut", {{"in_dim", std::to_string(in_dim)}},
               {live_input(primary), param_input({in_dim}, static_cast<int>(rng.range(1, 8)))}};
}

std::optional<Draft> slice_like(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  Shape s = at(live, primary).shape;
  for (int64_t& d : s) d = rng.range(1, d);
  return Draft{"slice_like", {{"axis", "()"}}, {live_input(primary), param_input(s, 8)}};
}

std::optional<Draft> where(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const LiveEntry& x = at(live, primary);
  DraftInput cond = param_input(x.shape, 2);
  if (rng.chance(0.3)) cond.param.shape = {x.shape[0]};  // whole rows
  return Draft{"where", {}, {cond, live_input(primary), param_input(x.shape, static_cast<int>(rng.range(1, 8)))}};
}

std::optional<Draft> pad(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  std::vector<int64_t> widths;
  for (size_t a = 0; a < at(live, primary).shape.size(); ++a) {
    widths.push_back(rng.range(0, 1));
    widths.push_back(rng.range(0, 1));
  }
  return Draft{"pad", {{"pad_width", tuple_text(widths)}, {"constant_value", std::to_string(rng.range(-3, 3))}},
               {live_input(primary)}};
}

std::optional<Draft> get_valid_counts(Rng& rng, int primary, const std::vector<LiveEntry>&) {
  return Draft{"get_valid_counts", {{"score_threshold", std::to_string(rng.range(-2, 2))}}, {live_input(primary)}};
}

// Inputs (X, valid_count): the count is get_valid_counts' first output beside these rows, else a
// parameter.
std::optional<Draft> nms(Rng& rng, int primary, const std::vector<LiveEntry>& live) {
  const LiveEntry& x = at(live, primary);
  if (x.shape[2] != 6) return std::nullopt;
  DraftInput counts = param_input({x.shape[0]}, 8);
  counts.param.lo = 0;
  counts.param.hi = std::min<int64_t>(x.shape[1], 126);
  for (size_t i = 0; i < live.size(); ++i) {
    if (live[i].ref.node == x.ref.node && live[i].ref.index == 0 && x.ref.index == 1) counts = live_input(static_cast<int>(i));
  }
  const int64_t n = x.shape[1];
  return Draft{"non_max_suppression",
               {{"iou_threshold", std::to_string(rng.range(1, 100))},
                {"max_output_size", std::to_string(rng.chance(0.5) ? -1 : rng.range(1, n))},
                {"top_k", std::to_string(rng.chance(0.5) ? -1 : rng.range(1, n))},
                {"force_suppress", rng.chance(0.5) ? "True" : "False"}},
               {live_input(primary), counts}};
}

std::optional<Draft> flatten(Rng&, int primary, const std::vector<LiveEntry>&) {
  return Draft{"flatten", {}, {live_input(primary)}};
}

}  // namespace

void add_transform_and_vision_drafters(std::vector<OpDrafter>& t) {
  t.insert(t.begin(), {{"sum", 0, 32, reduce<true>}, {"max", 0, 32, reduce<false>}});
  t.push_back({"repeat", 0, 32, repeat});
  t.push_back({"tile", 0, 32, tile});
  t.push_back({"flatten", 0, 32, flatten});
  t.push_back({"concatenate", 0, 32, concatenate});
  t.push_back({"expand_dims", 0, 32, expand_dims});
  t.push_back({"reshape", 0, 32, reshape});
  t.push_back({"squeeze", 0, 32, squeeze});
  t.push_back({"transpose", 0, 32, transpose});
  t.push_back({"strided_slice", 0, 32, strided_slice});
  t.push_back({"take", 0, 32, take});
  t.push_back({"cvm_lut", 0, 32, cvm_lut});
  t.push_back({"slice_like", 0, 32, slice_like});
  t.push_back({"where", 0, 32, where});
  t.push_back({"pad", 0, 32, pad});
  t.push_back({"get_valid_counts", 3, 32, get_valid_counts});
  t.push_back({"non_max_suppression", 3, 30, nms});
}

}  // namespace cvm::graph
