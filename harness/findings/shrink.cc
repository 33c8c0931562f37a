#include "harness/findings/shrink.h"

#include <chrono>
#include <cstdlib>

#include "harness/findings/finding.h"

namespace cvm {
namespace {

using Clock = std::chrono::steady_clock;

// `t` with axis `axis` cut to the indices [begin, end).
Tensor cut(const Tensor& t, int axis, int64_t begin, int64_t end) {
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= t.dim(a);
  for (int a = axis + 1; a < t.ndim(); ++a) inner *= t.dim(a);
  Shape shape = t.shape();
  shape[static_cast<size_t>(axis)] = end - begin;
  std::vector<int32_t> values;
  values.reserve(static_cast<size_t>(outer * (end - begin) * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t j = 0; j < inner; ++j) values.push_back(t.get((o * t.dim(axis) + i) * inner + j));
    }
  }
  return Tensor::from_values(shape, values, t.precision(), t.dtype());
}

// The index along `axis` of the element of largest magnitude: the element a difference most
// often hangs on (2^31-1 in a right shift), so the first cut tried keeps it.
int64_t salient_index(const Tensor& t, int axis) {
  int64_t inner = 1, best = 0, best_magnitude = -1;
  for (int a = axis + 1; a < t.ndim(); ++a) inner *= t.dim(a);
  for (int64_t i = 0; i < t.size(); ++i) {
    const int64_t magnitude = std::llabs(static_cast<int64_t>(t.get(i)));
    if (magnitude > best_magnitude) best_magnitude = magnitude, best = i;
  }
  return best / inner % t.dim(axis);
}

// Offers `take` calls with one axis of one input cut: to the salient index alone, then to either
// half, building each only when offered; true once `take` takes one. The generator's shrinks
// redraw values with the shape, so a finding that hangs on one value can stop there with a large
// input; cutting around that value goes further.
template <typename Take>
bool offer_cuts(const Call& call, Take take) {
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    const Tensor& t = call.inputs[k];
    for (int axis = 0; axis < t.ndim(); ++axis) {
      const int64_t d = t.dim(axis);
      if (d < 2) continue;
      const int64_t s = salient_index(t, axis);
      for (const auto& [begin, end] : {std::pair{s, s + 1}, {int64_t{0}, (d + 1) / 2}, {d / 2, d}}) {
        Call candidate = call;
        candidate.inputs[k] = cut(t, axis, begin, end);
        if (take(std::move(candidate))) return true;
      }
    }
  }
  return false;
}

}  // namespace

ShrinkResult shrink_finding(const Registry& registry, const rc::Shrinkable<Call>& start,
                            const CallVerdict& verdict, const std::vector<std::string>& backends,
                            const std::string& signature, double seconds,
                            const ShrinkKeeps& keeps) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds));
  ShrinkResult result;
  result.call = start.value();
  result.verdict = verdict;
  result.original_elements = result.shrunk_elements = input_elements(result.call);
  // Judges a candidate and takes it when it shows the same finding (one backend run each).
  const auto take = [&](Call candidate) {
    ++result.tried;
    CallVerdict v = judge_call(registry, candidate, backends);
    if (v.passed || finding_signature(candidate.op, v, candidate.rule) != signature) return false;
    if (keeps && !keeps(candidate, v)) return false;
    result.call = std::move(candidate);
    result.verdict = std::move(v);
    result.shrunk_elements = input_elements(result.call);
    ++result.steps;
    return true;
  };
  // First the generator's shrink tree, then cuts of the inputs, each to a local minimum.
  rc::Shrinkable<Call> current = start;
  for (bool progress = true; progress;) {
    progress = false;
    rc::Seq<rc::Shrinkable<Call>> shrinks = current.shrinks();
    while (rc::Maybe<rc::Shrinkable<Call>> next = shrinks.next()) {
      if (Clock::now() >= deadline) {
        result.out_of_time = true;
        return result;
      }
      Call candidate;
      try {
        candidate = next->value();
      } catch (...) {
        continue;  // a shrink the generator cannot complete (a discarded draw)
      }
      if (!take(std::move(candidate))) continue;
      current = *next;
      progress = true;
      break;
    }
  }
  const auto take_in_time = [&](Call candidate) {
    result.out_of_time = result.out_of_time || Clock::now() >= deadline;
    return !result.out_of_time && take(std::move(candidate));
  };
  while (!result.out_of_time && offer_cuts(Call(result.call), take_in_time)) {
  }
  return result;
}

}  // namespace cvm
