// What `cvmcheck campaign` prints of a run (campaign_summary.h).
#include "harness/campaign/campaign_summary.h"

#include <iomanip>
#include <sstream>

#include "harness/campaign/campaign_exit.h"
#include "harness/campaign/campaign_profile.h"

namespace cvm {

std::string campaign_summary(const CampaignResult& result,
                             const std::vector<ExecBackendInfo>& workers,
                             const CampaignSummaryOptions& options) {
  const bool full = options.table == TableStyle::kFull;
  std::ostringstream out;
  out << campaign_table(result, options.table);
  for (const ExecBackendInfo& w : workers) {
    out << "external backend " << w.name << ": implementation '" << w.implementation << "', "
        << w.operators << " operators in its handshake, " << w.calls << " calls, " << w.restarts
        << " restarts; stderr log " << w.log_path << "\n";
  }
  if (options.profile) out << campaign_profile(result, options.jobs);
  if (stopped_by_signal(result)) {
    out << "stopped by " << result.stopped.substr(7) << " after " << std::fixed
        << std::setprecision(1) << result.seconds << std::defaultfloat << std::setprecision(6)
        << " s of " << result.seconds_requested << " s: " << result.calls
        << " calls; the table, the reports and the store keep what it did\n";
  }
  for (const Finding& f : result.findings) {
    if (!full || !f.expected_by.empty()) continue;
    out << "\nFINDING " << f.key << " (" << f.calls << " calls; first shown by case seed "
        << f.case_seed << ")\n"
        << f.summary;
  }
  return out.str();
}

std::string campaign_progress_text(const CampaignResult& partial, double elapsed) {
  std::ostringstream line;
  line << "[" << std::fixed << std::setprecision(1) << std::setw(6) << elapsed << " s] "
       << partial.calls << " calls, " << std::setprecision(0)
       << (elapsed > 0 ? static_cast<double>(partial.calls) / elapsed : 0.0) << " calls/s, "
       << partial.mismatches << " mismatches, " << partial.findings.size() << " findings";
  return line.str();
}

}  // namespace cvm
