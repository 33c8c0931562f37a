// What `cvmcheck report` adds to the page from a findings store (--store, docs/report.md): the
// runs it recorded with their new, regressed and fixed findings, each finding's life (first and
// last seen, runs, status, the culprit and fixing commits a bisect recorded), and the known
// differences grouped by rule id.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cvm::cli {

// The store at `path` as the page's data.store: the last `max_runs` runs, the latest
// `max_findings` findings that are not known differences, and the known differences by rule id.
// RuntimeError for a missing, foreign, damaged or newer store (never created or altered but
// for a migration to this schema).
nlohmann::json store_page_data(const std::string& path, size_t max_runs = 100,
                               size_t max_findings = 500);

// The expected findings of a campaign.json's "findings" by the rule id their entries name, the
// most calls first: [{"rule_id", "label", "entry", "reason", "lists", "calls", "findings",
// "signatures"}].
nlohmann::json known_groups_data(const nlohmann::json& campaign_findings);

}  // namespace cvm::cli
