// The campaign's schedule (docs/campaign-schedule.md): which operator draws each call. The
// campaign shares its time, not its calls, among the operators: each gets a share, and a call's
// estimated work (harness/engine/call_cost.h) advances its operator's pass by work / share;
// the next call goes to the operator with the least pass (stride scheduling). So a cheap
// operator makes many calls and an expensive one few, each in its share of the time, and a few
// expensive operators no longer set the pace for all. Everything is a pure function of the
// calls drawn, never of the clock: a seed replays the same sequence of calls.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"

namespace cvm {

class CallSchedule {
 public:
  // `ops` in the campaign's order, `shares[k]` > 0 the time share of ops[k].
  CallSchedule(std::vector<std::string> ops, std::vector<double> shares);

  // The place in `ops` of the operator that draws the next call: the least pass, the first on a
  // tie.
  size_t next() const;
  // Charges operator `op` (a place in ops) the work of the call it made.
  void charge(size_t op, double work);
  // The feedback: each operator named gets its base share times its factor, the others their
  // base share, from now on.
  void boost(const std::map<std::string, int>& factors);
  // A block's start (call_blocks.h): every pass back to 0 and every share to its base; the work
  // charged so far is kept.
  void restart();

  size_t size() const { return ops_.size(); }
  const std::string& op(size_t k) const { return ops_[k]; }
  // Each operator's base share as a fraction of all (what --profile calls "planned").
  std::map<std::string, double> planned_shares() const;
  // The work charged so far, per operator.
  std::map<std::string, double> charged_work() const;

  // The schedule's state (passes, boosts, work), to resume a run where it stopped.
  nlohmann::json state() const;
  // Restores state(); a state of other operators is an error.
  void restore(const nlohmann::json& state);

 private:
  std::vector<std::string> ops_;
  std::vector<double> base_, share_, pass_, work_;
};

// One arm of a campaign's schedule: the calls of operator `op` (a place in the campaign's
// operator list) drawn with the aim at the path thresholds on or off (gen::AimMode: kOften or
// kNever). Its name in the schedule is the operator's, with kAimedSuffix when aimed.
struct ScheduleArm {
  size_t op = 0;
  bool aimed = false;
};
inline constexpr const char* kAimedSuffix = "@aimed";

// The schedule of a campaign over `ops` against `compared`, and its arms (two per operator:
// its plain calls and its calls aimed at the thresholds, each with half the operator's share).
// Each operator's share is 1 + (the distinct declared paths of the available compared
// backends that serve it), so an operator with many kernel paths (conv2d's tiles, panels and
// k-blocks) gets more of the time than one with a single loop.
CallSchedule schedule_for(const Registry& registry, const std::vector<const OpInfo*>& ops,
                          const std::vector<std::string>& compared, std::vector<ScheduleArm>& arms);

// An arm's operator name (its name without kAimedSuffix).
std::string arm_operator(const std::string& arm);

}  // namespace cvm
