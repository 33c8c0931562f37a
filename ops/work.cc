#include "work.h"

#include <algorithm>
#include <cctype>

namespace cvm::ops {
namespace {

int64_t dim_or_1(const std::vector<Tensor>& inputs, size_t input, size_t axis) {
  if (input >= inputs.size()) return 1;
  const Shape& shape = inputs[input].shape();
  return axis < shape.size() ? std::max<int64_t>(1, shape[axis]) : 1;
}

double data_elements(const std::vector<Tensor>& inputs) {
  return inputs.empty() ? 0 : static_cast<double>(inputs[0].size());
}

}  // namespace

int64_t attr_product(const nlohmann::json& attrs, const std::string& key) {
  if (!attrs.is_object() || !attrs.contains(key) || !attrs.at(key).is_string()) return 1;
  const std::string text = attrs.at(key).get<std::string>();
  int64_t product = 1, value = 0;
  bool in_number = false;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      value = std::min<int64_t>(value * 10 + (c - '0'), 1 << 20);
      in_number = true;
    } else if (in_number) {
      product = std::min<int64_t>(product * std::max<int64_t>(value, 1), 1 << 20);
      value = 0;
      in_number = false;
    }
  }
  if (in_number) product = std::min<int64_t>(product * std::max<int64_t>(value, 1), 1 << 20);
  return std::max<int64_t>(product, 1);
}

double conv2d_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs) {
  if (inputs.size() < 2) return 0;
  const double positions = static_cast<double>(dim_or_1(inputs, 0, 0) * dim_or_1(inputs, 0, 2) *
                                               dim_or_1(inputs, 0, 3)) /
                           static_cast<double>(attr_product(attrs, "strides"));
  return positions * static_cast<double>(inputs[1].size());
}

double dense_work(const nlohmann::json&, const std::vector<Tensor>& inputs) {
  if (inputs.size() < 2) return 0;
  return static_cast<double>(dim_or_1(inputs, 0, 0)) * static_cast<double>(inputs[1].size());
}

double max_pool2d_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs) {
  return data_elements(inputs) * static_cast<double>(attr_product(attrs, "pool_size")) /
         static_cast<double>(attr_product(attrs, "strides"));
}

double upsampling_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs) {
  const double scale = static_cast<double>(attr_product(attrs, "scale"));
  return data_elements(inputs) * std::min(scale * scale, 1e6);
}

double box_pairs_work(const nlohmann::json&, const std::vector<Tensor>& inputs) {
  if (inputs.empty()) return 0;
  return static_cast<double>(dim_or_1(inputs, 0, 0)) * static_cast<double>(dim_or_1(inputs, 0, 1)) *
         static_cast<double>(dim_or_1(inputs, 0, 1));
}

double broadcast_work(const nlohmann::json&, const std::vector<Tensor>& inputs) {
  if (inputs.size() < 2) return 0;
  const Shape& a = inputs[0].shape();
  const Shape& b = inputs[1].shape();
  const size_t n = std::max(a.size(), b.size());
  double elements = 1;
  for (size_t k = 0; k < n; ++k) {
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    elements *= static_cast<double>(std::max<int64_t>({da, db, 1}));
  }
  return elements;
}

double repeat_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs) {
  return data_elements(inputs) * static_cast<double>(attr_product(attrs, "repeats"));
}

double tile_work(const nlohmann::json& attrs, const std::vector<Tensor>& inputs) {
  return data_elements(inputs) * static_cast<double>(attr_product(attrs, "reps"));
}

double reduce_work(const nlohmann::json&, const std::vector<Tensor>& inputs) {
  return 7 * data_elements(inputs);
}

}  // namespace cvm::ops
