#include "harness/gen/value_fill.h"

#include <algorithm>
#include <array>

#include "cvmcheck/precision.h"

namespace cvm::gen {
namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform draw in [0, span) from 64 random bits (multiply-shift: no division, bias < 2^-32).
uint64_t below(uint64_t bits, uint64_t span) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * span) >> 64);
}

std::vector<int32_t> make_edges(int p) {
  const int64_t a = alpha(p);
  std::vector<int64_t> edges = {0, 1, -1, a, -a, a - 1, -(a - 1)};
  for (int64_t power = 2; power <= a; power *= 2) {
    for (int64_t v : {power - 1, power, power + 1}) {
      if (v <= a) {
        edges.push_back(v);
        edges.push_back(-v);
      }
    }
  }
  std::vector<int32_t> kept;
  for (int64_t v : edges) {
    if (v <= a && v >= -a) kept.push_back(static_cast<int32_t>(v));
  }
  return kept;
}

std::vector<int32_t> with_zeroed(std::vector<int32_t> values, size_t begin, size_t end) {
  std::fill(values.begin() + static_cast<std::ptrdiff_t>(begin),
            values.begin() + static_cast<std::ptrdiff_t>(end), 0);
  return values;
}

bool any_nonzero(const std::vector<int32_t>& values, size_t begin, size_t end) {
  return std::any_of(values.begin() + static_cast<std::ptrdiff_t>(begin),
                     values.begin() + static_cast<std::ptrdiff_t>(end),
                     [](int32_t v) { return v != 0; });
}

}  // namespace

const std::vector<int32_t>& edge_values(int p) {
  static const std::array<std::vector<int32_t>, 33> table = [] {
    std::array<std::vector<int32_t>, 33> t;
    for (int q = 1; q <= 32; ++q) t[static_cast<size_t>(q)] = make_edges(q);
    return t;
  }();
  return table[static_cast<size_t>(std::clamp(p, 1, 32))];
}

std::vector<int32_t> fill_values(uint64_t seed, int64_t count, int p) {
  const std::vector<int32_t>& edges = edge_values(p);
  const int64_t a = alpha(std::clamp(p, 1, 32));
  const auto span = static_cast<uint64_t>(2 * a + 1);
  std::vector<int32_t> values(static_cast<size_t>(std::max<int64_t>(count, 0)));
  uint64_t state = seed;
  for (int32_t& v : values) {
    const uint64_t bits = splitmix64(state);
    // The low byte picks the kind (3 in 5 an edge, as gen::value weighs them), the high bits
    // the value: they are independent bits of one splitmix64 output.
    if ((bits & 0xff) % 5 < 3) {
      v = edges[static_cast<size_t>(below(bits, edges.size()))];
    } else {
      v = static_cast<int32_t>(static_cast<int64_t>(below(bits, span)) - a);
    }
  }
  return values;
}

rc::Seq<std::vector<int32_t>> shrink_values(const std::vector<int32_t>& values) {
  const size_t n = values.size();
  if (!any_nonzero(values, 0, n)) return rc::Seq<std::vector<int32_t>>();
  // Run lengths n/2, n/4 ... 2 (none below 2: single elements shrink towards 0 below).
  std::vector<size_t> runs;
  for (size_t run = n / 2; run >= 2; run /= 2) runs.push_back(run);
  auto zeroed_runs = rc::seq::mapcat(rc::seq::fromContainer(runs), [values](size_t run) {
    const size_t count = (values.size() + run - 1) / run;
    return rc::seq::map(
        rc::seq::filter(rc::seq::range<size_t>(0, count),
                        [values, run](size_t k) {
                          return any_nonzero(values, k * run, std::min(values.size(), (k + 1) * run));
                        }),
        [values, run](size_t k) {
          return with_zeroed(values, k * run, std::min(values.size(), (k + 1) * run));
        });
  });
  // All zero first, unless that is the one element's own first shrink below.
  auto all_zero = n > 1 ? rc::seq::just(std::vector<int32_t>(n, 0)) : rc::Seq<std::vector<int32_t>>();
  return rc::seq::concat(std::move(all_zero), std::move(zeroed_runs),
                         rc::shrink::eachElement(values, [](int32_t v) {
                           return rc::shrink::towards<int32_t>(v, 0);
                         }));
}

rc::Gen<std::vector<int32_t>> filled_values(int64_t count, int p) {
  return rc::Gen<std::vector<int32_t>>([count, p](const rc::Random& random, int) {
    rc::Random r = random;
    return rc::shrinkable::shrinkRecur(fill_values(r.next(), count, p), &shrink_values);
  });
}

}  // namespace cvm::gen
