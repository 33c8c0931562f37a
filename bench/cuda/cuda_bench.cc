// cvmcheck_cuda_bench: the "cuda" backend, one call per operator (bench/cuda/bench_cases.cc),
// against the device's own ceilings (docs/cuda.md says how to run it, docs/performance.md has
// the figures). For each call:
//   end to end : run_op on the backend (validation, cudaMalloc, host<->device copies, kernels,
//                copy back), host clock: what a caller pays;
//   kernels    : the call's launches alone (CUDA events, cuda::last_kernel_ms);
//   copy       : a device-to-device cudaMemcpy moving the same bytes (the call's inputs read
//                once plus its outputs written once), so kernels / copy is how far a
//                memory-bound kernel is from the bandwidth floor;
//   GEMM       : for conv2d and dense, cuBLASLt's int8 GEMM of the same arithmetic;
//   simple     : for conv2d and dense, the kernels of cuda/simple (one thread per output
//                element, the baseline the tiled GEMM replaced).
// Medians of --reps runs after one warm-up. --json=PATH writes every figure.
// --check=BACKEND runs each call once on a CPU backend instead (no device needed): every call
// of the table must be valid.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/cuda/bench_cases.h"
#include "bench/cuda/device_peers.h"
#include "cuda/plan.h"
#include "cvmcheck/registry.h"
#include "cvmcheck/tensor_poison.h"
#include "registry/registry.h"

namespace cvm::bench {
namespace {

struct Options {
  int reps = 10;
  std::string json_path;
  std::string check_backend;
  std::string filter;
};

size_t bytes_of(const Tensor& t) {
  return static_cast<size_t>(t.size()) * (t.dtype() == DType::kInt8 ? 1 : 4);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Each call once on a CPU backend: 0 when every call is valid there.
int check_cases(const std::vector<BenchCase>& cases, const Options& o) {
  int failures = 0;
  for (const BenchCase& c : cases) {
    if (!o.filter.empty() && c.label.find(o.filter) == std::string::npos) continue;
    int64_t elements = 0;
    for (const Tensor& t : c.inputs) elements += t.size();
    if (elements > (int64_t{1} << 26)) {
      std::printf("%-44s skipped on the CPU (%lld elements)\n", c.label.c_str(),
                  static_cast<long long>(elements));
      continue;
    }
    try {
      run_op(registry(), o.check_backend, c.op, nlohmann::json::parse(c.attrs), c.inputs);
      std::printf("%-44s ok\n", c.label.c_str());
    } catch (const std::exception& e) {
      std::printf("%-44s FAILED: %s\n", c.label.c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

// Median kernel time of the call on `backend` (after one warm-up).
double kernel_ms_on(const std::string& backend, const BenchCase& c, int reps) {
  const nlohmann::json attrs = nlohmann::json::parse(c.attrs);
  run_op(registry(), backend, c.op, attrs, c.inputs);
  std::vector<double> kernels;
  for (int r = 0; r < reps; ++r) {
    run_op(registry(), backend, c.op, attrs, c.inputs);
    kernels.push_back(cuda::last_kernel_ms());
  }
  return median(kernels);
}

nlohmann::json time_case(const BenchCase& c, int reps) {
  const nlohmann::json attrs = nlohmann::json::parse(c.attrs);
  std::vector<Tensor> out = run_op(registry(), "cuda", c.op, attrs, c.inputs);  // warm-up
  std::vector<double> end_to_end, kernels;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    out = run_op(registry(), "cuda", c.op, attrs, c.inputs);
    end_to_end.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    kernels.push_back(cuda::last_kernel_ms());
  }
  size_t in_bytes = 0, out_bytes = 0;
  for (const Tensor& t : c.inputs) in_bytes += bytes_of(t);
  for (const Tensor& t : out) out_bytes += static_cast<size_t>(t.size()) * 4;  // int32
  const size_t bytes = in_bytes + out_bytes;
  const double kernel_ms = median(kernels);
  const double copy_ms = device_copy_ms(bytes / 2, reps);  // reads and writes bytes/2 each
  const double pinned_ms = pinned_copies_ms(in_bytes, out_bytes, reps);
  nlohmann::json j = {{"label", c.label},           {"op", c.op},
                      {"bytes", bytes},             {"end_to_end_ms", median(end_to_end)},
                      {"kernel_ms", kernel_ms},     {"copy_ms", copy_ms},
                      {"kernel_over_copy", kernel_ms / copy_ms},
                      {"kernel_gb_per_s", static_cast<double>(bytes) / (kernel_ms * 1e6)},
                      {"pinned_copies_ms", pinned_ms},
                      {"end_to_end_over_pinned", median(end_to_end) / pinned_ms}};
  if (c.gemm.m > 0) {
    j["simple_kernel_ms"] = kernel_ms_on("cuda/simple", c, reps);
    j["kernel_over_simple"] = kernel_ms / j["simple_kernel_ms"].get<double>();
    std::string why;
    const double gemm_ms = cublaslt_int8_gemm_ms(c.gemm.m, c.gemm.n, c.gemm.k, reps, &why);
    j["gemm"] = {{"m", c.gemm.m}, {"n", c.gemm.n}, {"k", c.gemm.k}};
    if (why.empty()) {
      j["gemm_ms"] = gemm_ms;
      j["kernel_over_gemm"] = kernel_ms / gemm_ms;
    } else {
      j["gemm_unavailable"] = why;
    }
  }
  return j;
}

void print_row(const nlohmann::json& j) {
  std::printf("%-44s %10.3f %10.3f %9.3f %7.2f %8.1f", j["label"].get<std::string>().c_str(),
              j["end_to_end_ms"].get<double>(), j["kernel_ms"].get<double>(),
              j["copy_ms"].get<double>(), j["kernel_over_copy"].get<double>(),
              j["kernel_gb_per_s"].get<double>());
  if (j.contains("gemm_ms")) {
    std::printf("   GEMM %8.3f ms (kernels x%.1f)", j["gemm_ms"].get<double>(),
                j["kernel_over_gemm"].get<double>());
  } else if (j.contains("gemm_unavailable")) {
    std::printf("   GEMM: %s", j["gemm_unavailable"].get<std::string>().c_str());
  }
  std::printf("   pinned %7.3f ms (end to end x%.1f)", j["pinned_copies_ms"].get<double>(),
              j["end_to_end_over_pinned"].get<double>());
  if (j.contains("simple_kernel_ms")) {
    std::printf("   simple %8.3f ms (kernels x%.2f)", j["simple_kernel_ms"].get<double>(),
                j["kernel_over_simple"].get<double>());
  }
  std::printf("\n");
}

// 0 when the cuda backend can run here; else says why.
int require_device() {
  const Backend* cuda = registry().find_backend("cuda");
  if (cuda != nullptr && cuda->available) return 0;
  std::fprintf(stderr, "cvmcheck_cuda_bench: backend cuda unavailable: %s\n",
               cuda ? cuda->unavailable_reason.c_str() : "not registered");
  return 2;
}

int time_cases(const std::vector<BenchCase>& cases, const Options& o) {
  cuda::set_kernel_timing(true);
  nlohmann::json report = {{"device", device_description()}, {"reps", o.reps}};
  std::printf("device: %s; medians of %d runs\n", report["device"].get<std::string>().c_str(),
              o.reps);
  std::printf("%-44s %10s %10s %9s %7s %8s\n", "call", "end-to-end", "kernels", "copy",
              "k/copy", "GB/s");
  int failures = 0;
  for (const BenchCase& c : cases) {
    if (!o.filter.empty() && c.label.find(o.filter) == std::string::npos) continue;
    try {
      const nlohmann::json j = time_case(c, o.reps);
      print_row(j);
      report["cases"].push_back(j);
    } catch (const std::exception& e) {
      std::printf("%-44s FAILED: %s\n", c.label.c_str(), e.what());
      report["cases"].push_back({{"label", c.label}, {"op", c.op}, {"error", e.what()}});
      ++failures;
    }
    std::fflush(stdout);
  }
  if (!o.json_path.empty()) std::ofstream(o.json_path) << report.dump(1) << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace cvm::bench

int main(int argc, char** argv) {
  using namespace cvm::bench;
  cvm::set_poison_uninitialized(false);  // a harness aid, not part of the kernels timed
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--reps=")) {
      o.reps = std::max(1, std::atoi(v));
    } else if (const char* v = value("--json=")) {
      o.json_path = v;
    } else if (const char* v = value("--check=")) {
      o.check_backend = v;
    } else if (const char* v = value("--filter=")) {
      o.filter = v;
    } else {
      std::fprintf(stderr,
                   "usage: cvmcheck_cuda_bench [--reps=N] [--json=PATH] [--filter=TEXT] "
                   "[--check=CPU_BACKEND]\n");
      return a == "--help" || a == "-h" ? 0 : 64;
    }
  }
  if (o.check_backend.empty()) {
    if (const int status = require_device()) return status;
    return time_cases(bench_cases(), o);
  }
  return check_cases(bench_cases(), o);
}
