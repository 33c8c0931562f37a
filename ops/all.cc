#include "cvmcheck/op_list.h"
#include "schema.h"

namespace cvm::ops {

void add_all_ops(Registry& registry) {
#define CVMCHECK_FAMILY_RECORDS(family) family##_ops,
  for (auto family : {CVMCHECK_FAMILIES(CVMCHECK_FAMILY_RECORDS)}) {
#undef CVMCHECK_FAMILY_RECORDS
    for (OpInfo& op : family()) registry.add_op(std::move(op));
  }
}

}  // namespace cvm::ops
