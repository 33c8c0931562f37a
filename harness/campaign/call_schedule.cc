#include "harness/campaign/call_schedule.h"

#include <algorithm>
#include <set>

#include "cvmcheck/paths.h"

#include "cvmcheck/errors.h"

namespace cvm {

CallSchedule::CallSchedule(std::vector<std::string> ops, std::vector<double> shares)
    : ops_(std::move(ops)), base_(std::move(shares)) {
  check(!ops_.empty() && ops_.size() == base_.size(), "a schedule needs one share per operator");
  for (double& s : base_) s = std::max(s, 1e-6);
  share_ = base_;
  pass_.assign(ops_.size(), 0.0);
  work_.assign(ops_.size(), 0.0);
}

size_t CallSchedule::next() const {
  return static_cast<size_t>(std::min_element(pass_.begin(), pass_.end()) - pass_.begin());
}

void CallSchedule::charge(size_t op, double work) {
  pass_[op] += work / share_[op];
  work_[op] += work;
}

void CallSchedule::boost(const std::map<std::string, int>& factors) {
  // A boosted operator's pass is not moved: it only advances more slowly from here on.
  for (size_t k = 0; k < ops_.size(); ++k) {
    const auto f = factors.find(ops_[k]);
    share_[k] = base_[k] * (f == factors.end() ? 1.0 : static_cast<double>(std::max(1, f->second)));
  }
}

void CallSchedule::restart() {
  share_ = base_;
  pass_.assign(ops_.size(), 0.0);
}

std::map<std::string, double> CallSchedule::planned_shares() const {
  double total = 0;
  for (double s : base_) total += s;
  std::map<std::string, double> shares;
  for (size_t k = 0; k < ops_.size(); ++k) shares[ops_[k]] = base_[k] / total;
  return shares;
}

std::map<std::string, double> CallSchedule::charged_work() const {
  std::map<std::string, double> work;
  for (size_t k = 0; k < ops_.size(); ++k) work[ops_[k]] = work_[k];
  return work;
}

nlohmann::json CallSchedule::state() const {
  return {{"ops", ops_}, {"share", share_}, {"pass", pass_}, {"work", work_}};
}

void CallSchedule::restore(const nlohmann::json& state) {
  check(state.value("ops", std::vector<std::string>{}) == ops_,
        "the schedule to resume is of other operators");
  share_ = state.at("share").get<std::vector<double>>();
  pass_ = state.at("pass").get<std::vector<double>>();
  work_ = state.at("work").get<std::vector<double>>();
  check(share_.size() == ops_.size() && pass_.size() == ops_.size() && work_.size() == ops_.size(),
        "the schedule to resume is incomplete");
}

std::string arm_operator(const std::string& arm) {
  const std::string suffix = kAimedSuffix;
  const bool aimed = arm.size() > suffix.size() &&
                     arm.compare(arm.size() - suffix.size(), suffix.size(), suffix) == 0;
  return aimed ? arm.substr(0, arm.size() - suffix.size()) : arm;
}

CallSchedule schedule_for(const Registry& registry, const std::vector<const OpInfo*>& ops,
                          const std::vector<std::string>& compared, std::vector<ScheduleArm>& arms) {
  std::map<std::string, std::set<std::string>> paths_of;  // op -> path ids serving it
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available) continue;
    for (const std::string& id : backend->paths) {
      const PathInfo* info = paths::find(id);
      if (info == nullptr) continue;
      for (const std::string& op : info->ops) paths_of[op].insert(id);
    }
  }
  std::vector<std::string> names;
  std::vector<double> shares;
  arms.clear();
  for (size_t k = 0; k < ops.size(); ++k) {
    const auto paths = paths_of.find(ops[k]->name);
    const double share =
        1.0 + (paths == paths_of.end() ? 0.0 : static_cast<double>(paths->second.size()));
    for (const bool aimed : {false, true}) {
      arms.push_back(ScheduleArm{k, aimed});
      names.push_back(ops[k]->name + (aimed ? kAimedSuffix : ""));
      shares.push_back(share / 2);
    }
  }
  return CallSchedule(std::move(names), std::move(shares));
}

}  // namespace cvm
