#include "schema.h"

namespace cvm::ops {

void add_all_ops(Registry& registry) {
  for (auto family : {reduce_ops, broadcast_ops, elementwise_ops, nn_ops, transform_shape_ops,
                      transform_index_ops, vision_ops, ov_ops}) {
    for (OpInfo& op : family()) registry.add_op(std::move(op));
  }
}

}  // namespace cvm::ops
