// oneDNN as the peer of the optimized conv2d and dense, on exactly our job: int32 NCHW (or (M, K))
// input and int32 weights in, int32 NCHW out. End to end = reorder the int32 input to s8 in
// oneDNN's preferred layout (format_tag::any), convert the int32 weights to s8 and reorder them
// to the preferred layout (with oneDNN's s8-source compensation), run the int8 primitive with
// s32 output, reorder the output to int32 NCHW. "Primitive" = the primitive alone on
// pre-reordered operands. Built for the current OpenMP thread count (set it first).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace cvm::bench {

struct ConvShape {
  std::string name;
  int64_t n, c, h, w, oc, k, stride, pad, groups;
  int64_t out_h() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - k) / stride + 1; }
  int64_t macs() const { return n * oc * out_h() * out_w() * (c / groups) * k * k; }
};

struct DenseShape {
  std::string name;
  int64_t m, k, units;
  int64_t macs() const { return m * k * units; }
};

class OneDnnPeer {
 public:
  // x, w: int32, row-major (N, C, H, W) and (OC, C/groups, K, K); y receives (N, OC, OH, OW).
  OneDnnPeer(const ConvShape& shape, const int32_t* x, const int32_t* w, int32_t* y);
  // x (M, K), w (units, K), y (M, units).
  OneDnnPeer(const DenseShape& shape, const int32_t* x, const int32_t* w, int32_t* y);
  ~OneDnnPeer();

  void run_end_to_end();
  void run_primitive();
  std::string implementation() const;  // oneDNN's name for the chosen kernel

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cvm::bench
