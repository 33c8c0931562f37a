// Shared by the bandwidth and speed-up benchmarks: one operator call with its attributes parsed
// once and its kernel looked up once, the reference check done before timing, and the cheap
// deterministic tensors the cases are built from.
#pragma once

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm::bench {

// A call of one backend's kernel. `kernel` is empty when the backend does not implement it.
struct OpCall {
  const OpInfo& op;
  Attrs attrs;
  std::vector<Tensor> inputs;
  Kernel kernel;

  OpCall(const std::string& name, const nlohmann::json& json, std::vector<Tensor> in,
         const std::string& backend);
  std::vector<Tensor> run() const { return kernel(OpContext{op, attrs, inputs}); }
};

// Whether `backend` has a kernel for the (canonical or alias) operator name.
bool implements(const std::string& backend, const std::string& op);

// Runs the call on `backend` and on the reference through run_op_outcome; nullopt when both
// give the same outcome bit for bit (and it is ok), else why not.
std::optional<std::string> differs_from_reference(const std::string& backend,
                                                  const std::string& op,
                                                  const nlohmann::json& attrs,
                                                  const std::vector<Tensor>& inputs);

// Values of precision p spread over [-alpha(p), alpha(p)] (a fixed integer hash of the index
// and the seed: fast enough for 16M elements, and the same in every run).
Tensor hashed_tensor(const Shape& shape, int p, uint32_t seed, DType dtype = DType::kInt32);
// Values in [lo, hi] (e.g. indices), int32, declared precision p.
Tensor hashed_range(const Shape& shape, int64_t lo, int64_t hi, int p, uint32_t seed);

// Sets the optimized backend's threads and OpenMP's.
void set_bench_threads(int threads);

// speedup/<op>/... for every registered operator (op_speedup_bench.cc).
void register_speedup_benchmarks();

}  // namespace cvm::bench
