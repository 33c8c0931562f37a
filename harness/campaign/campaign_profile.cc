#include "harness/campaign/campaign_profile.h"

#include <sys/resource.h>

#include <iomanip>
#include <sstream>
#include <vector>

namespace cvm {

Usage usage_now() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  Usage out;
  out.minor_faults = u.ru_minflt;
  out.major_faults = u.ru_majflt;
  out.cpu_seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                    static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  return out;
}
namespace {

// One row per operator: its calls, the share of the time the schedule planned for it and the
// share it took (of the time spent in operators' calls), and its time per call.
std::string operator_shares(const CampaignResult& result) {
  double total = 0;
  for (const auto& [op, seconds] : result.op_seconds) total += seconds;
  std::ostringstream out;
  out << std::fixed << std::left << std::setw(26) << "operator" << std::right << std::setw(10)
      << "calls" << std::setw(10) << "planned" << std::setw(10) << "measured" << std::setw(12)
      << "us/call" << "\n";
  for (const auto& [op, row] : result.table) {
    const auto ref = row.find(kReferenceBackend);
    const int64_t calls = ref == row.end() ? 0 : ref->second.cases;
    const auto planned = result.planned_share.find(op);
    const auto spent = result.op_seconds.find(op);
    const double seconds = spent == result.op_seconds.end() ? 0.0 : spent->second;
    out << std::left << std::setw(26) << op << std::right << std::setw(10) << calls
        << std::setw(9) << std::setprecision(1)
        << (planned == result.planned_share.end() ? 0.0 : 100 * planned->second) << "%"
        << std::setw(9) << (total > 0 ? 100 * seconds / total : 0.0) << "%" << std::setw(12)
        << (calls > 0 ? 1e6 * seconds / static_cast<double>(calls) : 0.0) << "\n";
  }
  return out.str();
}

}  // namespace

std::string campaign_profile(const CampaignResult& result, int jobs) {
  std::vector<std::string> order = {"draw"};
  for (const std::string& backend : result.backends) order.push_back("backend:" + backend);
  order.push_back("compare");
  order.push_back("bookkeeping");
  for (const auto& [phase, seconds] : result.phase_seconds) {  // any other, after the known ones
    bool listed = false;
    for (const std::string& name : order) listed = listed || name == phase;
    if (!listed) order.insert(order.end() - 1, phase);
  }
  double total = 0;
  for (const auto& [phase, seconds] : result.phase_seconds) total += seconds;
  const double calls = static_cast<double>(result.calls);
  std::ostringstream out;
  out << std::fixed;
  out << "profile of " << result.calls << " calls"
      << (jobs > 1 ? ", phases summed over " + std::to_string(jobs) + " jobs" : std::string())
      << ":\n";
  const int width = 34;
  out << std::left << std::setw(width) << "phase" << std::right << std::setw(11) << "seconds"
      << std::setw(9) << "share" << std::setw(12) << "us/call" << "\n";
  const auto row = [&](const std::string& name, double seconds) {
    out << std::left << std::setw(width) << name << std::right << std::setw(11)
        << std::setprecision(3) << seconds << std::setw(8) << std::setprecision(1)
        << (total > 0 ? 100 * seconds / total : 0.0) << "%" << std::setw(12)
        << std::setprecision(1) << (calls > 0 ? 1e6 * seconds / calls : 0.0) << "\n";
  };
  for (const std::string& phase : order) {
    const auto it = result.phase_seconds.find(phase);
    if (it != result.phase_seconds.end()) row(phase, it->second);
  }
  row("total", total);
  const double faults = static_cast<double>(result.minor_faults + result.major_faults);
  out << "profile: " << std::setprecision(0) << (result.seconds > 0 ? calls / result.seconds : 0.0)
      << " calls/s, " << std::setprecision(2) << (calls > 0 ? faults / calls : 0.0)
      << " page faults/call (minor " << result.minor_faults << ", major " << result.major_faults
      << "), " << (result.seconds > 0 ? result.cpu_seconds / result.seconds : 0.0)
      << " CPUs used (" << result.cpu_seconds << " CPU-s in " << result.seconds << " s)\n";
  if (!result.planned_share.empty()) out << operator_shares(result);
  return out.str();
}

}  // namespace cvm
