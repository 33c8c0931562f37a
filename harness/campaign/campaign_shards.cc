#include "harness/campaign/campaign_shards.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "cvmcheck/errors.h"

namespace cvm {

namespace {

// "a, b, c" of at most six names, then how many more.
std::string some_names(const std::vector<std::string>& names) {
  std::string text;
  for (size_t k = 0; k < names.size() && k < 6; ++k) text += (k == 0 ? "" : ", ") + names[k];
  if (names.size() > 6) text += " and " + std::to_string(names.size() - 6) + " more";
  return text;
}

// The reports grouped by what `value` says of each, when it says more than one thing:
// "seed 7 (a, b); seed 8 (c)"; "" when every report says the same.
std::string differing(const std::vector<CampaignResult>& reports,
                      const std::vector<std::string>& names,
                      const std::function<std::string(const CampaignResult&)>& value) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (size_t k = 0; k < reports.size(); ++k) {
    const std::string v = value(reports[k]);
    auto it = std::find_if(groups.begin(), groups.end(), [&v](const auto& g) { return g.first == v; });
    if (it == groups.end()) {
      groups.emplace_back(v, std::vector<std::string>{});
      it = std::prev(groups.end());
    }
    it->second.push_back(names[k]);
  }
  if (groups.size() < 2) return "";
  std::string text;
  for (const auto& [v, members] : groups) {
    text += (text.empty() ? "" : "; ") + v + " (" + some_names(members) + ")";
  }
  return text;
}

void check_one_campaign(const std::vector<CampaignResult>& reports,
                        const std::vector<std::string>& names) {
  const std::string seeds = differing(reports, names, [](const CampaignResult& r) {
    return "seed " + std::to_string(r.seed);
  });
  verify(seeds.empty(), "not shards of one campaign: different seeds: ", seeds);
  const std::string counts = differing(reports, names, [](const CampaignResult& r) {
    return "of " + std::to_string(r.shard_count) + (r.shard_count == 1 ? " shard" : " shards");
  });
  verify(counts.empty(), "not shards of one campaign: different shard counts: ", counts);
  const std::string commits = differing(reports, names, [](const CampaignResult& r) {
    return r.commit.empty() ? std::string("no commit") : "commit " + r.commit;
  });
  verify(commits.empty(), "not shards of one campaign: different commits: ", commits);
  const std::string blocks = differing(reports, names, [](const CampaignResult& r) {
    return "blocks of " + std::to_string(r.block_calls) + " calls";
  });
  verify(blocks.empty(), "not shards of one campaign: different blocks: ", blocks);
}

// Whether run `b` went on from where run `a` stopped (campaign --resume).
bool resumes(const CampaignResult& b, const CampaignResult& a) {
  return !b.resumed_from.empty() && b.resumed_from == a.resume_state;
}

// The runs of one shard in the order they ran: one run, then each run that resumed the one
// before. LogicError when they are not such a sequence (the shard is given twice).
std::vector<size_t> runs_in_order(int shard, const std::vector<size_t>& runs,
                                  const std::vector<CampaignResult>& reports,
                                  const std::vector<std::string>& names) {
  std::vector<std::string> given;
  for (size_t k : runs) given.push_back(names[k]);
  const auto twice = [&] {
    fail_logic("not shards of one campaign: shard ", shard + 1, " is given ", runs.size(),
               " times, and they are not a stopped run and the runs that resumed it: ",
               some_names(given));
  };
  std::vector<size_t> order;
  for (size_t k : runs) {
    const bool has_before = std::any_of(runs.begin(), runs.end(), [&](size_t other) {
      return other != k && resumes(reports[k], reports[other]);
    });
    if (!has_before) order.push_back(k);
  }
  if (order.size() != 1) twice();
  while (order.size() < runs.size()) {
    std::vector<size_t> next;
    for (size_t k : runs) {
      if (resumes(reports[k], reports[order.back()])) next.push_back(k);
    }
    if (next.size() != 1 || std::find(order.begin(), order.end(), next[0]) != order.end()) twice();
    order.push_back(next[0]);
  }
  return order;
}

}  // namespace

ShardPlan plan_shards(const std::vector<CampaignResult>& reports,
                      const std::vector<std::string>& names) {
  verify(!reports.empty(), "no shard report to merge");
  check(names.size() == reports.size(), "a name for every report");
  check_one_campaign(reports, names);
  std::map<int, std::vector<size_t>> holders;  // shard -> the reports holding it
  for (size_t k = 0; k < reports.size(); ++k) {
    const CampaignResult& r = reports[k];
    if (r.merged_shards.empty()) {
      holders[r.shard_index].push_back(k);
    } else {
      for (int s : r.merged_shards) holders[s].push_back(k);
    }
  }
  ShardPlan plan;
  std::set<size_t> placed;
  for (const auto& [shard, held_by] : holders) {
    plan.held.push_back(shard);
    const bool merged = std::any_of(held_by.begin(), held_by.end(), [&](size_t k) {
      return !reports[k].merged_shards.empty();
    });
    if (merged && held_by.size() > 1) {
      std::vector<std::string> given;
      for (size_t k : held_by) given.push_back(names[k]);
      fail_logic("not shards of one campaign: shard ", shard + 1, " is held by ",
                 some_names(given));
    }
    if (placed.count(held_by.front()) != 0) continue;  // a merge of shards, placed already
    std::vector<size_t> group = merged ? held_by : runs_in_order(shard, held_by, reports, names);
    placed.insert(group.begin(), group.end());
    const CampaignResult& first = reports[group.front()];
    if (merged) {
      plan.partial.insert(plan.partial.end(), first.partial_shards.begin(),
                          first.partial_shards.end());
    } else if (!first.resumed_from.empty()) {
      plan.partial.push_back(shard);
    }
    plan.groups.push_back(std::move(group));
  }
  std::sort(plan.partial.begin(), plan.partial.end());
  return plan;
}

std::string shard_list(const std::vector<int>& shards) {
  std::string text = shards.size() == 1 ? "shard " : "shards ";
  for (size_t k = 0; k < shards.size();) {
    size_t end = k;
    while (end + 1 < shards.size() && shards[end + 1] == shards[end] + 1) ++end;
    text += (k == 0 ? "" : ", ") + std::to_string(shards[k] + 1);
    if (end > k) text += "-" + std::to_string(shards[end] + 1);
    k = end + 1;
  }
  return text;
}

}  // namespace cvm
