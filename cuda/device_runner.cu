// "cuda": runs a CUDA plan on the device. Each kernel is a thin grid-stride loop over the same
// per-item function that cuda-host runs in a CPU loop (cuda/*_device.h). Device memory is plain
// cudaMalloc behind an RAII owner; every CUDA error becomes a RuntimeError carrying
// cudaGetErrorString (never an abort). The plan was validated on the host before this runs.
#include <cuda_runtime.h>

#include <cub/device/device_segmented_radix_sort.cuh>
#include <utility>

#include "cuda/paths.h"
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

// Grid-stride kernels: one per step kind, each a loop over the kind's per-item function.
__device__ inline int64_t first_item() { return blockIdx.x * int64_t{blockDim.x} + threadIdx.x; }
__device__ inline int64_t item_stride() { return int64_t{gridDim.x} * blockDim.x; }

// P: the step kind's parameters (by value: the kernel's parameter block).
template <typename P>
__global__ void step_kernel(P p, Views v, StepOutputs o, int64_t n) {
  for (int64_t i = first_item(); i < n; i += item_stride()) step_item(p, v, o, i);
}

// The tiled GEMM: one CTA per tile (grid-stride over tiles beyond the grid), the K slices
// staged as int8 in shared memory, one mma.sync per (mi, ni) per mma depth. Every step but the
// mma itself is a cuda/gemm_device.h function that cuda-host runs too (cuda/gemm_host.cc).
template <class T>
__global__ void __launch_bounds__(T::kThreads) gemm_kernel(GemmParams p, Views v, int32_t* out) {
  __shared__ __align__(16) int8_t sa[T::kBM * T::kBK];
  __shared__ __align__(16) int8_t sb[T::kBN * T::kBK];
  const int32_t tid = static_cast<int32_t>(threadIdx.x);
  const int32_t warp = tid / kWarp, lane = tid % kWarp;
  const int64_t tiles = tile_count<T>(p);
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const TileCoord t = tile_coord<T>(p, tile);
    WarpAcc<T> acc = {};
    for (int64_t k0 = 0; k0 < p.depth; k0 += T::kBK) {
      stage_slice<T>(p, v, t, k0, tid, sa, sb);
      __syncthreads();  // the slice is staged before any warp reads it
      CVM_UNROLL
      for (int32_t ks = 0; ks < T::kKs; ++ks) {
        FragA a[T::kMi];
        FragB b[T::kNi];
        load_frags<T>(p, sa, sb, warp, lane, ks, a, b);
        CVM_UNROLL
        for (int32_t mi = 0; mi < T::kMi; ++mi) {
          CVM_UNROLL
          for (int32_t ni = 0; ni < T::kNi; ++ni) mma_sync(acc.f[mi][ni], a[mi], b[ni]);
        }
      }
      __syncthreads();  // every warp has read the slice before the next one overwrites it
    }
    store_tile<T>(p, v, out, t, warp, lane, acc);
  }
}

// Reports the tile paths of a GEMM launch: the same tile_paths cuda-host reports per tile.
template <class T>
void mark_gemm_paths(const GemmParams& p) {
  uint32_t mask = 0;
  const int64_t tiles = tile_count<T>(p);
  for (int64_t tile = 0; tile < tiles; ++tile) mask |= tile_paths<T>(p, tile_coord<T>(p, tile));
  path::hit_gemm(mask);
}

template <class T>
void launch_gemm(const GemmParams& p, const Views& v, int32_t* out) {
  mark_gemm_paths<T>(p);
  const int64_t tiles = tile_count<T>(p);
  const unsigned blocks = static_cast<unsigned>(tiles < (1 << 30) ? tiles : (1 << 30));
  gemm_kernel<T><<<blocks, T::kThreads>>>(p, v, out);
}

// The vision warp steps (cuda/nms_device.h): one batch per warp, kVisionWarps warps per block,
// grid-stride over batches; every lane of a warp takes the same batch, so the ballots and
// shuffles see all 32 lanes. The per-lane phases are cuda-host's (cuda/nms_host.cc).
constexpr int32_t kVisionWarps = 4;

__device__ void warp_batch(const ValidCountsWarpParams& wp, const Views& v, const StepOutputs& o,
                           int64_t b, int32_t lane) {
  const ValidCountsParams& p = wp.v;
  int64_t base = 0;
  for (int64_t r0 = 0; r0 < p.rows; r0 += kWarp) {
    const bool valid = valid_row(p, v.in[0], b, r0 + lane);
    const uint32_t mask = ballot(valid);
    if (valid) {
      valid_row_copy(p, v.in[0], o.y, b, r0 + lane, base + count_bits(mask & lanes_below(lane)));
    }
    base += count_bits(mask);
  }
  valid_rows_fill(p, o.count, o.y, b, base, lane);
}

__device__ void warp_batch(const NmsGreedyParams& p, const Views& v, const StepOutputs& o,
                           int64_t b, int32_t lane) {
  const NmsLayout& l = p.l;
  nms_greedy_clear(l, o.wide, b, lane);
  const int64_t scanned = nms_scanned(l, v.in[1], b);
  int64_t kept = 0;
  for (int64_t i = 0; i < scanned && !nms_full(p, kept); ++i) {
    const uint64_t removed = shfl(nms_owned_bit(l, o.wide, b, i, lane), nms_owner(l, i));
    if (!nms_keeps(l, v, o.scratch, b, i, removed)) continue;
    nms_keep(l, o.scratch, o.wide, b, i, kept, lane);
    ++kept;
  }
  if (lane == 0) nms_kept_count(l, o.scratch)[b] = static_cast<int32_t>(kept);
}

template <typename P>
__global__ void __launch_bounds__(kVisionWarps* kWarp)
    warp_step_kernel(P p, Views v, StepOutputs o, int64_t batches) {
  const int64_t first = blockIdx.x * int64_t{kVisionWarps} + threadIdx.x / kWarp;
  for (int64_t b = first; b < batches; b += int64_t{gridDim.x} * kVisionWarps) {
    warp_batch(p, v, o, b, lane_id());
  }
}

// NMS's stable sort of each batch's (score, row) pairs by descending score: CUB's segmented
// radix sort (stable: equal scores keep their input order). Its temporary storage joins
// `temporaries`, freed after the call's synchronization.
void sort_nms(const NmsLayout& l, const StepOutputs& o, std::vector<DeviceBuffer>& temporaries) {
  int32_t* s = o.scratch;
  const int items = static_cast<int>(nms_plane(l));  // <= 2^30 / 6 (the tensor limit)
  const int segments = static_cast<int>(l.batches);
  const auto sort = [&](void* temp, size_t& bytes) {
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(
        temp, bytes, nms_keys_in(l, s), nms_keys_sorted(l, s), nms_rows_in(l, s),
        nms_rows_sorted(l, s), items, segments, nms_begins(l, s), nms_ends(l, s));
  };
  size_t bytes = 0;
  cuda_check(sort(nullptr, bytes), "cub sort (storage size)");
  temporaries.emplace_back(bytes > 0 ? bytes : 1);  // a null storage would only ask the size
  cuda_check(sort(temporaries.back().get(), bytes), "cub sort");
}

// Launches a vision warp or library step and returns true; false for any other kind.
bool launch_vision(const Step& step, const Views& v, const StepOutputs& o,
                   std::vector<DeviceBuffer>& temporaries) {
  const int64_t warps_blocks = (step.count + kVisionWarps - 1) / kVisionWarps;
  const unsigned blocks = static_cast<unsigned>(warps_blocks < 65535 ? warps_blocks : 65535);
  switch (step.kind) {
    case StepKind::kValidCountsWarp:
      warp_step_kernel<<<blocks, kVisionWarps * kWarp>>>(step.valid_counts_warp, v, o, step.count);
      return true;
    case StepKind::kNmsGreedy:
      warp_step_kernel<<<blocks, kVisionWarps * kWarp>>>(step.nms_greedy, v, o, step.count);
      return true;
    case StepKind::kNmsSort:
      sort_nms(step.nms_sort.l, o, temporaries);
      return true;
    default:
      return false;
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

bool g_kernel_timing = false;
double g_last_kernel_ms = 0;

// CUDA events around a call's launches, when kernel timing is on.
class KernelTimer {
 public:
  KernelTimer() {
    if (!g_kernel_timing) return;
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
    cuda_check(cudaEventRecord(start_), "cudaEventRecord");
  }
  ~KernelTimer() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  void stop() {
    if (start_ != nullptr) cuda_check(cudaEventRecord(stop_), "cudaEventRecord");
  }
  // After the synchronization that follows stop().
  void read() {
    if (start_ == nullptr) return;
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    g_last_kernel_ms = ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

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
  DeviceBuffer wide(static_cast<size_t>(plan.wide_scratch_elements) * sizeof(int64_t));
  std::vector<DeviceBuffer> temporaries;  // library steps' storage (NMS's sort)

  KernelTimer timer;
  for (const Step& step : plan.steps) {
    // A grid of zero blocks is an invalid configuration: a step without items launches nothing
    // (tensor dims are at least 1 today, so no plan makes one; the guard keeps it so).
    if (step.count == 0) continue;
    Views v;
    for (int k = 0; k < 3; ++k) {
      if (step.input[k] >= 0) v.in[k] = views[static_cast<size_t>(step.input[k])];
    }
    StepOutputs o;
    o.out = outputs[static_cast<size_t>(step.output)].as<int32_t>();
    o.count = outputs[0].as<int32_t>();
    o.y = outputs.size() > 1 ? outputs[1].as<int32_t>() : nullptr;
    o.scratch = scratch.as<int32_t>();
    o.wide = wide.as<int64_t>();
    const int64_t n = step.count;
    // A batch item (valid counts, NMS) is a whole batch's sequential scan: small blocks spread
    // the few batches.
    path::hit(step.kind);
    if (step.kind == StepKind::kGemm) {
      if (step.gemm.tile == kTileSmall) {
        launch_gemm<SmallTile>(step.gemm, v, o.out);
      } else {
        launch_gemm<WideTile>(step.gemm, v, o.out);
      }
      cuda_check(cudaGetLastError(), "kernel launch");
      continue;
    }
    if (launch_vision(step, v, o, temporaries)) {
      cuda_check(cudaGetLastError(), "kernel launch");
      continue;
    }
    const bool batches = step.kind == StepKind::kValidCounts || step.kind == StepKind::kNms;
    const int threads = batches ? 32 : kThreads;
    with_step_params(step, [&](const auto& params) {
      step_kernel<<<blocks_for(n, threads), threads>>>(params, v, o, n);
    });
    cuda_check(cudaGetLastError(), "kernel launch");
  }
  timer.stop();
  cuda_check(cudaDeviceSynchronize(), "kernel execution");
  timer.read();

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

void set_kernel_timing(bool on) { g_kernel_timing = on; }
double last_kernel_ms() { return g_last_kernel_ms; }

Backend make_device_backend() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  Backend backend = make_backend("cuda", run_on_device);
  backend.fork_safe = false;  // the runtime is initialized now, in the parent of any job
  if (status != cudaSuccess || devices == 0) {
    backend.available = false;
    backend.unavailable_reason =
        std::string("no CUDA device: ") +
        (status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none");
    cudaGetLastError();  // clear the error so later runtime calls start clean
  }
  return backend;
}

std::vector<Backend> make_device_variants(const Backend& device) {
  return make_variants(device, run_on_device);
}

}  // namespace cvm::cuda
