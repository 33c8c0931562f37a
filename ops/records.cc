#include "ops/records.h"

#include "schema.h"

namespace cvm::ops {

const Registry& records() {
  static const Registry instance = [] {
    Registry r;
    add_all_ops(r);
    return r;
  }();
  return instance;
}

}  // namespace cvm::ops
