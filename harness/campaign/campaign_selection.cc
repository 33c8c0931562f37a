#include "harness/campaign/campaign_selection.h"

#include <algorithm>

#include "cvmcheck/errors.h"
#include "harness/engine/diff.h"

namespace cvm {
namespace {

// Whether `backend` implements one of `ops` (an unavailable one: listed as skipped instead).
bool implements_any(const Backend& backend, const std::vector<const OpInfo*>& ops) {
  return !backend.available || std::any_of(ops.begin(), ops.end(), [&](const OpInfo* op) {
           return backend.implements(op->name);
         });
}

}  // namespace

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
  result.backends.push_back(kReferenceBackend);
  for (const std::string& name : others) {
    const Backend* backend = registry.find_backend(name);
    check(backend != nullptr, "unknown backend '", name, "'");
    if (name == kReferenceBackend) continue;
    const bool by_default = options.backends.empty() ||
                            (options.default_backends && !backend->external);
    if (by_default && !implements_any(*backend, ops)) {
      result.not_applicable[name] = "implements none of the selected operators";
      continue;
    }
    result.backends.push_back(name);
    if (!backend->available) result.skip_reasons[name] = backend->unavailable_reason;
    if (!backend->reports_precision) result.precision_not_compared.insert(name);
  }
}

}  // namespace cvm
