// "cuda": runs a CUDA plan on the device. Each kernel is a thin grid-stride loop over the same
// per-item function that cuda-host runs in a CPU loop (cuda/*_device.h). Every CUDA error becomes
// a RuntimeError carrying cudaGetErrorString (never an abort). The plan was validated on the
// host before this runs.
//
// A call's overhead, beside its kernels (docs/cuda.md, "Calls"): the inputs are packed into a
// pinned staging buffer and go to the device in one asynchronous copy, into one arena taken
// from a stream-ordered pool that keeps its memory (no cudaMalloc, which synchronizes the device,
// per call); the kernels and the one copy back run on one stream, with one synchronization.
#include <cuda_runtime.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <cub/device/device_segmented_radix_sort.cuh>
#include <utility>

#include "cuda/paths.h"
#include "cuda/plan.h"

namespace cvm::cuda {
namespace {

void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) fail_runtime("CUDA ", what, ": ", cudaGetErrorString(status));
}

// Buffers within a call's arena start on this alignment (the vector kernels need 16 bytes).
constexpr size_t kAlign = 256;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// A grow-only pinned host buffer: host<->device copies from pinned memory run at the link's
// speed and asynchronously, where pageable memory is staged by the driver.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  char* reserve(size_t bytes) {
    if (bytes <= size_) return ptr_;
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    void* p = nullptr;
    cuda_check(cudaMallocHost(&p, bytes), "cudaMallocHost");
    ptr_ = static_cast<char*>(p);
    size_ = bytes;
    return ptr_;
  }

 private:
  char* ptr_ = nullptr;
  size_t size_ = 0;
};

// memcpy between pageable tensors and pinned staging, split over threads when large: one
// thread's memcpy (about 10-20 GB/s) is slower than the link, so the staging copies would bound
// a large call's time.
void parallel_copy(void* dst, const void* src, size_t bytes) {
  constexpr size_t kThreadBytes = size_t{8} << 20;
  const size_t threads = std::min<size_t>({bytes / kThreadBytes, 8,
                                           std::max(1u, std::thread::hardware_concurrency())});
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const size_t share = (bytes + threads - 1) / threads;
  std::vector<std::thread> team;
  for (size_t k = 1; k < threads; ++k) {
    const size_t at = k * share, n = std::min(share, bytes - std::min(bytes, at));
    team.emplace_back([=] { std::memcpy(static_cast<char*>(dst) + at,
                                        static_cast<const char*>(src) + at, n); });
  }
  std::memcpy(dst, src, std::min(share, bytes));
  for (std::thread& t : team) t.join();
}

// The process's stream and staging, created on the first call. The device's default memory
// pool keeps freed memory (release threshold: all of it), so a call's arena comes back from the
// pool without reaching the driver. Calls are serialized: they share the staging buffers.
struct DeviceContext {
  std::mutex mutex;
  pid_t owner = ::getpid();  // a forked child cannot use its parent's runtime
  cudaStream_t stream = nullptr;
  PinnedBuffer to_device, to_host;

  DeviceContext() {
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    int device = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cudaMemPool_t pool = nullptr;
    cuda_check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    uint64_t keep_all = UINT64_MAX;
    cuda_check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all),
               "cudaMemPoolSetAttribute");
  }
};

DeviceContext& context() {
  static DeviceContext instance;  // the process's: destroyed at exit, after every call
  return instance;
}

// Device memory from the stream-ordered pool, given back to it on the same stream.
class DeviceBuffer {
 public:
  DeviceBuffer(size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) cuda_check(cudaMallocAsync(&ptr_, bytes, stream), "cudaMallocAsync");
    if (reinterpret_cast<uintptr_t>(ptr_) % 16 != 0) {
      fail_runtime("CUDA cudaMallocAsync: an allocation not aligned to 16 bytes");
    }
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);  // an error here: the next call reports it
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  char* get() const { return static_cast<char*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
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
void launch_gemm(const GemmParams& p, const Views& v, int32_t* out, cudaStream_t stream) {
  mark_gemm_paths<T>(p);
  const int64_t tiles = tile_count<T>(p);
  const unsigned blocks = static_cast<unsigned>(tiles < (1 << 30) ? tiles : (1 << 30));
  gemm_kernel<T><<<blocks, T::kThreads, 0, stream>>>(p, v, out);
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
void sort_nms(const NmsLayout& l, const StepOutputs& o, std::deque<DeviceBuffer>& temporaries,
              cudaStream_t stream) {
  int32_t* s = o.scratch;
  const int items = static_cast<int>(nms_plane(l));  // <= 2^30 / 6 (the tensor limit)
  const int segments = static_cast<int>(l.batches);
  const auto sort = [&](void* temp, size_t& bytes) {
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(
        temp, bytes, nms_keys_in(l, s), nms_keys_sorted(l, s), nms_rows_in(l, s),
        nms_rows_sorted(l, s), items, segments, nms_begins(l, s), nms_ends(l, s), 0,
        static_cast<int>(sizeof(int32_t) * 8), stream);
  };
  size_t bytes = 0;
  cuda_check(sort(nullptr, bytes), "cub sort (storage size)");
  temporaries.emplace_back(bytes > 0 ? bytes : 1, stream);  // null storage: only asks the size
  cuda_check(sort(temporaries.back().get(), bytes), "cub sort");
}

// Launches a vision warp or library step and returns true; false for any other kind.
bool launch_vision(const Step& step, const Views& v, const StepOutputs& o,
                   std::deque<DeviceBuffer>& temporaries, cudaStream_t stream) {
  const int64_t warps_blocks = (step.count + kVisionWarps - 1) / kVisionWarps;
  const unsigned blocks = static_cast<unsigned>(warps_blocks < 65535 ? warps_blocks : 65535);
  switch (step.kind) {
    case StepKind::kValidCountsWarp:
      warp_step_kernel<<<blocks, kVisionWarps * kWarp, 0, stream>>>(step.valid_counts_warp, v, o,
                                                                    step.count);
      return true;
    case StepKind::kNmsGreedy:
      warp_step_kernel<<<blocks, kVisionWarps * kWarp, 0, stream>>>(step.nms_greedy, v, o,
                                                                    step.count);
      return true;
    case StepKind::kNmsSort:
      sort_nms(step.nms_sort.l, o, temporaries, stream);
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
  explicit KernelTimer(cudaStream_t stream) : stream_(stream) {
    if (!g_kernel_timing) return;
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
    cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  }
  ~KernelTimer() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  void stop() {
    if (start_ != nullptr) cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  }
  // After the synchronization that follows stop().
  void read() {
    if (start_ == nullptr) return;
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    g_last_kernel_ms = ms;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// A call's device memory: the inputs (in the staging's layout, so one copy moves them all), the
// outputs (likewise back), then the scratch, each part at an aligned offset of one arena.
struct ArenaLayout {
  std::vector<size_t> input_at, output_at;
  size_t inputs_bytes = 0, outputs_bytes = 0, scratch_at = 0, wide_at = 0, total = 0;
};

ArenaLayout layout_of(const Plan& plan) {
  ArenaLayout a;
  size_t at = 0;
  for (const Tensor* t : plan.inputs) {
    a.input_at.push_back(at);
    at += aligned(bytes_of(*t));
  }
  a.inputs_bytes = at;
  for (const infer::OutputSpec& spec : plan.outputs) {
    a.output_at.push_back(at);
    at += aligned(static_cast<size_t>(shape_size(spec.shape)) * sizeof(int32_t));
  }
  a.outputs_bytes = at - a.inputs_bytes;
  a.scratch_at = at;
  at += aligned(static_cast<size_t>(plan.scratch_elements) * sizeof(int32_t));
  a.wide_at = at;
  a.total = at + static_cast<size_t>(plan.wide_scratch_elements) * sizeof(int64_t);
  return a;
}

// A warp per output (cuda/reduce_device.h): each lane its share, then the shuffle tree.
__global__ void reduce_warp_kernel(FastReduceParams p, InView in, int32_t* out, int64_t n) {
  const int32_t lane = lane_id();
  const int64_t first = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / kWarp;
  const int64_t warps = int64_t{gridDim.x} * blockDim.x / kWarp;
  for (int64_t o = first; o < n; o += warps) {  // o is the same for every lane of a warp
    ReducePartial r = reduce_lane(p, in, o, lane);
    r = warp_reduce(r, p.planted,
                    [](const ReducePartial& a, const ReducePartial& b) { return combine(a, b); });
    if (lane == 0) out[o] = finish(p.r, r);
  }
}

// Launches one step on `stream` (library steps' storage joins `temporaries`).
void launch(const Step& step, const Views& v, const StepOutputs& o, cudaStream_t stream,
            std::deque<DeviceBuffer>& temporaries) {
  const int64_t n = step.count;
  path::hit(step.kind);
  path::hit_index_width(step);
  if (step.kind == StepKind::kGemm) {
    if (step.gemm.tile == kTileSmall) {
      launch_gemm<SmallTile>(step.gemm, v, o.out, stream);
    } else {
      launch_gemm<WideTile>(step.gemm, v, o.out, stream);
    }
  } else if (step.kind == StepKind::kReduceWarp) {
    const int64_t warps_per_block = kThreads / kWarp;
    reduce_warp_kernel<<<blocks_for(n, static_cast<int>(warps_per_block)), kThreads, 0, stream>>>(
        step.fast_reduce, v.in[0], o.out, n);
  } else if (!launch_vision(step, v, o, temporaries, stream)) {
    // A batch item (valid counts, NMS) is a whole batch's sequential scan: small blocks spread
    // the few batches.
    const bool batches = step.kind == StepKind::kValidCounts || step.kind == StepKind::kNms;
    const int threads = batches ? 32 : kThreads;
    with_step_params(step, [&](const auto& params) {
      step_kernel<<<blocks_for(n, threads), threads, 0, stream>>>(params, v, o, n);
    });
  }
  cuda_check(cudaGetLastError(), "kernel launch");
}

std::vector<Tensor> run_on_device(const Plan& plan) {
  DeviceContext& ctx = context();
  if (ctx.owner != ::getpid()) {
    fail_runtime("the cuda backend was first used in the parent of this forked process, whose "
                 "CUDA runtime a child cannot use: run it in one process (--jobs 1)");
  }
  const std::lock_guard<std::mutex> lock(ctx.mutex);
  const cudaStream_t stream = ctx.stream;
  const ArenaLayout a = layout_of(plan);
  DeviceBuffer arena(a.total, stream);
  char* base = arena.get();

  // Inputs: packed into pinned staging, one copy to the device.
  char* staging = ctx.to_device.reserve(a.inputs_bytes);
  std::vector<InView> views;
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    const Tensor& t = *plan.inputs[k];
    const bool int8 = t.dtype() == DType::kInt8;
    const void* host = int8 ? static_cast<const void*>(t.i8()) : static_cast<const void*>(t.i32());
    parallel_copy(staging + a.input_at[k], host, bytes_of(t));
    views.push_back({base + a.input_at[k], int8 ? 1 : 0});
  }
  if (a.inputs_bytes > 0) {
    cuda_check(cudaMemcpyAsync(base, staging, a.inputs_bytes, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync to the device");
  }

  std::deque<DeviceBuffer> temporaries;  // library steps' storage (NMS's sort)
  KernelTimer timer(stream);
  for (const Step& step : plan.steps) {
    // A grid of zero blocks is an invalid configuration: a step without items launches nothing
    // (tensor dims are at least 1 today, so no plan makes one; the guard keeps it so).
    if (step.count == 0) continue;
    Views v;
    for (int k = 0; k < 3; ++k) {
      if (step.input[k] >= 0) v.in[k] = views[static_cast<size_t>(step.input[k])];
    }
    const auto output = [&](size_t k) {
      return reinterpret_cast<int32_t*>(base + a.output_at[k]);
    };
    StepOutputs o;
    o.out = output(static_cast<size_t>(step.output));
    o.count = output(0);
    o.y = plan.outputs.size() > 1 ? output(1) : nullptr;
    o.scratch = reinterpret_cast<int32_t*>(base + a.scratch_at);
    o.wide = reinterpret_cast<int64_t*>(base + a.wide_at);
    launch(step, v, o, stream, temporaries);
  }
  timer.stop();

  // Outputs: copied back into pinned staging, the call's one synchronization, then unpacked.
  // Each output's own bytes only: the alignment padding after it is never written, and a copy
  // that read it would move uninitialized memory (compute-sanitizer's initcheck says so).
  char* back = ctx.to_host.reserve(a.outputs_bytes);
  const auto output_bytes = [&](size_t k) {
    return static_cast<size_t>(shape_size(plan.outputs[k].shape)) * sizeof(int32_t);
  };
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const size_t at = a.output_at[k];
    if (output_bytes(k) == 0) continue;
    cuda_check(cudaMemcpyAsync(back + (at - a.inputs_bytes), base + at, output_bytes(k),
                               cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync to the host");
  }
  cuda_check(cudaStreamSynchronize(stream), "kernel execution");
  timer.read();
  std::vector<Tensor> results;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    Tensor y = infer::allocate(plan.outputs[k]);
    parallel_copy(y.i32(), back + (a.output_at[k] - a.inputs_bytes), output_bytes(k));
    results.push_back(std::move(y));
  }
  return results;
}

struct DeviceProbe {
  int devices = 0;
  std::string error;     // why there is none
  bool in_child = true;  // the parent's runtime is untouched
};

DeviceProbe probe_here() {
  DeviceProbe probe;
  probe.in_child = false;
  const cudaError_t status = cudaGetDeviceCount(&probe.devices);
  if (status != cudaSuccess) probe.devices = 0;
  probe.error = status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none";
  cudaGetLastError();  // clear the error so later runtime calls start clean
  return probe;
}

// Whether a device is present, asked of a forked child: a process whose runtime is initialized
// cannot hand it to forked children, and the campaign's jobs are forked from this process.
// Where the child cannot be made, the question is asked here (and the backend is not
// fork-safe).
DeviceProbe probe_devices() {
  int fds[2];
  if (::pipe(fds) != 0) return probe_here();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return probe_here();
  }
  if (pid == 0) {
    ::close(fds[0]);
    const DeviceProbe probe = probe_here();
    const std::string text = std::to_string(probe.devices) + "\n" + probe.error;
    const ssize_t written = ::write(fds[1], text.data(), text.size());
    ::_exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char chunk[256];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  DeviceProbe probe;
  const size_t newline = text.find('\n');
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || newline == std::string::npos) {
    probe.error = "the device probe (a child process) failed";
    return probe;
  }
  probe.devices = std::atoi(text.substr(0, newline).c_str());
  probe.error = text.substr(newline + 1);
  return probe;
}

}  // namespace

void set_kernel_timing(bool on) { g_kernel_timing = on; }
double last_kernel_ms() { return g_last_kernel_ms; }

Backend make_device_backend() {
  const DeviceProbe probe = probe_devices();
  Backend backend = make_backend("cuda", run_on_device);
  // The parent never initialized the runtime (probe_devices asked a child), so forked jobs
  // each start their own; a job forked after the parent's own first call fails its calls
  // clearly instead (DeviceContext).
  backend.fork_safe = probe.in_child;
  if (probe.devices == 0) {
    backend.available = false;
    backend.unavailable_reason = "no CUDA device: " + probe.error;
  }
  return backend;
}

std::vector<Backend> make_device_variants(const Backend& device) {
  return make_variants(device, run_on_device);
}

}  // namespace cvm::cuda
