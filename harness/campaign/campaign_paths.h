// The kernel paths a campaign reached (cvmcheck/paths.h, docs/paths.md): calls per (backend,
// path), the declared paths in scope that no call reached (a failure, like "nothing compared")
// and those this machine cannot reach, with why; in the summary, campaign.json and the page.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/campaign/campaign.h"
#include "harness/engine/diff.h"

namespace cvm {

// A declared path is judged (reached, or a failure) only once the operators it serves have made
// this many aimed calls (their schedule arms drawn at the thresholds, CampaignResult::aimed_calls)
// compared on the backend, counted together: the count by which the aimed draws reach every
// path (docs/paths.md, "Paths judged by calls"), the same on any machine. Fewer leave it "too few
// calls to judge", a warning, never a failure by the clock.
inline constexpr int64_t kPathJudgeCalls = 100;

// Counts the paths each run of one call reported; `row` is the call's operator's row of the
// table before this call is counted (for first_reach).
void count_paths(CampaignPaths& paths, const std::vector<BackendRun>& runs,
                 const std::map<std::string, CampaignCell>& row);

// After the calls: per compared backend that declares paths, those in scope (an operator they
// serve had calls on it), those unreachable here and those in scope but never reached.
void finish_paths(const Registry& registry, const std::vector<std::string>& compared,
                  CampaignResult& result);

// The path oracle's rows (harness/path_oracle, a few hundred small calls) on each compared
// backend that declares paths: the counts rest on the marks, so a wrong mark fails the campaign
// that would count it (CampaignPaths::wrong_marks). The same rows for every job: the first job
// alone runs them.
void check_marks(const Registry& registry, const std::vector<std::string>& compared,
                 CampaignPaths& paths);

// The feedback of a long campaign: the operators of the declared paths (reachable here) that
// fewer than `few` calls reached so far, each to be aimed at more often (1 draw in 2). A pure
// function of the counts, so a seed replays alike with the same number of jobs.
std::map<std::string, int> starved_ops(const Registry& registry,
                                       const std::vector<std::string>& compared,
                                       const CampaignPaths& paths, int64_t few = 8);

// After jobs are merged: a path too few calls of one job left unjudged is judged on the calls
// of all jobs together (result.table), as one process making them would.
void judge_merged_paths(CampaignResult& result);

// campaign.json's "paths" object, and back.
nlohmann::json paths_json(const CampaignPaths& paths);
CampaignPaths paths_from_json(const nlohmann::json& json);
// Adds one job's paths to the merged ones; a path not reached by one job may be by another.
void merge_paths(CampaignPaths& into, const CampaignPaths& job);

// The summary's line: "paths reached/declared: optimized 40/44 (4 unreachable here), ...", and
// one line per backend with paths in scope never reached. `full`: every path with its calls.
std::string paths_summary(const CampaignPaths& paths, bool full);

}  // namespace cvm
