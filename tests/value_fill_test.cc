// The fast value generator (harness/gen/value_fill.h): values within the precision and as edge-biased
// as gen::value, replayable from the seed, a shrink tree that only moves values towards 0, and
// the per-element scope that keeps the golden fixtures' bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cvmcheck/precision.h"
#include "harness/gen/generators.h"
#include "harness/gen/value_fill.h"

namespace cvm {
namespace {

TEST(ValueFill, EveryValueIsWithinItsPrecisionAndBothEndsAreDrawn) {
  for (int p = 1; p <= 32; ++p) {
    const std::vector<int32_t> values = gen::fill_values(uint64_t{1000} + p, 4000, p);
    ASSERT_EQ(values.size(), 4000u);
    for (int32_t v : values) ASSERT_TRUE(fits_precision(v, p)) << v << " at precision " << p;
    const int64_t a = alpha(p);
    EXPECT_EQ(*std::max_element(values.begin(), values.end()), a) << "precision " << p;
    EXPECT_EQ(*std::min_element(values.begin(), values.end()), -a) << "precision " << p;
  }
}

TEST(ValueFill, EdgesAreWeightedUpAsGenValueWeighsThem) {
  // 3 in 5 draws are edges; at precision 32 a uniform draw almost never is one.
  const std::vector<int32_t>& edges = gen::edge_values(32);
  const std::set<int32_t> edge_set(edges.begin(), edges.end());
  const std::vector<int32_t> values = gen::fill_values(7, 20000, 32);
  const auto on_edges = std::count_if(values.begin(), values.end(),
                                      [&](int32_t v) { return edge_set.count(v) > 0; });
  EXPECT_GT(on_edges, 20000 * 55 / 100);
  EXPECT_LT(on_edges, 20000 * 65 / 100);
  EXPECT_EQ(std::set<int32_t>(values.begin(), values.end()).count(0), 1u);
}

TEST(ValueFill, TheSameSeedGivesTheSameValuesAndAShorterFillIsAPrefix) {
  const std::vector<int32_t> longer = gen::fill_values(42, 300, 17);
  EXPECT_EQ(gen::fill_values(42, 300, 17), longer);
  const std::vector<int32_t> shorter = gen::fill_values(42, 100, 17);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
  EXPECT_NE(gen::fill_values(43, 300, 17), longer);
}

TEST(ValueFill, ShrinksKeepTheLengthAndMoveEveryValueTowardsZero) {
  const std::vector<int32_t> values = gen::fill_values(5, 37, 32);
  rc::Seq<std::vector<int32_t>> shrinks = gen::shrink_values(values);
  ASSERT_TRUE(std::any_of(values.begin(), values.end(), [](int32_t v) { return v != 0; }));
  const rc::Maybe<std::vector<int32_t>> first = shrinks.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, std::vector<int32_t>(values.size(), 0)) << "all zero comes first";
  int count = 1;
  while (const rc::Maybe<std::vector<int32_t>> s = shrinks.next()) {
    ++count;
    ASSERT_EQ(s->size(), values.size());
    EXPECT_NE(*s, values);
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t before = values[i], after = (*s)[i];
      ASSERT_TRUE(after == 0 || (after * before > 0 && std::abs(after) <= std::abs(before)))
          << before << " shrank to " << after;
    }
  }
  EXPECT_GT(count, 37) << "every element has shrinks of its own";
  EXPECT_FALSE(gen::shrink_values(std::vector<int32_t>(5, 0)).next()) << "all zero is minimal";
}

TEST(ValueFill, AShrinkTreeReachesASingleNonZeroValue) {
  // Greedy descent as the campaign's shrinker does, keeping "value[11] is non-zero": it ends at
  // one non-zero element, and that one at +-1.
  rc::Shrinkable<std::vector<int32_t>> current = gen::filled_values(40, 20)(rc::Random(9), 0);
  ASSERT_NE(current.value()[11], 0);
  for (bool progress = true; progress;) {
    progress = false;
    rc::Seq<rc::Shrinkable<std::vector<int32_t>>> shrinks = current.shrinks();
    while (rc::Maybe<rc::Shrinkable<std::vector<int32_t>>> next = shrinks.next()) {
      if (next->value()[11] != 0) {
        current = *next;
        progress = true;
        break;
      }
    }
  }
  std::vector<int32_t> expected(40, 0);
  expected[11] = current.value()[11];
  EXPECT_EQ(current.value(), expected);
  EXPECT_EQ(std::abs(expected[11]), 1);
}

TEST(ValueFill, TheTensorGeneratorDrawsOnceAndThePerElementScopeDrawsAsBefore) {
  const Shape shape = {3, 5};
  const rc::Random random(1234);
  const Tensor fast = gen::tensor(shape, 9)(random, 50).value();
  EXPECT_EQ(fast.values(), gen::fill_values(rc::Random(random).next(), 15, 9));
  // The scope gives exactly what a RapidCheck container of gen::value gives (the golden
  // fixtures were drawn so, and keep their bytes).
  const gen::ScopedPerElementValues per_element;
  const Tensor old = gen::tensor(shape, 9)(random, 50).value();
  const std::vector<int32_t> expected =
      rc::gen::container<std::vector<int32_t>>(15, gen::value(9))(random, 50).value();
  EXPECT_EQ(old.values(), expected);
  EXPECT_NE(old.values(), fast.values());
}

}  // namespace
}  // namespace cvm
