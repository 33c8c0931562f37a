// Generators of the ov family: ov_strided_slice (docs/ops/ov.md). A valid call is built step by
// step: first the structure (which input axes are sliced or shrunk, an explicit or implicit
// ellipsis, new axes anywhere, output ndim kept in [1, 6]), then for each slice step the clamped
// range it must select (never empty), and only then a spelling of begin/end that clamps to it
// (negative, beyond the axis, INT64_MIN/MAX, or masked). Each invalid generator breaks one rule.
#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "harness/gen/generators.h"

namespace cvm {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

enum MaskIndex { kBeginBit, kEndBit, kNewAxisBit, kShrinkBit, kEllipsisBit, kMaskCount };
const std::array<std::string, kMaskCount> kMaskNames = {
    "begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"};

enum class StepKind { kSlice, kShrink, kNewAxis, kEllipsis };

struct Step {
  StepKind kind = StepKind::kSlice;
  int64_t axis_size = 0;  // the input axis a slice or shrink step reads
  bool reverse = false;   // slice steps: stride < 0
  int64_t begin = 0, end = 0, stride = 1;
  std::array<int64_t, kMaskCount> bits{};  // this step's entry in each mask
};

struct StridedSliceDraw {
  Shape shape;
  std::vector<Step> steps;
  std::array<std::vector<int64_t>, kMaskCount> tails;  // mask entries beyond M (ignored)
  int out_ndim = 0;
};

struct DrawOptions {
  bool force_ellipsis = false;
  bool need_slice = false;   // at least one ordinary slice step
  bool need_shrink = false;  // at least one shrink step
};

// Any begin/end entry, for steps that ignore it.
rc::Gen<int64_t> any_entry() {
  return rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::elementOf(std::vector<int64_t>{0, 1, -1, 1234, -1234, kMin64, kMax64})},
       {3, rc::gen::inRange<int64_t>(-10, 11)}});
}

// Any non-zero stride, for steps that ignore it.
rc::Gen<int64_t> any_stride() {
  return rc::gen::elementOf(std::vector<int64_t>{1, -1, 2, -3, 132, kMin64, kMax64});
}

bool one_in(int n) { return *rc::gen::inRange(0, n) == 0; }

// Sets begin (or begin_mask) so that it clamps to `b` on the step's axis.
void spell_begin(Step& s, int64_t b) {
  const int64_t n = s.axis_size;
  const int64_t hi = s.reverse ? n - 1 : n;
  std::vector<int64_t> texts = {b};
  if (b < n) texts.push_back(b - n);  // in [-n, -1]: + n gives b back
  if (b == 0) texts.insert(texts.end(), {-n - *rc::gen::inRange<int64_t>(1, 5), kMin64});
  if (b == hi) texts.insert(texts.end(), {hi + *rc::gen::inRange<int64_t>(1, 5), kMax64});
  s.begin = *rc::gen::elementOf(texts);
  s.bits[kBeginBit] = 0;
  if (b == (s.reverse ? n - 1 : 0) && one_in(4)) {
    s.bits[kBeginBit] = 1;
    s.begin = *any_entry();
  }
}

// Sets end (or end_mask) so that it clamps to `e` on the step's axis.
void spell_end(Step& s, int64_t e) {
  const int64_t n = s.axis_size;
  const int64_t lo = s.reverse ? -1 : 0;
  std::vector<int64_t> texts;
  if (e >= 0) texts.push_back(e);          // a literal -1 would mean n - 1
  if (e >= 0 && e < n) texts.push_back(e - n);
  if (e == lo) texts.insert(texts.end(), {-n - *rc::gen::inRange<int64_t>(1, 5), kMin64});
  if (e == n) texts.insert(texts.end(), {n + *rc::gen::inRange<int64_t>(1, 5), kMax64});
  s.end = *rc::gen::elementOf(texts);
  s.bits[kEndBit] = 0;
  if (e == (s.reverse ? -1 : n) && one_in(4)) {
    s.bits[kEndBit] = 1;
    s.end = *any_entry();
  }
}

Step slice_step(int64_t n) {
  Step s;
  s.axis_size = n;
  s.reverse = one_in(3);
  const int64_t magnitude = *rc::gen::weightedOneOf<int64_t>(
      {{4, rc::gen::just<int64_t>(1)},
       {3, rc::gen::inRange<int64_t>(2, n + 2)},
       {1, rc::gen::elementOf(std::vector<int64_t>{n, 4096, kMax64})}});
  s.stride = s.reverse ? (one_in(6) ? kMin64 : -magnitude) : magnitude;
  // The clamped range, never empty: forward b < e, reverse e < b; often the whole axis.
  const bool full = one_in(3);
  int64_t b = 0, e = 0;
  if (!s.reverse) {
    b = full ? 0 : *rc::gen::inRange<int64_t>(0, n);
    e = full ? n : *rc::gen::inRange<int64_t>(b + 1, n + 1);
  } else {
    b = full ? n - 1 : *rc::gen::inRange<int64_t>(0, n);
    e = full ? -1 : *rc::gen::inRange<int64_t>(-1, b);
  }
  spell_begin(s, b);
  spell_end(s, e);
  return s;
}

Step shrink_step(int64_t n) {
  Step s;
  s.kind = StepKind::kShrink;
  s.axis_size = n;
  const int64_t index = *rc::gen::inRange<int64_t>(0, n);
  s.begin = *rc::gen::elementOf(std::vector<int64_t>{index, index - n});
  s.end = *any_entry();
  s.stride = *any_stride();
  s.bits[kShrinkBit] = 1;
  return s;
}

// A new-axis or ellipsis step: begin, end, stride and the begin/end masks are all ignored.
Step marker_step(StepKind kind) {
  Step s;
  s.kind = kind;
  s.begin = *any_entry();
  s.end = *any_entry();
  s.stride = *any_stride();
  s.bits[kBeginBit] = one_in(4) ? 1 : 0;
  s.bits[kEndBit] = one_in(4) ? 1 : 0;
  s.bits[kind == StepKind::kNewAxis ? kNewAxisBit : kEllipsisBit] = 1;
  return s;
}

void insert_at_random(std::vector<Step>& steps, const Step& step) {
  const auto at = *rc::gen::inRange<size_t>(0, steps.size() + 1);
  steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(at), step);
}

void draw_tails(StridedSliceDraw& d) {
  for (auto& tail : d.tails) {
    const auto count = *rc::gen::weightedOneOf<size_t>(
        {{3, rc::gen::just<size_t>(0)}, {2, rc::gen::inRange<size_t>(1, 3)}});
    for (size_t i = 0; i < count; ++i) tail.push_back(*rc::gen::inRange<int64_t>(0, 2));
  }
}

StridedSliceDraw draw_slice(const DrawOptions& options) {
  StridedSliceDraw d;
  d.shape = *gen::shape(1, 6);
  const int n = static_cast<int>(d.shape.size());
  const bool ellipsis = options.force_ellipsis || *rc::gen::arbitrary<bool>();
  const int min_real = options.need_slice || options.need_shrink ? 1 : 0;
  const int real = *rc::gen::inRange(min_real, n + 1);
  std::vector<bool> shrink(static_cast<size_t>(real));
  for (size_t i = 0; i < shrink.size(); ++i) shrink[i] = one_in(4);
  const auto any_index = [&] { return *rc::gen::inRange<size_t>(0, shrink.size()); };
  if (options.need_slice && std::count(shrink.begin(), shrink.end(), false) == 0) {
    shrink[any_index()] = false;
  }
  if (options.need_shrink && std::count(shrink.begin(), shrink.end(), true) == 0) {
    shrink[any_index()] = true;
  }
  // Steps before the ellipsis read the first axes, steps after it the last ones; without an
  // explicit ellipsis every step reads the leading axes and the implicit one covers the rest.
  const int split = ellipsis ? *rc::gen::inRange(0, real + 1) : real;
  for (int i = 0; i < real; ++i) {
    const int64_t size = d.shape[static_cast<size_t>(i < split ? i : n - (real - i))];
    d.steps.push_back(shrink[static_cast<size_t>(i)] ? shrink_step(size) : slice_step(size));
  }
  if (ellipsis) d.steps.insert(d.steps.begin() + split, marker_step(StepKind::kEllipsis));
  // New axes keep the output ndim in [1, 6].
  const int kept = n - static_cast<int>(std::count(shrink.begin(), shrink.end(), true));
  const int new_axes = *rc::gen::inRange(std::max(0, 1 - kept), std::min(3, 6 - kept) + 1);
  for (int k = 0; k < new_axes; ++k) insert_at_random(d.steps, marker_step(StepKind::kNewAxis));
  d.out_ndim = kept + new_axes;
  draw_tails(d);
  return d;
}

std::vector<int64_t> column(const StridedSliceDraw& d, int64_t Step::*field) {
  std::vector<int64_t> values;
  for (const Step& s : d.steps) values.push_back(s.*field);
  return values;
}

// Mask k in full: one entry per step, then the ignored tail.
std::vector<int64_t> mask(const StridedSliceDraw& d, int k) {
  std::vector<int64_t> values;
  for (const Step& s : d.steps) values.push_back(s.bits[static_cast<size_t>(k)]);
  const auto& tail = d.tails[static_cast<size_t>(k)];
  values.insert(values.end(), tail.begin(), tail.end());
  return values;
}

Call slice_call(const StridedSliceDraw& d) {
  Call call;
  call.op = "ov_strided_slice";
  call.attrs["begin"] = *gen::tuple_text(column(d, &Step::begin));
  call.attrs["end"] = *gen::tuple_text(column(d, &Step::end));
  const std::vector<int64_t> stride = column(d, &Step::stride);
  if (std::any_of(stride.begin(), stride.end(), [](int64_t s) { return s != 1; })) {
    call.attrs["stride"] = *gen::tuple_text(stride);
  } else {
    // All ones: left out, written as (), or spelled out.
    const int how = *rc::gen::inRange(0, 3);
    if (how == 1) call.attrs["stride"] = "()";
    if (how == 2) call.attrs["stride"] = *gen::tuple_text(stride);
  }
  for (int k = 0; k < kMaskCount; ++k) {
    std::vector<int64_t> bits = mask(d, k);
    // Trailing zeros may be cut: shorter masks are padded with zeros.
    size_t needed = bits.size();
    while (needed > 0 && bits[needed - 1] == 0) --needed;
    bits.resize(*rc::gen::inRange(needed, bits.size() + 1));
    if (!bits.empty() || *rc::gen::arbitrary<bool>()) {
      call.attrs[kMaskNames[static_cast<size_t>(k)]] = *gen::tuple_text(bits);
    }
  }
  const int p = *gen::precision();
  call.inputs.push_back(*gen::tensor_any_dtype(d.shape, p));
  return call;
}

std::vector<size_t> steps_of_kind(const StridedSliceDraw& d, StepKind kind) {
  std::vector<size_t> found;
  for (size_t i = 0; i < d.steps.size(); ++i) {
    if (d.steps[i].kind == kind) found.push_back(i);
  }
  return found;
}

using gen::add_rule;

std::vector<InvalidGenerator> slice_invalid() {
  std::vector<InvalidGenerator> rules;
  add_rule(rules, "begin_end_length_mismatch", [] {
    const StridedSliceDraw d = draw_slice({});
    Call call = slice_call(d);
    std::vector<int64_t> end = column(d, &Step::end);
    if (!end.empty() && *rc::gen::arbitrary<bool>()) {
      end.pop_back();
    } else {
      end.push_back(*any_entry());
    }
    call.attrs["end"] = *gen::tuple_text(end);
    return call;
  });
  add_rule(rules, "stride_length_mismatch", [] {
    const StridedSliceDraw d = draw_slice({});
    Call call = slice_call(d);
    std::vector<int64_t> stride = column(d, &Step::stride);
    // Dropping the only entry would leave () (all ones), which is valid.
    if (stride.size() >= 2 && *rc::gen::arbitrary<bool>()) {
      stride.pop_back();
    } else {
      stride.push_back(*any_stride());
    }
    call.attrs["stride"] = *gen::tuple_text(stride);
    return call;
  });
  add_rule(rules, "stride_zero", [] {
    const StridedSliceDraw d = draw_slice({.need_slice = true});
    Call call = slice_call(d);
    std::vector<int64_t> stride = column(d, &Step::stride);
    stride[*rc::gen::inRange<size_t>(0, stride.size())] = 0;
    call.attrs["stride"] = *gen::tuple_text(stride);
    return call;
  });
  add_rule(rules, "mask_value_not_0_or_1", [] {
    const StridedSliceDraw d = draw_slice({});
    Call call = slice_call(d);
    const int k = *rc::gen::inRange(0, static_cast<int>(kMaskCount));
    std::vector<int64_t> bits = mask(d, k);
    // A zero entry, or one past the end (in the ignored part too), becomes a non-binary value.
    std::vector<size_t> spots = {bits.size(), bits.size() + 1};
    for (size_t i = 0; i < bits.size(); ++i) {
      if (bits[i] == 0) spots.push_back(i);
    }
    const size_t at = *rc::gen::elementOf(spots);
    bits.resize(std::max(bits.size(), at + 1), 0);
    bits[at] = *rc::gen::elementOf(std::vector<int64_t>{2, -1, 3, 1234, kMin64, kMax64});
    call.attrs[kMaskNames[static_cast<size_t>(k)]] = *gen::tuple_text(bits);
    return call;
  });
  add_rule(rules, "more_than_one_ellipsis", [] {
    StridedSliceDraw d = draw_slice({.force_ellipsis = true});
    insert_at_random(d.steps, marker_step(StepKind::kEllipsis));
    return slice_call(d);
  });
  add_rule(rules, "two_masks_at_one_step", [] {
    StridedSliceDraw d = draw_slice({.force_ellipsis = true});
    // (step, mask bit) pairs whose setting makes that step carry two conflicting masks
    // without adding a second ellipsis.
    std::vector<std::pair<size_t, MaskIndex>> choices;
    for (size_t i : steps_of_kind(d, StepKind::kEllipsis)) {
      choices.push_back({i, kNewAxisBit});
      choices.push_back({i, kShrinkBit});
    }
    for (size_t i : steps_of_kind(d, StepKind::kNewAxis)) choices.push_back({i, kShrinkBit});
    for (size_t i : steps_of_kind(d, StepKind::kShrink)) {
      for (MaskIndex k : {kNewAxisBit, kBeginBit, kEndBit}) choices.push_back({i, k});
    }
    const auto [step, bit] = *rc::gen::elementOf(choices);
    d.steps[step].bits[bit] = 1;
    return slice_call(d);
  });
  add_rule(rules, "more_steps_than_input_axes", [] {
    StridedSliceDraw d = draw_slice({});
    const auto real = static_cast<int64_t>(steps_of_kind(d, StepKind::kSlice).size() +
                                           steps_of_kind(d, StepKind::kShrink).size());
    const int64_t extra =
        static_cast<int64_t>(d.shape.size()) - real + 1 + *rc::gen::inRange<int64_t>(0, 2);
    Step unit;  // 0:1:1, which any axis would accept
    unit.end = 1;
    for (int64_t k = 0; k < extra; ++k) d.steps.push_back(unit);
    return slice_call(d);
  });
  add_rule(rules, "shrink_index_out_of_range", [] {
    StridedSliceDraw d = draw_slice({.need_shrink = true});
    Step& s = d.steps[*rc::gen::elementOf(steps_of_kind(d, StepKind::kShrink))];
    const int64_t n = s.axis_size;
    s.begin = *rc::gen::elementOf(std::vector<int64_t>{n, n + 1, kMax64, -n - 1, -n - 2, kMin64});
    return slice_call(d);
  });
  add_rule(rules, "empty_slice", [] {
    StridedSliceDraw d = draw_slice({.need_slice = true});
    Step& s = d.steps[*rc::gen::elementOf(steps_of_kind(d, StepKind::kSlice))];
    const int64_t n = s.axis_size;
    // Clamped ranges with nothing in them: forward e <= b, reverse b <= e.
    if (!s.reverse) {
      const int64_t b = *rc::gen::inRange<int64_t>(0, n + 1);
      spell_begin(s, b);
      spell_end(s, *rc::gen::inRange<int64_t>(0, b + 1));
    } else {
      const int64_t b = *rc::gen::inRange<int64_t>(0, n);
      spell_begin(s, b);
      spell_end(s, *rc::gen::inRange<int64_t>(b, n + 1));
    }
    return slice_call(d);
  });
  add_rule(rules, "output_above_6_dims", [] {
    StridedSliceDraw d = draw_slice({});
    const int extra = 7 - d.out_ndim + *rc::gen::inRange(0, 3);
    for (int k = 0; k < extra; ++k) insert_at_random(d.steps, marker_step(StepKind::kNewAxis));
    return slice_call(d);
  });
  add_rule(rules, "output_0_dims", [] {
    // Every axis shrunk and no new axis; an explicit ellipsis then covers no axis.
    StridedSliceDraw d;
    d.shape = *gen::shape(1, 6);
    for (int64_t size : d.shape) d.steps.push_back(shrink_step(size));
    if (*rc::gen::arbitrary<bool>()) insert_at_random(d.steps, marker_step(StepKind::kEllipsis));
    draw_tails(d);
    return slice_call(d);
  });
  return rules;
}

}  // namespace

void add_ov_generators(GeneratorTable& table) {
  OpGenerators g;
  g.valid = rc::gen::exec([] { return slice_call(draw_slice({})); });
  g.invalid = slice_invalid();
  table["ov_strided_slice"] = std::move(g);
}

}  // namespace cvm
