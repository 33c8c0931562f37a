// What the cuda backend's kernels are measured against, on data already on the device:
// a device-to-device copy of the same bytes (and its calls end to end: pinned copies), and cuBLASLt's int8 GEMM (int32 accumulation and
// output) of a conv2d's or dense's arithmetic. Each returns the median of `reps` timed runs
// (CUDA events) after one warm-up, in milliseconds; a CUDA or cuBLAS failure exits with why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cvm::bench {

double device_copy_ms(size_t bytes, int reps);
// What a call's end to end time is set against: its inputs' bytes host -> device and its
// outputs' bytes device -> host, both from pinned host memory, on one stream.
double pinned_copies_ms(size_t to_device, size_t to_host, int reps);
// C (m x n, int32) = A (m x k, int8) times B (k x n, int8). Empty when cuBLASLt has no
// algorithm for the shape (the reason in *why).
double cublaslt_int8_gemm_ms(int64_t m, int64_t n, int64_t k, int reps, std::string* why);
// The device's name, multiprocessors and memory, for the report.
std::string device_description();

}  // namespace cvm::bench
