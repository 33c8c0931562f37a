// "cuda": runs a CUDA plan on the device. Each kernel is a thin grid-stride loop over the same
// per-item function that cuda-host runs in a CPU loop (cuda/*_device.h). Device memory is plain
// cudaMalloc behind an RAII owner; every CUDA error becomes a RuntimeError carrying
// cudaGetErrorString (never an abort). The plan was validated on the host before this runs.
#include <cuda_runtime.h>

#include <utility>

#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) fail_runtime("CUDA ", what, ": ", cudaGetErrorString(status));
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) {
    if (bytes > 0) cuda_check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr)
      cudaFree(ptr_);  // an error here has nowhere to go; the next call reports it
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

// Grid-stride kernels: one per step kind, each a loop over its per-item function.
__device__ inline int64_t first_item() { return blockIdx.x * int64_t{blockDim.x} + threadIdx.x; }
__device__ inline int64_t item_stride() { return int64_t{gridDim.x} * blockDim.x; }

__global__ void map_kernel(MapParams p, Views v, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = map_element(p, v, i);
  }
}

__global__ void gather_kernel(GatherParams p, InView in, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    gather_element(p, in, out, i);
  }
}

__global__ void take_kernel(TakeParams p, Views v, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = take_element(p, v, i);
  }
}

__global__ void reduce_kernel(ReduceParams p, InView in, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = reduce_element(p, in, i);
  }
}

__global__ void conv2d_kernel(Conv2dParams p, Views v, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = conv2d_element(p, v, i);
  }
}

__global__ void dense_kernel(DenseParams p, Views v, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = dense_element(p, v, i);
  }
}

__global__ void pool_kernel(PoolParams p, InView in, int32_t* out, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) {
    out[i] = pool_element(p, in, i);
  }
}

__global__ void valid_counts_kernel(ValidCountsParams p, InView in, int32_t* count, int32_t* y,
                                    int64_t n) {
  for (int64_t b = first_item(); b < n; b += item_stride()) {
    valid_counts_batch(p, in, count, y, b);
  }
}

__global__ void nms_kernel(NmsParams p, Views v, int32_t* y, int32_t* scratch, int64_t n) {
  for (int64_t b = first_item(); b < n; b += item_stride()) {
    nms_batch(p, v, y, scratch, b);
  }
}

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n, int threads = kThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65535 ? blocks : 65535);  // grid-stride covers the rest
}

size_t bytes_of(const Tensor& t) {
  return static_cast<size_t>(t.size()) * (t.dtype() == DType::kInt8 ? 1 : 4);
}

std::vector<Tensor> run_on_device(const Plan& plan) {
  // Inputs, outputs and scratch on the device.
  std::vector<DeviceBuffer> inputs;
  std::vector<InView> views;
  for (const Tensor* t : plan.inputs) {
    inputs.emplace_back(bytes_of(*t));
    const bool int8 = t->dtype() == DType::kInt8;
    const void* host =
        int8 ? static_cast<const void*>(t->i8()) : static_cast<const void*>(t->i32());
    cuda_check(cudaMemcpy(inputs.back().get(), host, bytes_of(*t), cudaMemcpyHostToDevice),
               "cudaMemcpy to the device");
    views.push_back({inputs.back().get(), int8 ? 1 : 0});
  }
  std::vector<DeviceBuffer> outputs;
  for (const infer::OutputSpec& spec : plan.outputs) {
    outputs.emplace_back(static_cast<size_t>(shape_size(spec.shape)) * sizeof(int32_t));
  }
  DeviceBuffer scratch(static_cast<size_t>(plan.scratch_elements) * sizeof(int32_t));

  for (const Step& step : plan.steps) {
    Views v;
    for (int k = 0; k < 3; ++k) {
      if (step.input[k] >= 0) v.in[k] = views[static_cast<size_t>(step.input[k])];
    }
    int32_t* out = outputs[static_cast<size_t>(step.output)].as<int32_t>();
    const int64_t n = step.count;
    const unsigned grid = blocks_for(n);
    switch (step.kind) {
      case StepKind::kMap:
        map_kernel<<<grid, kThreads>>>(step.map, v, out, n);
        break;
      case StepKind::kGather:
        gather_kernel<<<grid, kThreads>>>(step.gather, v.in[0], out, n);
        break;
      case StepKind::kTake:
        take_kernel<<<grid, kThreads>>>(step.take, v, out, n);
        break;
      case StepKind::kReduce:
        reduce_kernel<<<grid, kThreads>>>(step.reduce, v.in[0], out, n);
        break;
      case StepKind::kConv2d:
        conv2d_kernel<<<grid, kThreads>>>(step.conv2d, v, out, n);
        break;
      case StepKind::kDense:
        dense_kernel<<<grid, kThreads>>>(step.dense, v, out, n);
        break;
      case StepKind::kPool:
        pool_kernel<<<grid, kThreads>>>(step.pool, v.in[0], out, n);
        break;
      case StepKind::kValidCounts:
        valid_counts_kernel<<<blocks_for(n, 32), 32>>>(
            step.valid_counts, v.in[0], outputs[0].as<int32_t>(), outputs[1].as<int32_t>(), n);
        break;
      case StepKind::kNms:
        nms_kernel<<<blocks_for(n, 32), 32>>>(step.nms, v, out, scratch.as<int32_t>(), n);
        break;
    }
    cuda_check(cudaGetLastError(), "kernel launch");
  }
  cuda_check(cudaDeviceSynchronize(), "kernel execution");

  std::vector<Tensor> results;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    Tensor y = infer::allocate(plan.outputs[k]);
    cuda_check(cudaMemcpy(y.i32(), outputs[k].get(),
                          static_cast<size_t>(y.size()) * sizeof(int32_t), cudaMemcpyDeviceToHost),
               "cudaMemcpy to the host");
    results.push_back(std::move(y));
  }
  return results;
}

}  // namespace

Backend make_device_backend() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  Backend backend = make_backend("cuda", run_on_device);
  if (status != cudaSuccess || devices == 0) {
    backend.available = false;
    backend.unavailable_reason =
        std::string("no CUDA device: ") +
        (status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none");
    cudaGetLastError();  // clear the error so later runtime calls start clean
  }
  return backend;
}

}  // namespace cvm::cuda
