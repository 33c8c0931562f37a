// `cvmcheck graphs --jobs N`: N forked jobs (harness/jobs/forked_jobs.h), job k making models
// k, k + N, ... (each model a function of its index: GraphsOptions::job_index), their summaries
// merged into one: counts summed, coverage united, findings grouped by signature with the
// earliest model's repro kept and the others' folders removed. So the models checked, and the
// findings' first models, are the same for any N; only the time box cuts them differently.
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/graph/graph_campaign.h"

namespace cvm::graph {

// A summary as JSON and back, whole (what a job hands its parent).
nlohmann::json summary_json(const GraphsSummary& s);
GraphsSummary summary_from_json(const nlohmann::json& j);

// The jobs' summaries, in job order, as one run's.
GraphsSummary merge_graph_summaries(const std::vector<GraphsSummary>& parts);

// Runs `options` as `jobs` forked jobs (`in_child` first in each, e.g. one thread) and merges
// them; jobs = 1 runs in this process. The repro bound is shared out among the jobs.
GraphsSummary run_graphs_jobs(const Registry& registry, const GraphsOptions& options, int jobs,
                              const std::function<void()>& in_child = nullptr);

}  // namespace cvm::graph
