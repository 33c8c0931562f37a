// Assembles the per-operator generator records of every family (harness/gen/<family>_gen.cc) and adds
// the shared input-side invalid rules to each.
#include "cvmcheck/errors.h"
#include "cvmcheck/op_list.h"
#include "harness/gen/generators.h"
#include "ops/records.h"

namespace cvm {

const OpGenerators* generators_for(const OpInfo& op) {
  static const std::map<std::string, OpGenerators> table = [] {
    GeneratorTable families;
#define CVMCHECK_FAMILY_GENERATORS(family) add_##family##_generators,
    for (auto add : {CVMCHECK_FAMILIES(CVMCHECK_FAMILY_GENERATORS)}) {
#undef CVMCHECK_FAMILY_GENERATORS
      add(families);
    }
    GeneratorTable complete;
    for (auto& [name, record] : families) {
      const OpInfo* info = ops::records().find_op(name);
      // A generator record of an unknown operator is a bug of ours, never dropped silently.
      check(info != nullptr, "generator record for unknown operator '", name, "'");
      OpGenerators full = record;
      for (InvalidGenerator& g : gen::common_invalid(*info, record.valid)) {
        full.invalid.push_back(std::move(g));
      }
      for (const InvalidGenerator& g : record.invalid_at_scale) full.invalid.push_back(g);
      complete[name] = std::move(full);
    }
    return complete;
  }();
  auto it = table.find(op.name);
  return it == table.end() ? nullptr : &it->second;
}

}  // namespace cvm
