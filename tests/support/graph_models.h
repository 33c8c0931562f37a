// Small hand-built models that several graph tests run.
#pragma once

#include "harness/graph/graph_shrink.h"

namespace cvm::testing {

// data (1, 1, 2, 2) -> conv2d with a 1x1 weight of 2 -> relu -> cvm_right_shift (precision 8,
// shift 1): data {1, -2, 3, 127}, weight {2}; every operator of every CPU backend runs it.
graph::Model conv_relu_shift_model();

}  // namespace cvm::testing
