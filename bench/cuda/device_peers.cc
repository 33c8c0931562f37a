// bench/cuda/device_peers.h: CUDA events around each timed run.
#include "bench/cuda/device_peers.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace cvm::bench {
namespace {

void cuda_ok(cudaError_t s, const char* what) {
  if (s != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
    std::exit(1);
  }
}

struct DeviceBytes {
  void* ptr = nullptr;
  explicit DeviceBytes(size_t n) { cuda_ok(cudaMalloc(&ptr, std::max<size_t>(n, 1)), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(ptr); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

double median_event_ms(const std::function<void()>& run, int reps) {
  run();  // warm-up
  cuda_ok(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    cuda_ok(cudaEventRecord(start), "cudaEventRecord");
    run();
    cuda_ok(cudaEventRecord(stop), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float elapsed = 0;
    cuda_ok(cudaEventElapsedTime(&elapsed, start, stop), "cudaEventElapsedTime");
    ms.push_back(elapsed);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

double device_copy_ms(size_t bytes, int reps) {
  DeviceBytes a(bytes), b(bytes);
  cuda_ok(cudaMemset(a.ptr, 0x5a, bytes), "cudaMemset");
  return median_event_ms(
      [&] { cuda_ok(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice), "d2d"); },
      reps);
}

double pinned_copies_ms(size_t to_device, size_t to_host, int reps) {
  void* host_in = nullptr;
  void* host_out = nullptr;
  cuda_ok(cudaMallocHost(&host_in, std::max<size_t>(to_device, 1)), "cudaMallocHost");
  cuda_ok(cudaMallocHost(&host_out, std::max<size_t>(to_host, 1)), "cudaMallocHost");
  std::memset(host_in, 0x5a, to_device);
  double ms = 0;
  {
    DeviceBytes in(to_device), out(to_host);
    cuda_ok(cudaMemset(out.ptr, 0x5a, to_host), "cudaMemset");
    ms = median_event_ms(
        [&] {
          cuda_ok(cudaMemcpyAsync(in.ptr, host_in, to_device, cudaMemcpyHostToDevice), "h2d");
          cuda_ok(cudaMemcpyAsync(host_out, out.ptr, to_host, cudaMemcpyDeviceToHost), "d2h");
        },
        reps);
  }
  cudaFreeHost(host_in);
  cudaFreeHost(host_out);
  return ms;
}

double cublaslt_int8_gemm_ms(int64_t m, int64_t n, int64_t k, int reps, std::string* why) {
  // Row-major C = A B is column-major C^T = B^T A^T. cuBLASLt's int8 kernels want the "TN"
  // form: the first operand transposed. So: C^T (n x m) = op_T(Bt) * A^T where Bt is B stored
  // column-major as k x n (B row-major k x n is column-major n x k: store B transposed, i.e.
  // the weights as dense keeps them, units x k row-major).
  cublasLtHandle_t handle;
  if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    *why = "cublasLtCreate failed";
    return 0;
  }
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I);
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, k, n, k);   // weights: n rows of k, op T -> n x k
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, k, m, k);   // data: m rows of k -> k x m
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, n, m, n);  // result: m rows of n -> n x m
  DeviceBytes w(size_t(n * k)), x(size_t(m * k)), c(size_t(m * n) * 4);
  const size_t workspace_bytes = size_t{32} << 20;
  DeviceBytes workspace(workspace_bytes);
  cuda_ok(cudaMemset(w.ptr, 1, size_t(n * k)), "cudaMemset");
  cuda_ok(cudaMemset(x.ptr, 2, size_t(m * k)), "cudaMemset");
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                       &workspace_bytes, sizeof workspace_bytes);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 1,
                                                          &heuristic, &found);
  double ms = 0;
  if (s != CUBLAS_STATUS_SUCCESS || found == 0) {
    *why = "cuBLASLt has no int8 algorithm for this shape (status " + std::to_string(s) + ")";
  } else {
    const int32_t alpha = 1, beta = 0;
    bool failed = false;
    ms = median_event_ms(
        [&] {
          failed |= cublasLtMatmul(handle, desc, &alpha, w.ptr, la, x.ptr, lb, &beta, c.ptr, lc,
                                   c.ptr, lc, &heuristic.algo, workspace.ptr, workspace_bytes,
                                   nullptr) != CUBLAS_STATUS_SUCCESS;
        },
        reps);
    if (failed) {
      *why = "cublasLtMatmul failed";
      ms = 0;
    }
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(handle);
  return ms;
}

std::string device_description() {
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  char text[512];
  std::snprintf(text, sizeof text, "%s, %d multiprocessors, %.0f GiB, compute capability %d.%d",
                prop.name, prop.multiProcessorCount,
                static_cast<double>(prop.totalGlobalMem) / (1 << 30), prop.major, prop.minor);
  return text;
}

}  // namespace cvm::bench
