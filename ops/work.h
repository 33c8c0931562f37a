// Each operator's work estimate (OpInfo::extra_work): what one call computes beyond reading its
// inputs, from its sizes alone (a pure function of the call, so a seed replays the same
// schedule anywhere). The estimate never checks anything: unreadable attributes count as 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/tensor.h"

namespace cvm::ops {

// The product of the integers in attribute `key` ("(2, 3)", "[2,3]", "2"), at least 1 and at
// most 2^20; 1 when absent or not a string.
int64_t attr_product(const nlohmann::json& attrs, const std::string& key);

// Every output position of every image takes the whole weight tensor once.
double conv2d_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// Every row of the data takes the whole weight matrix once.
double dense_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// A window of pool_size taps per output element.
double max_pool2d_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// Each element written scale^2 times.
double upsampling_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// Pairs of boxes within a batch (get_valid_counts, non_max_suppression).
double box_pairs_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// One step per element of the broadcast output shape.
double broadcast_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// Copies that write each element `repeats` or `reps` times.
double repeat_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
double tile_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
// A reduction's element costs a multi-axis index step in the reference and a lane of an
// emulated warp in cuda-host and each of its reduction variants: measured at about eight times
// an element of an elementwise pass over the same backends.
double reduce_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);

}  // namespace cvm::ops
