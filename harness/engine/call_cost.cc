#include "harness/engine/call_cost.h"

#include <algorithm>

#include "cvmcheck/paths.h"
#include "ops/records.h"

namespace cvm {
namespace {

// The record's estimate of the work beyond reading the inputs (OpInfo::extra_work), where the call
// names the record's canonical name: a call naming an alias is charged its reads alone. The
// schedule, and so each seed's sequence of calls, rests on these figures.
double extra_work(const Call& call, const OpInfo* op) {
  if (call.inputs.empty() || op == nullptr || op->name != call.op || op->extra_work == nullptr) {
    return 0;
  }
  return op->extra_work(call.attrs, call.inputs);
}

const OpInfo* record_named(const std::string& name) {
  for (const OpInfo& op : ops::records().ops()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace

bool variant_runs(double work, uint64_t seed, size_t variant, int every) {
  if (every <= 0 && work <= kVariantAllUnits) return true;
  // splitmix64 of the seed and the variant's place: independent draws per variant.
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (variant + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) % (every > 0 ? static_cast<uint64_t>(every) : kVariantEvery) == 0;
}

uint64_t call_hash(const Call& call) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  const auto mix = [&h](uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ULL;
    }
  };
  for (const char c : call.op + call.attrs.dump()) mix(static_cast<unsigned char>(c));
  for (const Tensor& t : call.inputs) {
    for (const int64_t d : t.shape()) mix(static_cast<uint64_t>(d));
    mix(static_cast<uint64_t>(t.precision()) * 2 + (t.dtype() == DType::kInt8 ? 1 : 0));
    const int64_t step = std::max<int64_t>(1, t.size() / 64);
    for (int64_t i = 0; i < t.size(); i += step) mix(static_cast<uint32_t>(t.get(i)));
  }
  return h;
}

std::set<std::string> variant_ops(const Registry& registry, const std::string& backend) {
  const Backend* variant = registry.find_backend(backend);
  if (variant == nullptr || variant->variant_of.empty() || variant->variant_every > 0) return {};
  // The paths every variant of the base declares: taken whatever the forced choice.
  std::set<std::string> shared(variant->paths.begin(), variant->paths.end());
  int siblings = 0;
  for (const Backend& other : registry.backends()) {
    if (other.variant_of != variant->variant_of || other.name == backend) continue;
    ++siblings;
    const std::set<std::string> theirs(other.paths.begin(), other.paths.end());
    for (auto it = shared.begin(); it != shared.end();) {
      it = theirs.count(*it) != 0 ? std::next(it) : shared.erase(it);
    }
  }
  if (siblings == 0) return {};
  std::set<std::string> ops;
  const auto add_ops = [&ops](const std::string& id, const Backend* only_of) {
    const PathInfo* info = paths::find(id);
    if (info == nullptr) return;
    for (const std::string& op : info->ops) {
      if (only_of == nullptr || only_of->implements(op)) ops.insert(op);
    }
  };
  // Its own paths: a kernel the choice takes.
  for (const std::string& id : variant->paths) {
    if (shared.count(id) == 0) add_ops(id, nullptr);
  }
  // Its base's paths it lacks: a kernel the choice takes the operator away from (the portable
  // variant's conv2d runs the direct kernel, a path every variant declares, where its base's
  // GEMM would run), of the operators the variant implements.
  const Backend* base = registry.find_backend(variant->variant_of);
  if (base != nullptr) {
    const std::set<std::string> own(variant->paths.begin(), variant->paths.end());
    for (const std::string& id : base->paths) {
      if (own.count(id) == 0) add_ops(id, variant);
    }
  }
  return ops;
}

std::vector<VariantRule> variant_rules(const Registry& registry,
                                       const std::vector<std::string>& compared) {
  std::vector<VariantRule> rules;
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    VariantRule rule;
    rule.variant = backend != nullptr && !backend->variant_of.empty();
    if (rule.variant) {
      rule.every = backend->variant_every;
      rule.ops = variant_ops(registry, name);
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

bool rule_runs(const VariantRule& rule, size_t k, const std::string& op, double work,
               uint64_t seed) {
  if (!rule.variant) return true;
  if (!rule.ops.empty() && rule.ops.count(op) == 0) return false;
  return variant_runs(work, seed, k, rule.every);
}

std::vector<std::string> paying_backends(const std::vector<std::string>& compared,
                                         const std::vector<VariantRule>& rules,
                                         const std::string& op, double work, uint64_t seed) {
  std::vector<std::string> chosen;
  for (size_t k = 0; k < compared.size() && k < rules.size(); ++k) {
    if (rule_runs(rules[k], k, op, work, seed)) chosen.push_back(compared[k]);
  }
  return chosen;
}

double call_work(const Call& call, const OpInfo& op) {
  const double reads = static_cast<double>(input_elements(call));
  // A call expected to break one rule stops at validation, after reading some of its inputs at
  // most: many such calls carry huge tensors only for their shapes (2^24 zeros, never read), and
  // charged as reads they left flatten and concatenate a fiftieth of their calls.
  if (call.expected.has_value() && *call.expected != OutcomeKind::kOk) {
    return kRunUnits + std::min(reads, kInvalidReadUnits);
  }
  return kRunUnits + reads + extra_work(call, &op);
}

double call_work(const Call& call) {
  const OpInfo* op = record_named(call.op);
  if (op != nullptr) return call_work(call, *op);
  const double reads = static_cast<double>(input_elements(call));
  const bool invalid = call.expected.has_value() && *call.expected != OutcomeKind::kOk;
  return kRunUnits + (invalid ? std::min(reads, kInvalidReadUnits) : reads);
}

}  // namespace cvm
