// cvmcheck_cuda_bench: the "cuda" backend against the device's own libraries and its memory
// bandwidth (needs a GPU; docs/cuda.md says how to run it). For each case it prints
//   backend  : the cuda backend end to end through run_op (validation, cudaMalloc, host<->device
//              copies, kernel, copy back): what a caller of the backend pays;
//   transfer : the host->device and device->host copies of the same bytes alone;
//   peer     : the library's int8 primitive on data already on the device (cuDNN int8 conv2d in
//              NHWC with float output; cuBLAS int8 GEMM with int32 output), or for elementwise
//              the time a device-to-device cudaMemcpy of the bytes read and written needs.
// Medians of --reps runs (default 20) after one warm-up.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "cvmcheck/tensor_poison.h"
#include "cvmcheck/registry.h"

namespace {

void cuda_ok(cudaError_t s, const char* what) {
  if (s != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
    std::exit(1);
  }
}
void cudnn_ok(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, cudnnGetErrorString(s));
    std::exit(1);
  }
}
void cublas_ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

int g_reps = 20;

double median_ms(const std::function<void()>& run) {
  run();  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < g_reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    cuda_ok(cudaDeviceSynchronize(), "synchronize");
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct DeviceBytes {
  void* ptr = nullptr;
  explicit DeviceBytes(size_t n) { cuda_ok(cudaMalloc(&ptr, n), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(ptr); }
};

cvm::Tensor ramp(const cvm::Shape& shape, int modulus, int precision, cvm::DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<int32_t>((i * 7919) % (2 * modulus + 1)) - modulus;
  return cvm::Tensor::from_values(shape, v, precision, dtype);
}

size_t bytes_of(const cvm::Tensor& t) {
  return static_cast<size_t>(t.size()) * (t.dtype() == cvm::DType::kInt8 ? 1 : 4);
}

// The backend end to end, and the copies of its inputs and outputs alone.
void report_backend(const std::string& label, const std::string& op, const std::string& attrs,
                    const std::vector<cvm::Tensor>& inputs, double peer_ms, const char* peer) {
  const nlohmann::json a = nlohmann::json::parse(attrs);
  std::vector<cvm::Tensor> out;
  const double backend_ms =
      median_ms([&] { out = cvm::run_op(cvm::registry(), "cuda", op, a, inputs); });
  size_t in_bytes = 0, out_bytes = 0;
  for (const cvm::Tensor& t : inputs) in_bytes += bytes_of(t);
  for (const cvm::Tensor& t : out) out_bytes += bytes_of(t);
  std::vector<char> host(std::max(in_bytes, out_bytes));
  DeviceBytes device(std::max(in_bytes, out_bytes));
  const double transfer_ms = median_ms([&] {
    cuda_ok(cudaMemcpy(device.ptr, host.data(), in_bytes, cudaMemcpyHostToDevice), "h2d");
    cuda_ok(cudaMemcpy(host.data(), device.ptr, out_bytes, cudaMemcpyDeviceToHost), "d2h");
  });
  std::printf("%-34s backend %9.3f ms   transfer %9.3f ms   %-22s %9.3f ms\n", label.c_str(),
              backend_ms, transfer_ms, peer, peer_ms);
}

double cudnn_conv_ms(int n, int c, int h, int w, int k, int r, int s, int pad) {
  cudnnHandle_t handle;
  cudnn_ok(cudnnCreate(&handle), "cudnnCreate");
  cudnnTensorDescriptor_t x_desc, y_desc;
  cudnnFilterDescriptor_t w_desc;
  cudnnConvolutionDescriptor_t conv;
  cudnn_ok(cudnnCreateTensorDescriptor(&x_desc), "x desc");
  cudnn_ok(cudnnCreateTensorDescriptor(&y_desc), "y desc");
  cudnn_ok(cudnnCreateFilterDescriptor(&w_desc), "w desc");
  cudnn_ok(cudnnCreateConvolutionDescriptor(&conv), "conv desc");
  // cuDNN's int8 convolution wants NHWC, channels a multiple of 4 and int32 accumulation.
  cudnn_ok(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, n, c, h, w), "x");
  cudnn_ok(cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, k, c, r, s), "w");
  cudnn_ok(cudnnSetConvolution2dDescriptor(conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_INT32),
           "conv");
  int on, oc, oh, ow;
  cudnn_ok(cudnnGetConvolution2dForwardOutputDim(conv, x_desc, w_desc, &on, &oc, &oh, &ow), "dims");
  cudnn_ok(cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, on, oc, oh, ow),
           "y");
  const auto algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  size_t workspace = 0;
  cudnn_ok(cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc, w_desc, conv, y_desc, algo,
                                                   &workspace),
           "ws");
  DeviceBytes x(size_t(n) * c * h * w), wt(size_t(k) * c * r * s), y(size_t(on) * oc * oh * ow * 4),
      ws(std::max<size_t>(workspace, 1));
  cuda_ok(cudaMemset(x.ptr, 1, size_t(n) * c * h * w), "memset");
  cuda_ok(cudaMemset(wt.ptr, 1, size_t(k) * c * r * s), "memset");
  const float one = 1.0f, zero = 0.0f;
  const double ms = median_ms([&] {
    cudnn_ok(cudnnConvolutionForward(handle, &one, x_desc, x.ptr, w_desc, wt.ptr, conv, algo,
                                     ws.ptr, workspace, &zero, y_desc, y.ptr),
             "cudnnConvolutionForward");
  });
  cudnnDestroyConvolutionDescriptor(conv);
  cudnnDestroyFilterDescriptor(w_desc);
  cudnnDestroyTensorDescriptor(x_desc);
  cudnnDestroyTensorDescriptor(y_desc);
  cudnnDestroy(handle);
  return ms;
}

// Y (m x units, int32) = X (m x k, int8) W^T, W (units x k, int8), as cuBLAS column-major:
// Y^T = W X^T.
double cublas_dense_ms(int m, int k, int units) {
  cublasHandle_t handle;
  cublas_ok(cublasCreate(&handle), "cublasCreate");
  DeviceBytes x(size_t(m) * k), w(size_t(units) * k), y(size_t(m) * units * 4);
  cuda_ok(cudaMemset(x.ptr, 1, size_t(m) * k), "memset");
  cuda_ok(cudaMemset(w.ptr, 1, size_t(units) * k), "memset");
  const int32_t one = 1, zero = 0;
  const double ms = median_ms([&] {
    cublas_ok(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, units, m, k, &one, w.ptr, CUDA_R_8I, k,
                           x.ptr, CUDA_R_8I, k, &zero, y.ptr, CUDA_R_32I, units, CUBLAS_COMPUTE_32I,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
  });
  cublasDestroy(handle);
  return ms;
}

double device_copy_ms(size_t bytes) {
  DeviceBytes a(bytes), b(bytes);
  return median_ms(
      [&] { cuda_ok(cudaMemcpy(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice), "d2d"); });
}

}  // namespace

int main(int argc, char** argv) {
  cvm::set_poison_uninitialized(false);  // a harness aid, not part of the kernels timed
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--reps=", 7) == 0) g_reps = std::max(1, std::atoi(argv[i] + 7));
  }
  const cvm::Backend* cuda = cvm::registry().find_backend("cuda");
  if (cuda == nullptr || !cuda->available) {
    std::fprintf(stderr, "backend cuda unavailable: %s\n",
                 cuda ? cuda->unavailable_reason.c_str() : "not registered");
    return 2;
  }
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d reps (median)\n", prop.name, g_reps);
  using cvm::DType;

  // conv2d: ResNet-like 3x3 layers, int8 data and weights.
  const struct {
    int n, c, h, w, k;
  } convs[] = {{1, 64, 56, 56, 64}, {8, 128, 28, 28, 128}, {8, 256, 14, 14, 256}};
  for (const auto& c : convs) {
    const std::vector<cvm::Tensor> in = {ramp({c.n, c.c, c.h, c.w}, 7, 8, DType::kInt8),
                                         ramp({c.k, c.c, 3, 3}, 7, 8, DType::kInt8)};
    const std::string attrs =
        "{\"channels\": \"" + std::to_string(c.k) +
        "\", \"kernel_size\": \"(3, 3)\", \"padding\": \"(1, 1)\", \"use_bias\": \"false\"}";
    char label[96];
    std::snprintf(label, sizeof label, "conv2d %dx%dx%dx%d k%d 3x3", c.n, c.c, c.h, c.w, c.k);
    report_backend(label, "conv2d", attrs, in, cudnn_conv_ms(c.n, c.c, c.h, c.w, c.k, 3, 3, 1),
                   "cuDNN int8 (NHWC)");
  }
  // dense: int8 GEMMs.
  const struct { int m, k, units; } denses[] = {{64, 1024, 1024}, {256, 4096, 4096}};
  for (const auto& d : denses) {
    const std::vector<cvm::Tensor> in = {ramp({d.m, d.k}, 7, 8, DType::kInt8),
                                         ramp({d.units, d.k}, 7, 8, DType::kInt8)};
    const std::string attrs =
        "{\"units\": \"" + std::to_string(d.units) + "\", \"use_bias\": \"false\"}";
    char label[96];
    std::snprintf(label, sizeof label, "dense %dx%d units %d", d.m, d.k, d.units);
    report_backend(label, "dense", attrs, in, cublas_dense_ms(d.m, d.k, d.units),
                   "cuBLAS int8 GemmEx");
  }
  // Large elementwise: the peer is a device-to-device copy of the bytes read plus written.
  for (int64_t n : {int64_t{1} << 24, int64_t{1} << 28}) {
    const std::vector<cvm::Tensor> in = {ramp({n}, 1000, 12, DType::kInt32),
                                         ramp({n}, 1000, 12, DType::kInt32)};
    char label[96];
    std::snprintf(label, sizeof label, "elemwise_add 2^%d int32",
                  n == (int64_t{1} << 24) ? 24 : 28);
    // elemwise_add moves 12 bytes per element (reads 8, writes 4); a copy of 6n bytes moves 12n.
    const double copy_ms = device_copy_ms(static_cast<size_t>(n) * 6);
    report_backend(label, "elemwise_add", "{}", in, copy_ms, "D2D memcpy (same bytes)");
    std::printf("%-34s device bandwidth (D2D memcpy, read+write) %.1f GB/s\n", "",
                2.0 * static_cast<double>(n) * 6 / (copy_ms * 1e6));
  }
  return 0;
}
