// The optimized vision and ov kernels against the reference, bit for bit, where the generators
// do not reach: hundreds of boxes per batch with many equal scores and heavy overlap, several
// classes and negative ids, int8 storage, precision-30 coordinates that take the contract's
// large-intersection branch, slices of inputs large enough to run on several threads, random
// mask combinations (valid or not: the error class must match too), and identical bytes on 1
// and 2 threads (opt::set_threads).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/kernels.h"

namespace cvm {
namespace {

struct Case {
  std::string op;
  nlohmann::json attrs;
  std::vector<Tensor> inputs;
};

std::string describe(const Case& k) {
  std::string text = k.op + " " + k.attrs.dump();
  for (const Tensor& t : k.inputs) {
    text += " " + shape_str(t.shape()) + (t.dtype() == DType::kInt8 ? "i8" : "") + "p" +
            std::to_string(t.precision());
  }
  return text;
}

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int64_t in(int64_t lo, int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  bool coin() { return in(0, 1) == 1; }
  template <typename T>
  const T& pick(const std::vector<T>& options) {
    return options[static_cast<size_t>(in(0, static_cast<int64_t>(options.size()) - 1))];
  }

 private:
  std::mt19937 gen_;
};

// Threads saved and restored around each test (set_threads(0) is the default).
class VisionOvPaths : public ::testing::Test {
 protected:
  void TearDown() override { opt::set_threads(0); }
};

Outcome run(const std::string& backend, const Case& k) {
  return run_op_outcome(registry(), backend, k.op, k.attrs, k.inputs);
}

// The reference once; the optimized backend on 1 and 2 threads, each identical to it.
void expect_matches(const Case& k, bool expect_ok) {
  const Outcome ref = run("reference", k);
  if (expect_ok) {
    ASSERT_EQ(ref.kind, OutcomeKind::kOk) << describe(k) << ": " << ref.message;
  }
  for (int threads : {1, 2}) {
    opt::set_threads(threads);
    const Outcome got = run("optimized", k);
    const std::optional<Difference> diff = compare_outcomes(got, ref, "optimized", "reference");
    ASSERT_FALSE(diff.has_value()) << threads << " thread(s): " << describe(k) << ": "
                                   << diff->what << " (" << got.message << ")";
  }
}

Tensor make(const Shape& shape, const std::vector<int32_t>& values, int p, bool int8) {
  return Tensor::from_values(shape, values, p, int8 ? DType::kInt8 : DType::kInt32);
}

// NMS rows: few distinct scores (many ties), ids in a small range with some negative, boxes on
// a small grid (heavy overlap, equal boxes, inverted and empty ones). `coord` bounds the grid.
Case nms_case(Rng& rng, int64_t batches, int64_t rows, bool int8) {
  const int p = int8 ? static_cast<int>(rng.in(5, 8)) : static_cast<int>(rng.in(8, 30));
  const int64_t a = alpha(p);
  const int64_t coord = std::min<int64_t>(a, rng.coin() ? 12 : a);
  const int64_t scores = rng.pick<int64_t>({1, 3, 8, 50});
  const int64_t ids = rng.pick<int64_t>({1, 2, 5});
  std::vector<int32_t> x;
  for (int64_t i = 0; i < batches * rows; ++i) {
    const int64_t id = rng.in(0, 9) == 0 ? -1 : rng.in(0, ids - 1);
    const int64_t score = std::clamp<int64_t>(rng.in(0, scores - 1) * (a / scores), -a, a);
    int64_t x1 = rng.in(-coord, coord), y1 = rng.in(-coord, coord);
    int64_t x2 = rng.in(0, 5) == 0 ? rng.in(-coord, coord) : rng.in(x1, coord);
    int64_t y2 = rng.in(0, 5) == 0 ? rng.in(-coord, coord) : rng.in(y1, coord);
    for (int64_t v : {id, score, x1, y1, x2, y2}) x.push_back(static_cast<int32_t>(v));
  }
  std::vector<int32_t> counts;
  for (int64_t b = 0; b < batches; ++b) {
    counts.push_back(static_cast<int32_t>(rng.pick<int64_t>({rows, rows, rng.in(0, rows),
                                                             rows + 5, -2})));
  }
  Case k;
  k.op = "non_max_suppression";
  k.inputs = {make({batches, rows, 6}, x, p, int8), make({batches}, counts, 16, false)};
  k.attrs = {{"iou_threshold", std::to_string(rng.pick<int64_t>({1, 20, 50, 70, 100, 101}))}};
  if (rng.coin()) k.attrs["force_suppress"] = rng.coin() ? "true" : "false";
  if (rng.coin()) k.attrs["top_k"] = std::to_string(rng.in(-3, rows + 3));
  if (rng.coin()) k.attrs["max_output_size"] = std::to_string(rng.in(-3, rows / 4));
  return k;
}

TEST_F(VisionOvPaths, NmsManyTiedAndOverlappingBoxesMatchTheReference) {
  Rng rng(11);
  for (int round = 0; round < 24; ++round) {
    expect_matches(nms_case(rng, rng.in(1, 3), rng.in(100, 400), round % 3 == 0), true);
  }
}

// Boxes of a precision-30 input spanning most of the range: intersections above (2^63-1)/100.
TEST_F(VisionOvPaths, NmsLargeIntersectionBranchMatchesTheReference) {
  Rng rng(12);
  const int64_t a = alpha(30);
  for (int round = 0; round < 8; ++round) {
    const int64_t rows = 64;
    std::vector<int32_t> x;
    for (int64_t n = 0; n < rows; ++n) {
      const int64_t x1 = -a + rng.in(0, a / 8), y1 = -a + rng.in(0, a / 8);
      const int64_t x2 = a - rng.in(0, a / 8), y2 = a - rng.in(0, a / 8);
      for (int64_t v : {int64_t{0}, rng.in(0, 3), x1, y1, x2, y2}) {
        x.push_back(static_cast<int32_t>(v));
      }
    }
    Case k{"non_max_suppression",
           {{"iou_threshold", std::to_string(rng.in(55, 100))}},
           {make({1, rows, 6}, x, 30, false), make({1}, {static_cast<int32_t>(rows)}, 8, false)}};
    expect_matches(k, true);
  }
  // Intersections in the narrow window ((2^63-1)/100, (2^63-1)/99]: just above the branch point,
  // where computing 100 * inter would overflow (optimized/vision.cc:70).
  for (int64_t side : {int64_t{303700000}, int64_t{304500000}, int64_t{305200000}}) {
    std::vector<int32_t> x;
    for (int64_t n = 0; n < 4; ++n) {
      for (int64_t v : {int64_t{0}, 4 - n, int64_t{0}, int64_t{0}, side - n, side + n}) {
        x.push_back(static_cast<int32_t>(v));
      }
    }
    for (const char* threshold : {"50", "99", "100"}) {
      Case k{"non_max_suppression",
             {{"iou_threshold", threshold}},
             {make({1, 4, 6}, x, 30, false), make({1}, {4}, 8, false)}};
      expect_matches(k, true);
    }
  }
}

// Thresholds above any overlap percentage (at most 101, from the large-intersection rounding),
// up to the largest int attribute: nothing is suppressed.
TEST_F(VisionOvPaths, NmsThresholdsAboveEveryPercentageSuppressNothing) {
  std::vector<int32_t> x;
  for (int32_t n = 0; n < 6; ++n) {
    for (int32_t v : {0, 10 - n, n, n, 100 + n, 100 + n}) x.push_back(v);
  }
  for (const char* threshold : {"2147483647", "102"}) {
    Case k{"non_max_suppression",
           {{"iou_threshold", threshold}, {"force_suppress", "true"}},
           {make({1, 6, 6}, x, 12, false), make({1}, {6}, 8, false)}};
    expect_matches(k, true);
  }
}

// Enough batches and rows that the optimized backend splits them over two threads.
TEST_F(VisionOvPaths, NmsAndValidCountsSameBytesOnOneAndTwoThreads) {
  Rng rng(13);
  expect_matches(nms_case(rng, 24, 512, false), true);
  expect_matches(nms_case(rng, 24, 512, true), true);
  for (bool int8 : {false, true}) {
    const int64_t b = 24, n = 512, k = rng.in(2, 32);
    std::vector<int32_t> x;
    for (int64_t i = 0; i < b * n * k; ++i) x.push_back(static_cast<int32_t>(rng.in(-100, 100)));
    Case c{"get_valid_counts",
           {{"score_threshold", std::to_string(rng.in(-101, 101))}},
           {make({b, n, k}, x, 8, int8)}};
    expect_matches(c, true);
  }
}

TEST_F(VisionOvPaths, ValidCountsThresholdsAroundTheScoresMatchTheReference) {
  Rng rng(14);
  for (int round = 0; round < 24; ++round) {
    const bool int8 = round % 2 == 0;
    const int p = int8 ? static_cast<int>(rng.in(1, 8)) : static_cast<int>(rng.in(1, 32));
    const int64_t a = alpha(p);
    const int64_t b = rng.in(1, 4), n = rng.in(1, 300), k = rng.in(2, 32);
    std::vector<int32_t> x;
    for (int64_t i = 0; i < b * n * k; ++i) x.push_back(static_cast<int32_t>(rng.in(-a, a)));
    const int64_t threshold =
        rng.pick<int64_t>({-a - 1, -a, 0, a - 1, a, rng.in(-a, a), -2147483648LL, 2147483647});
    Case c{"get_valid_counts",
           {{"score_threshold", std::to_string(threshold)}},
           {make({b, n, k}, x, p, int8)}};
    expect_matches(c, true);
  }
}

std::string tuple_text(const std::vector<int64_t>& v) {
  std::string text = "(";
  for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
  text += v.size() == 1 ? ",)" : ")";
  return text;
}

// Random StridedSlice-1 attributes: entries mostly in range, sometimes at the int64 extremes,
// random masks (conflicts included). Whatever the reference answers, ok or logic_error, the
// optimized backend must answer the same.
Case ov_case(Rng& rng, const Shape& shape, bool int8) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t steps = rng.in(0, rank + 2);
  std::vector<int64_t> begin, end, stride;
  std::vector<std::vector<int64_t>> masks(5);
  const int64_t ellipsis_at = rng.in(0, 2) == 0 ? rng.in(0, std::max<int64_t>(steps - 1, 0)) : -1;
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t n = shape[static_cast<size_t>(std::min(i, rank - 1))];
    auto entry = [&] {
      switch (rng.in(0, 9)) {
        case 0: return rng.pick<int64_t>({INT64_MIN, INT64_MAX, -n - 1, n + 1});
        default: return rng.in(-n, n);
      }
    };
    begin.push_back(entry());
    end.push_back(entry());
    stride.push_back(rng.in(0, 19) == 0 ? rng.pick<int64_t>({INT64_MIN, INT64_MAX, 0})
                                        : rng.pick<int64_t>({1, 1, 1, -1, 2, -2, 3}));
    masks[0].push_back(rng.in(0, 3) == 0);
    masks[1].push_back(rng.in(0, 3) == 0);
    masks[2].push_back(rng.in(0, 7) == 0);
    const bool shrink = rng.in(0, 7) == 0;
    masks[3].push_back(shrink);
    if (shrink && rng.in(0, 3) != 0) masks[0].back() = masks[1].back() = 0;
    masks[4].push_back(i == ellipsis_at);
  }
  Case k;
  k.op = "ov_strided_slice";
  k.attrs = {{"begin", tuple_text(begin)}, {"end", tuple_text(end)}};
  if (rng.coin()) k.attrs["stride"] = tuple_text(stride);
  const char* names[] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                         "ellipsis_mask"};
  for (size_t m = 0; m < 5; ++m) {
    if (rng.in(0, 3) == 0) continue;
    std::vector<int64_t> bits = masks[m];
    bits.resize(static_cast<size_t>(rng.in(0, steps + 1)), 0);  // shorter or longer than M
    k.attrs[names[m]] = tuple_text(bits);
  }
  const int p = int8 ? 8 : 32;
  std::vector<int32_t> x;
  for (int64_t i = 0; i < shape_size(shape); ++i) {
    x.push_back(static_cast<int32_t>(rng.in(-alpha(p), alpha(p))));
  }
  k.inputs = {make(shape, x, p, int8)};
  return k;
}

Shape random_shape(Rng& rng, int64_t max_elements) {
  Shape shape;
  const int64_t rank = rng.in(1, 6);
  int64_t size = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = rng.in(1, std::max<int64_t>(1, std::min<int64_t>(12, max_elements / size)));
    shape.push_back(d);
    size *= d;
  }
  return shape;
}

TEST_F(VisionOvPaths, OvStridedSliceRandomMasksMatchTheReference) {
  Rng rng(15);
  int ok = 0;
  for (int round = 0; round < 600; ++round) {
    const Case k = ov_case(rng, random_shape(rng, 4096), round % 4 == 0);
    expect_matches(k, false);
    ok += run("reference", k).kind == OutcomeKind::kOk;
    if (::testing::Test::HasFatalFailure()) return;
  }
  RecordProperty("ok_calls", ok);
  EXPECT_GT(ok, 150);  // the mix must exercise the copy, not only the rules
}

// Large slices: several threads, memcpy rows (stride 1 innermost), gathers, reversed axes.
TEST_F(VisionOvPaths, OvStridedSliceLargeInputsSameBytesOnOneAndTwoThreads) {
  Rng rng(16);
  const Shape shape = {8, 64, 96, 3};
  std::vector<int32_t> x;
  for (int64_t i = 0; i < shape_size(shape); ++i) x.push_back(static_cast<int32_t>(i - 70000));
  const std::vector<nlohmann::json> plans = {
      {{"begin", "(1, 2, 3)"}, {"end", "(7, 60, 90)"}},                          // memcpy rows
      {{"begin", "(0, 0, 0, 0)"}, {"end", "(8, 64, 96, 3)"}},                    // one memcpy
      {{"begin", "(-1, 0, 95)"}, {"end", "(0, 64, 0)"}, {"stride", "(-1, 2, -3)"},
       {"end_mask", "(1, 0, 0)"}},                                               // reversed
      {{"begin", "(0, 5, 0)"}, {"end", "(0, 0, 3)"}, {"shrink_axis_mask", "(0, 1)"},
       {"ellipsis_mask", "(1,)"}},                                               // ellipsis
      {{"begin", "(0, 0, 0, 1)"}, {"end", "(0, 0, 96, 3)"}, {"new_axis_mask", "(1, 0)"},
       {"ellipsis_mask", "(0, 1)"}},                                             // new axis
      {{"begin", "(2, 0, 0, 2)"}, {"end", "(3, 64, 96, 0)"}, {"stride", "(1, 1, 1, -1)"},
       {"shrink_axis_mask", "(0, 0, 0, 0)"}},
  };
  for (bool int8 : {false, true}) {
    std::vector<int32_t> values = x;
    if (int8) {
      for (int32_t& v : values) v = static_cast<int32_t>(v % 128);
    }
    const Tensor input = make(shape, values, int8 ? 8 : 32, int8);
    for (const nlohmann::json& attrs : plans) {
      expect_matches({"ov_strided_slice", attrs, {input}}, true);
    }
    for (int round = 0; round < 6; ++round) {
      Case k = ov_case(rng, shape, int8);
      k.inputs = {input};
      expect_matches(k, false);
    }
  }
}

}  // namespace
}  // namespace cvm
