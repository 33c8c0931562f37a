#include "harness/graph/graph_gen_ops.h"

namespace cvm::graph {

const std::vector<OpDrafter>& op_drafters() {
  static const std::vector<OpDrafter> kTable = [] {
    std::vector<OpDrafter> t;
    add_nn_and_elementwise_drafters(t);
    add_transform_and_vision_drafters(t);
    return t;
  }();
  return kTable;
}

const OpDrafter* find_drafter(const std::string& op) {
  for (const OpDrafter& d : op_drafters()) {
    if (d.op == op) return &d;
  }
  return nullptr;
}

std::string tuple_text(const std::vector<int64_t>& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + (v.size() == 1 ? ",)" : ")");
}

DraftInput live_input(int index) {
  DraftInput in;
  in.live = index;
  return in;
}

DraftInput param_input(Shape shape, int precision) {
  DraftInput in;
  in.param.shape = std::move(shape);
  in.param.precision = precision;
  return in;
}

}  // namespace cvm::graph
