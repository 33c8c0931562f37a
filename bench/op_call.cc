#include "op_call.h"

#include <omp.h>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "cvmcheck/precision.h"
#include "optimized/kernels.h"

namespace cvm::bench {
namespace {

uint32_t mix(uint64_t i, uint32_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

}  // namespace

OpCall::OpCall(const std::string& name, const nlohmann::json& json, std::vector<Tensor> in,
               const std::string& backend)
    : op(registry().op(name)), attrs(parse_attrs(op.attrs, json)), inputs(std::move(in)) {
  const Backend* b = registry().find_backend(backend);
  if (b != nullptr && b->implements(op.name)) kernel = b->kernels.at(op.name);
}

bool implements(const std::string& backend, const std::string& op) {
  const Backend* b = registry().find_backend(backend);
  const OpInfo* info = registry().find_op(op);
  return b != nullptr && info != nullptr && b->implements(info->name);
}

std::optional<std::string> differs_from_reference(const std::string& backend,
                                                  const std::string& op,
                                                  const nlohmann::json& attrs,
                                                  const std::vector<Tensor>& inputs) {
  const Outcome expected = run_op_outcome(registry(), "reference", op, attrs, inputs);
  if (expected.kind != OutcomeKind::kOk) {
    return "the reference rejects the case: " + expected.message;
  }
  const Outcome actual = run_op_outcome(registry(), backend, op, attrs, inputs);
  const std::optional<Difference> diff = compare_outcomes(actual, expected, backend, "reference");
  if (diff) return "differs from the reference: " + diff->what + " " + actual.message;
  return std::nullopt;
}

Tensor hashed_tensor(const Shape& shape, int p, uint32_t seed, DType dtype) {
  Tensor t = Tensor::uninitialized(dtype, shape, p);
  const uint64_t span = 2 * static_cast<uint64_t>(alpha(p)) + 1;
  const int64_t n = t.size();
  if (dtype == DType::kInt8) {
    int8_t* data = t.i8();
    for (int64_t i = 0; i < n; ++i) {
      data[i] = static_cast<int8_t>(static_cast<int64_t>(mix(i, seed) % span) - alpha(p));
    }
  } else {
    int32_t* data = t.i32();
    for (int64_t i = 0; i < n; ++i) {
      data[i] = static_cast<int32_t>(static_cast<int64_t>(mix(i, seed) % span) - alpha(p));
    }
  }
  return t;
}

Tensor hashed_range(const Shape& shape, int64_t lo, int64_t hi, int p, uint32_t seed) {
  Tensor t = Tensor::uninitialized(DType::kInt32, shape, p);
  const auto span = static_cast<uint64_t>(hi - lo + 1);
  for (int64_t i = 0; i < t.size(); ++i) {
    t.i32()[i] = static_cast<int32_t>(lo + static_cast<int64_t>(mix(i, seed) % span));
  }
  return t;
}

void set_bench_threads(int threads) {
  opt::set_threads(threads);
  omp_set_num_threads(threads);
}

}  // namespace cvm::bench
