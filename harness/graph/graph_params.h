// The params blob of the original CVM runtime: what its CVMSaveParamsDict writes and its
// load_params reads (docs/graphs.md, "The params blob"). Little-endian throughout:
//   u64 0xF7E58D4F05049CB7 (the list's magic), u64 0 (reserved),
//   u64 name count, then per name u64 length and its bytes,
//   u64 array count (equal to the name count), then per array:
//     u64 0xDD5E40F096B4A13F (the array's magic), u64 0 (reserved),
//     i32 device_type (1: CPU), i32 device_id (0),
//     i32 ndim, u8 type code (0: int), u8 bits (8 or 32), u16 lanes (1),
//     i64 shape[ndim], i64 data byte count, the data (row-major).
// The reader accepts what the runtime's reader accepts and refuses, as a bad model, what would
// make a tensor of ours impossible (a type other than int8 or int32, a shape outside the tensor
// limits, a byte count not matching the shape, truncated data).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/tensor.h"

namespace cvm::graph {

inline constexpr uint64_t kParamsMagic = 0xF7E58D4F05049CB7ull;
inline constexpr uint64_t kArrayMagic = 0xDD5E40F096B4A13Full;

using NamedTensor = std::pair<std::string, Tensor>;

// The blob, byte for byte as CVMSaveParamsDict writes it for these CPU arrays.
std::string write_params(const std::vector<NamedTensor>& params);

// LogicError (rule "graph.params_format") naming what is wrong. Bytes after the last array are
// ignored, as the runtime ignores them. Each tensor gets precision 32: the graph gives the
// parameter's precision.
std::vector<NamedTensor> parse_params(const std::string& bytes);

}  // namespace cvm::graph
