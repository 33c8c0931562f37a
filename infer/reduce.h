// Production inference of the reduce family (sum, max).
#pragma once

#include "infer/common.h"

namespace cvm::infer {

struct ReduceInference {
  OutputSpec output;
  std::vector<bool> reduced;  // per input axis
};

ReduceInference infer_reduce(const OpContext& ctx, bool is_sum);

}  // namespace cvm::infer
