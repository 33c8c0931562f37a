// What one call costs a backend, in work units, estimated from the call's sizes before it runs
// (docs/campaign-schedule.md): the campaign's schedule shares its time among the operators by
// these estimates, and the variants that exist for small calls run on the calls they pay on.
// The estimate is a pure function of the call, so a seed replays the same schedule anywhere.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "harness/engine/call.h"

namespace cvm {

// Work units of one backend run of `call`: a fixed cost per run (validation, allocation, the
// result's copy; kRunUnits), one unit per input element read, and one per multiply-add or
// window tap for the operators that make more than one per element, as the operator's record
// estimates it (OpInfo::extra_work, ops/work.h: conv2d, dense, pooling, upsampling, NMS). A call expected to break a rule stops at validation: the fixed cost and its
// reads only, at most kInvalidReadUnits.
double call_work(const Call& call);
// As call_work, with the call's operator record at hand (the campaign's loop): no lookup.
double call_work(const Call& call, const OpInfo& op);

// The most a call expected to break a rule is charged for its reads.
inline constexpr double kInvalidReadUnits = 1 << 16;

// The fixed part of call_work: a run of an empty call costs about as much as reading this many
// elements (measured on the campaign's cheapest operators, docs/campaign-schedule.md).
inline constexpr double kRunUnits = 1024;

// Whether a dispatch variant (the `variant`-th compared backend) runs a call of `work` units
// (call_work) whose case seed is `seed`: always on a call of at most kVariantAllUnits, which is
// where the variants that force a path on small calls take it; otherwise one call in
// kVariantEvery, drawn from the seed (so a seed replays the same runs), which keeps every forced
// choice checked on large calls too without running each large call once more per variant. A
// variant whose Backend::variant_every is k runs one call in k whatever its size.
bool variant_runs(double work, uint64_t seed, size_t variant, int every = 0);

inline constexpr double kVariantAllUnits = 1 << 15;
inline constexpr uint64_t kVariantEvery = 4;

// The operators whose calls a dispatch variant's forced choice can send to other kernels than
// its base's: those served by a path the variant declares that not every variant of the same
// base declares (a path they all declare, like threads.team or copy.run, is one the choice does
// not decide), and those it implements served by a path of its base that it lacks (its choice
// takes the operator away from that kernel). On the other operators the variant runs its base's code, so its plain calls there
// would repeat the base's run. Empty means every operator: a variant whose every_k is set (its
// cost is on every call, whatever the operator), the only variant of its base, or one that
// declares no path of its own.
std::set<std::string> variant_ops(const Registry& registry, const std::string& backend);

// How a compared backend joins a call: a base backend runs every call; a dispatch variant runs
// the calls of its ops (empty: every operator) where variant_runs says so.
struct VariantRule {
  bool variant = false;
  int every = 0;              // Backend::variant_every
  std::set<std::string> ops;  // variant_ops
};
std::vector<VariantRule> variant_rules(const Registry& registry,
                                       const std::vector<std::string>& compared);

// Whether the `k`-th compared backend, of rule `rule`, runs a call of operator `op` and `work`
// units whose seed is `seed`.
bool rule_runs(const VariantRule& rule, size_t k, const std::string& op, double work,
               uint64_t seed);

// Of `compared` (with their variant_rules), the backends that run such a call.
std::vector<std::string> paying_backends(const std::vector<std::string>& compared,
                                         const std::vector<VariantRule>& rules,
                                         const std::string& op, double work, uint64_t seed);

// A hash of the call (operator, attributes, shapes, precisions and a sample of the values): the
// seed of variant_runs for a call that has no case seed (a fuzz input), so that the same input
// runs the same variants.
uint64_t call_hash(const Call& call);

}  // namespace cvm
