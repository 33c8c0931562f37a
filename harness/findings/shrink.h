// Shrinking a finding before it is saved: a mismatch drawn on a 3x17x40 tensor is reported on
// the smallest call that still shows the same finding, so its reader does not minimize by hand.
// The search walks the generator's own shrink tree (RapidCheck's, from the call's seed), so
// every candidate is a call the same generator could have drawn: coupled inputs (a conv2d's data
// and weights, broadcast shapes) shrink together and stay valid, or stay broken by the same rule.
// Then each input is cut along one axis at a time, around its element of largest magnitude: the
// generator redraws values with a shape, so a difference that hangs on one value (2^31-1 in a
// right shift) stops its shrinks early. A cut that makes the call break another rule shows
// another finding (the reference names the rule) and is not taken.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "harness/engine/verdict.h"

namespace cvm {

struct ShrinkResult {
  Call call;               // the smallest call found that shows the same finding
  CallVerdict verdict;     // its verdict (failing, with the same signature)
  int64_t original_elements = 0, shrunk_elements = 0;  // input elements before and after
  int steps = 0;           // shrinks accepted
  int tried = 0;           // candidates judged
  bool out_of_time = false;
};

// Greedy descent, as RapidCheck shrinks a failing property: take the first shrink (then the first
// cut) of the current call that fails with `signature`, repeat from it, stop when none does or
// after `seconds`.
// `start` is the drawn call with its shrink tree and `verdict` its failing verdict. A shrink is
// taken only when `keeps` (if given) holds for it too: the campaign keeps an unexplained finding
// unexplained (harness/findings/expectations.h).
using ShrinkKeeps = std::function<bool(const Call&, const CallVerdict&)>;
ShrinkResult shrink_finding(const Registry& registry, const rc::Shrinkable<Call>& start,
                            const CallVerdict& verdict, const std::vector<std::string>& backends,
                            const std::string& signature, double seconds,
                            const ShrinkKeeps& keeps = {});

}  // namespace cvm
