// What the original's C API writes for a model (docs/graphs.md, "The packed output"):
// CVMAPIInference's output buffer, computed from a run's head entries as the original's
// CVMModel::SaveTensor (src/core/model.cc) computes it, quirks included, so a worker's packed
// output can be compared byte for byte with the reference's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/tensor.h"
#include "harness/graph/graph.h"

namespace cvm::graph {

// The heads in order, each row-major, after the graph's post-processing: int8 elements
// (type_size 1) when every head's precision is at most 8 and there is no post-processing, else
// int32 (4), little-endian.
struct PackedOutput {
  uint32_t type_size = 4;
  std::vector<uint8_t> bytes;
  bool operator==(const PackedOutput& o) const {
    return type_size == o.type_size && bytes == o.bytes;
  }
};

// The output buffer of CVMAPIInference for `heads` (the head entries in the graph's order) of
// `g`: GetOutputLength bytes, zero before the call, as SaveTensor leaves them.
// - "argmax": per head, the index of the largest value (compared as int8, the original's
//   truncation) of each block of the last axis, but only every last_dim-th row (the original's
//   loop steps its row index by last_dim), written one after another; the rest stays zero.
// - "detection", or more than one head: the heads concatenated row by row (a row: the last
//   axis), which needs as many rows in every head and at least two heads, else a LogicError
//   (rule "graph.postprocess", the original's VERIFY). Bytes it would write past the buffer's
//   GetOutputLength (detection, where the first head's second-last axis is not its row count)
//   are not part of the output.
// - otherwise each head's values one after another.
// A postprocess string the original does not know counts as none. LogicError for no heads.
PackedOutput pack_outputs(const Graph& g, const std::vector<Tensor>& heads);

}  // namespace cvm::graph
