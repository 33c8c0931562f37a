// One call per operator (bench/cuda/bench_cases.h). Values stay within each input's precision;
// every call is valid (the benchmark stops on any other outcome).
#include "bench/cuda/bench_cases.h"

namespace cvm::bench {
namespace {

int64_t count_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Values lo..hi in a scrambled order, of the given precision and storage.
Tensor ramp(const Shape& shape, int32_t lo, int32_t hi, int precision,
            DType dtype = DType::kInt32) {
  const int64_t n = count_of(shape);
  const int64_t span = int64_t{hi} - lo + 1;
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int32_t>(lo + (i * 7919) % span);
  return Tensor::from_values(shape, v, precision, dtype);
}

Tensor i8(const Shape& shape) { return ramp(shape, -127, 127, 8, DType::kInt8); }
Tensor i32(const Shape& shape, int precision = 12) {
  const int32_t bound = (1 << (precision - 1)) - 1;
  return ramp(shape, -bound, bound, precision);
}

constexpr int64_t kFlat = int64_t{1} << 24;  // elements of the elementwise calls
constexpr int64_t kSide = 4096;              // 2-D calls: kSide x kSide

BenchCase unary(const std::string& op, const std::string& attrs = "{}") {
  return {op + " 2^24", op, attrs, {i32({kFlat})}, {}};
}
BenchCase binary(const std::string& op, Tensor b, const std::string& shape_label) {
  return {op + " " + shape_label, op, "{}", {i32({kSide, kSide}, 8), std::move(b)}, {}};
}

void add_nn(std::vector<BenchCase>& cases) {
  // ResNet-like 3x3 layers, int8 data and weights.
  const struct {
    int64_t n, c, h, w, k;
  } convs[] = {{1, 64, 56, 56, 64}, {8, 128, 28, 28, 128}, {8, 256, 14, 14, 256}};
  for (const auto& c : convs) {
    cases.push_back({"conv2d " + std::to_string(c.n) + "x" + std::to_string(c.c) + "x" +
                         std::to_string(c.h) + "x" + std::to_string(c.w) + " k" +
                         std::to_string(c.k) + " 3x3",
                     "conv2d",
                     R"J({"channels": ")J" + std::to_string(c.k) +
                         R"J(", "kernel_size": "(3, 3)", "padding": "(1, 1)", "use_bias": "false"})J",
                     {i8({c.n, c.c, c.h, c.w}), i8({c.k, c.c, 3, 3})},
                     {c.n * c.h * c.w, c.k, c.c * 9}});
  }
  // The shapes the tiled GEMM's paths care about: a 1x1 conv (K = C, no border), a stem with 3
  // input channels (K = 147, not a multiple of 16 or of the 64-deep K slice) and stride 2, and
  // a depthwise conv (its own kernel; its GEMM peer does the same multiply-adds, m x channels x
  // 9, as one dense GEMM, which is the most a GEMM library offers it).
  // Output channels 4 past two tiles, K = 132 x 9 = 1,188 (18 slices and a 36-deep tail).
  cases.push_back({"conv2d 8x132x28x28 k132 3x3", "conv2d",
                   R"J({"channels": "132", "kernel_size": "(3, 3)", "padding": "(1, 1)", "use_bias": "false"})J",
                   {i8({8, 132, 28, 28}), i8({132, 132, 3, 3})},
                   {8 * 28 * 28, 132, 132 * 9}});
  cases.push_back({"conv2d 8x256x28x28 k256 1x1", "conv2d",
                   R"J({"channels": "256", "kernel_size": "(1, 1)", "use_bias": "false"})J",
                   {i8({8, 256, 28, 28}), i8({256, 256, 1, 1})},
                   {8 * 28 * 28, 256, 256}});
  cases.push_back({"conv2d 1x3x224x224 k64 7x7/2", "conv2d",
                   R"J({"channels": "64", "kernel_size": "(7, 7)", "strides": "(2, 2)",
                        "padding": "(3, 3)", "use_bias": "false"})J",
                   {i8({1, 3, 224, 224}), i8({64, 3, 7, 7})},
                   {112 * 112, 64, 3 * 49}});
  cases.push_back({"conv2d 1x128x56x56 depthwise 3x3", "conv2d",
                   R"J({"channels": "128", "kernel_size": "(3, 3)", "padding": "(1, 1)",
                        "groups": "128", "use_bias": "false"})J",
                   {i8({1, 128, 56, 56}), i8({128, 1, 3, 3})},
                   {56 * 56, 128, 9}});
  const struct {
    int64_t m, k, units;
  } denses[] = {{1, 4096, 4096},  {64, 1024, 1024}, {256, 4096, 4096},
                // Past the 64 x 64 x 64 tile's sides: one row past a tile with a 4-deep K tail
                // and a 4-wide N tail, then one row short of a tile with a 60-deep K tail
                // (K and N stay multiples of 4, which cuBLASLt's int8 layouts ask for).
                {65, 1028, 1028}, {63, 4092, 4100}};
  for (const auto& d : denses) {
    cases.push_back({"dense " + std::to_string(d.m) + "x" + std::to_string(d.k) + " units " +
                         std::to_string(d.units),
                     "dense",
                     R"J({"units": ")J" + std::to_string(d.units) + R"J(", "use_bias": "false"})J",
                     {i8({d.m, d.k}), i8({d.units, d.k})},
                     {d.m, d.units, d.k}});
  }
  cases.push_back({"relu 2^24", "relu", "{}", {i32({kFlat})}, {}});
  cases.push_back({"max_pool2d 8x64x112x112 3x3/2", "max_pool2d",
                   R"J({"pool_size": "(3, 3)", "strides": "(2, 2)", "padding": "(1, 1)"})J",
                   {i8({8, 64, 112, 112})}, {}});
  cases.push_back({"upsampling 8x64x56x56 x2", "upsampling", R"J({"scale": "2"})J",
                   {i8({8, 64, 56, 56})}, {}});
}

void add_transforms(std::vector<BenchCase>& cases) {
  const Shape square = {kSide, kSide};
  cases.push_back({"repeat 4096x2048 x2 axis 1", "repeat", R"J({"repeats": "2", "axis": "1"})J",
                   {i32({kSide, kSide / 2})}, {}});
  cases.push_back({"tile 2048x2048 (2, 2)", "tile", R"J({"reps": "(2, 2)"})J",
                   {i32({kSide / 2, kSide / 2})}, {}});
  cases.push_back({"flatten 64x64x64x64", "flatten", "{}", {i32({64, 64, 64, 64})}, {}});
  cases.push_back({"concatenate 2x 4096x2048 axis 1", "concatenate", R"J({"axis": "1"})J",
                   {i32({kSide, kSide / 2}), i32({kSide, kSide / 2})}, {}});
  cases.push_back({"expand_dims 4096x4096 axis 1", "expand_dims", R"J({"axis": "1"})J",
                   {i32(square)}, {}});
  cases.push_back({"reshape 2^24 to 4096x4096", "reshape", R"J({"shape": "(4096, 4096)"})J",
                   {i32({kFlat})}, {}});
  cases.push_back({"squeeze 4096x1x4096", "squeeze", R"J({"axis": "(1,)"})J",
                   {i32({kSide, 1, kSide})}, {}});
  cases.push_back({"transpose 4096x4096", "transpose", R"J({"axes": "(1, 0)"})J", {i32(square)}, {}});
  cases.push_back({"strided_slice 4096x4096 stride (1, 2)", "strided_slice",
                   R"J({"begin": "(0, 0)", "end": "(4096, 4096)", "stride": "(1, 2)"})J",
                   {i32(square)}, {}});
  cases.push_back({"take 4096x4096 rows axis 0", "take", R"J({"axis": "0"})J",
                   {i32(square), ramp({kSide}, 0, kSide - 1, 13)}, {}});
  cases.push_back({"cvm_lut 2^24 from 256", "cvm_lut", R"J({"in_dim": "256"})J",
                   {ramp({kFlat}, 0, 255, 9), i32({256})}, {}});
  cases.push_back({"slice_like 4096x4096 to 2048x2048", "slice_like", R"J({"axis": "(0, 1)"})J",
                   {i32(square), i32({kSide / 2, kSide / 2})}, {}});
  cases.push_back({"where 4096x4096", "where", "{}",
                   {ramp(square, 0, 1, 2), i32(square), i32(square)}, {}});
  cases.push_back({"pad 4096x4096 by 1", "pad", R"J({"pad_width": "(1, 1, 1, 1)"})J",
                   {i32(square)}, {}});
  cases.push_back({"ov_strided_slice 4096x4096 stride (1, 2)", "ov_strided_slice",
                   R"J({"begin": "(0, 0)", "end": "(4096, 4096)", "stride": "(1, 2)"})J",
                   {i32(square)}, {}});
}

// Rows of (id, score, x1, y1, x2, y2): ids 0..3, scores and corners within precision 12.
Tensor boxes_of(int64_t batches, int64_t rows) {
  std::vector<int32_t> v(static_cast<size_t>(batches * rows * 6));
  for (int64_t i = 0; i < batches * rows; ++i) {
    int32_t* r = &v[static_cast<size_t>(i * 6)];
    const int32_t x = static_cast<int32_t>((i * 37) % 1500), y = static_cast<int32_t>((i * 53) % 1500);
    r[0] = static_cast<int32_t>(i % 4);
    r[1] = static_cast<int32_t>((i * 7919) % 2000);
    r[2] = x;
    r[3] = y;
    r[4] = x + 1 + static_cast<int32_t>(i % 500);
    r[5] = y + 1 + static_cast<int32_t>(i % 300);
  }
  return Tensor::from_values({batches, rows, 6}, v, 12, DType::kInt32);
}

void add_vision(std::vector<BenchCase>& cases) {
  const int64_t batches = 256, rows = 1024;
  const Tensor boxes = boxes_of(batches, rows);
  cases.push_back({"get_valid_counts 256x1024x6", "get_valid_counts",
                   R"J({"score_threshold": "1000"})J", {boxes}, {}});
  cases.push_back({"non_max_suppression 256x1024x6", "non_max_suppression",
                   R"J({"iou_threshold": "50"})J",
                   {boxes, ramp({batches}, rows / 2, rows, 12)}, {}});
  // One image of 10,000 boxes, every one considered: the greedy pass's longest scan.
  cases.push_back({"non_max_suppression 1x10000x6", "non_max_suppression",
                   R"J({"iou_threshold": "50"})J",
                   {boxes_of(1, 10000), ramp({1}, 10000, 10000, 15)}, {}});
}

}  // namespace

std::vector<BenchCase> bench_cases() {
  std::vector<BenchCase> cases;
  cases.push_back({"sum 64x4096x64 axis 1", "sum", R"J({"axis": "(1,)"})J", {i32({64, kSide, 64}, 8)}, {}});
  cases.push_back({"max 64x4096x64 axis 1", "max", R"J({"axis": "(1,)"})J", {i32({64, kSide, 64}, 8)}, {}});
  // The innermost axis (a warp per output) and the outermost (splits over adjacent outputs).
  for (const char* op : {"sum", "max"}) {
    cases.push_back({std::string(op) + " 64x4096x64 axis 2", op, R"J({"axis": "(2,)"})J",
                     {i32({64, kSide, 64}, 8)}, {}});
    cases.push_back({std::string(op) + " 64x4096x64 axis 0", op, R"J({"axis": "(0,)"})J",
                     {i32({64, kSide, 64}, 8)}, {}});
  }
  const std::string row = "4096x4096 + 4096x1";
  for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_max",
                         "broadcast_greater"}) {
    cases.push_back(binary(op, i32({kSide, 1}, 8), row));
  }
  cases.push_back(binary("broadcast_div", ramp({kSide, 1}, 1, 100, 8), row));
  for (const char* op : {"abs", "cvm_precision", "negative"}) cases.push_back(unary(op));
  cases.push_back({"elemwise_add 2^24", "elemwise_add", "{}", {i32({kFlat}), i32({kFlat})}, {}});
  cases.push_back({"elemwise_sub 2^24", "elemwise_sub", "{}", {i32({kFlat}), i32({kFlat})}, {}});
  cases.push_back(unary("clip", R"J({"a_min": "-100", "a_max": "100"})J"));
  cases.push_back(unary("cvm_clip", R"J({"precision": "8"})J"));
  cases.push_back(unary("cvm_right_shift", R"J({"precision": "8", "shift_bit": "2"})J"));
  cases.push_back(unary("cvm_left_shift", R"J({"precision": "16", "shift_bit": "2"})J"));
  add_nn(cases);
  add_transforms(cases);
  add_vision(cases);
  // Twice the elements of one launch's grid: the grid-stride loop's large case.
  cases.push_back({"elemwise_add 2^28", "elemwise_add", "{}",
                   {i32({kSide * 4, kSide * 4}), i32({kSide * 4, kSide * 4})}, {}});
  return cases;
}

}  // namespace cvm::bench
