#include "harness/campaign/campaign_setup.h"

#include <sys/resource.h>

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/diff.h"
#include "harness/engine/verdict.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm::campaign_detail {
namespace {

// Whether `backend` implements one of `ops` (an unavailable one: listed as skipped instead).
bool implements_any(const Backend& backend, const std::vector<const OpInfo*>& ops) {
  return !backend.available || std::any_of(ops.begin(), ops.end(), [&](const OpInfo* op) {
           return backend.implements(op->name);
         });
}

}  // namespace

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

std::string hex(uint64_t v) {
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << v;
  return out.str();
}

// Draws call `index`: a valid call, or (with probability invalid_share) a call breaking one
// rule. Everything is derived from the case seed, so the draw is replayable alone; the
// Shrinkable also holds the call's shrink tree (walked only for a finding).
rc::Shrinkable<Call> draw_shrinkable(const OpGenerators& gens, uint64_t seed,
                                     double invalid_share) {
  const double unit = static_cast<double>(seed >> 11) * 0x1.0p-53;
  const int size = static_cast<int>(seed % 101);
  const rc::Random random(seed);
  if (unit < invalid_share && !gens.invalid.empty()) {
    return gens.invalid[(seed >> 7) % gens.invalid.size()].gen(random, size);
  }
  return gens.valid(random, size);
}

bool draw_call(const OpGenerators& gens, uint64_t seed, double invalid_share, Call& call) {
  try {
    call = draw_shrinkable(gens, seed, invalid_share).value();
    return true;
  } catch (...) {
    // A generator that gives up (e.g. a discarded draw) is not a finding of the backends.
    return false;
  }
}

// The exact descriptor of a call (of any length), identifying it; empty for a call that has
// none (attributes that are not valid UTF-8).
std::string exact_descriptor(const Call& call, const std::string& backend) {
  try {
    return format_call_descriptor(call, backend);
  } catch (const LogicError&) {
    return "";
  }
}

void describe_finding(CampaignFinding& finding, const Call& call, const std::string& backend) {
  finding.descriptor_note.clear();
  finding.descriptor =
      compact_call_descriptor(judged_call(call), backend, &finding.descriptor_note).value_or("");
}

// The operators a campaign draws from: the selection, or every record.
std::vector<const OpInfo*> selected_ops(const Registry& registry, const CampaignOptions& options) {
  std::vector<const OpInfo*> ops;
  if (options.ops.empty()) {
    for (const OpInfo& op : registry.ops()) ops.push_back(&op);
  } else {
    for (const std::string& name : options.ops) {
      const OpInfo* op = registry.find_op(name);
      check(op != nullptr, "unknown operator '", name, "'");
      ops.push_back(op);
    }
  }
  return ops;
}

// result.backends: "reference", then the compared backends (an unavailable one with its reason
// in skip_reasons). Of the default selection, a backend implementing none of `ops` is left out
// (result.not_applicable): a narrow run is judged on what was asked; a backend named explicitly
// (also by --backend-def) that compares nothing still fails the run.
void select_backends(const Registry& registry, const CampaignOptions& options,
                     const std::vector<const OpInfo*>& ops, CampaignResult& result) {
  std::vector<std::string> others = options.backends.empty() ? other_backends(registry)
                                                             : options.backends;
  result.backends.push_back("reference");
  for (const std::string& name : others) {
    const Backend* backend = registry.find_backend(name);
    check(backend != nullptr, "unknown backend '", name, "'");
    if (name == "reference") continue;
    const bool by_default = options.backends.empty() ||
                            (options.default_backends && !backend->external);
    if (by_default && !implements_any(*backend, ops)) {
      result.not_applicable[name] = "implements none of the selected operators";
      continue;
    }
    result.backends.push_back(name);
    if (!backend->available) result.skip_reasons[name] = backend->unavailable_reason;
    if (!reports_precision(name)) result.precision_not_compared.insert(name);
  }
}

}  // namespace cvm::campaign_detail
