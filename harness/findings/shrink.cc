#include "harness/findings/shrink.h"

#include <chrono>

namespace cvm {

ShrinkResult shrink_finding(const Registry& registry, const rc::Shrinkable<Call>& start,
                            const CallVerdict& verdict, const std::vector<std::string>& backends,
                            const std::string& signature, double seconds,
                            const ShrinkKeeps& keeps) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds));
  ShrinkResult result;
  rc::Shrinkable<Call> current = start;
  result.call = start.value();
  result.verdict = verdict;
  result.original_elements = result.shrunk_elements = input_elements(result.call);
  bool progress = true;
  while (progress) {
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
      ++result.tried;
      CallVerdict v = judge_call(registry, candidate, backends, std::string(), std::string());
      if (v.passed || finding_signature(candidate.op, v, candidate.rule) != signature) continue;
      if (keeps && !keeps(candidate, v)) continue;
      current = *next;
      result.call = std::move(candidate);
      result.verdict = std::move(v);
      result.shrunk_elements = input_elements(result.call);
      ++result.steps;
      progress = true;
      break;
    }
  }
  return result;
}

}  // namespace cvm
