// Memory-bound operators on 16M-element int32 tensors (4096 x 4096) against a memcpy that moves
// the same number of bytes (the operator's bytes read + bytes written), measured in the same
// run, on 1 and 2 threads. "ours" is the optimized kernel end to end (validation of the inputs,
// allocation of the output and the pass itself). Before timing, each case is checked once
// against the reference, bit for bit. Names: bandwidth/<case>/<ours|memcpy>/t<threads>, with
// the bytes moved per call in the "bytes" counter.
#include <omp.h>

#include <cstring>
#include <functional>
#include <map>

#include "op_call.h"
#include "summary.h"

namespace cvm::bench {
namespace {

constexpr int64_t kSide = 4096;                       // 16M elements
constexpr int64_t kTensorBytes = kSide * kSide * 4;   // 64 MiB
constexpr int kPrecision = 16;                        // sums of 4096 values still fit

struct BandwidthCase {
  std::string name;
  std::string op;
  nlohmann::json attrs;
  std::function<std::vector<Tensor>()> inputs;
  int64_t bytes;  // read + written by one call
};

Tensor square(uint32_t seed) { return hashed_tensor({kSide, kSide}, kPrecision, seed); }

const std::vector<BandwidthCase>& cases() {
  static const std::vector<BandwidthCase> list = {
      {"elemwise_add", "elemwise_add", nlohmann::json::object(),
       [] { return std::vector<Tensor>{square(1), square(2)}; }, 3 * kTensorBytes},
      {"clip", "clip", {{"a_min", "-1000"}, {"a_max", "1000"}},
       [] { return std::vector<Tensor>{square(3)}; }, 2 * kTensorBytes},
      {"cvm_right_shift", "cvm_right_shift", {{"precision", "8"}, {"shift_bit", "4"}},
       [] { return std::vector<Tensor>{square(4)}; }, 2 * kTensorBytes},
      {"abs", "abs", nlohmann::json::object(), [] { return std::vector<Tensor>{square(5)}; },
       2 * kTensorBytes},
      {"broadcast_add_row", "broadcast_add", nlohmann::json::object(),
       [] { return std::vector<Tensor>{square(6), hashed_tensor({kSide}, kPrecision, 7)}; },
       2 * kTensorBytes + kSide * 4},
      {"sum_last_axis", "sum", {{"axis", "(-1,)"}},
       [] { return std::vector<Tensor>{square(8)}; }, kTensorBytes + kSide * 4},
      {"transpose_4096x4096", "transpose", nlohmann::json::object(),
       [] { return std::vector<Tensor>{square(9)}; }, 2 * kTensorBytes},
      {"concatenate_2x4096x2048", "concatenate", {{"axis", "1"}},
       [] {
         return std::vector<Tensor>{hashed_tensor({kSide, kSide / 2}, kPrecision, 10),
                                    hashed_tensor({kSide, kSide / 2}, kPrecision, 11)};
       },
       2 * kTensorBytes},
      // The middle half of every row: 32 MiB read, 32 MiB written.
      {"strided_slice_half_rows", "strided_slice",
       {{"begin", "(0, 1024)"}, {"end", "(4096, 3072)"}},
       [] { return std::vector<Tensor>{square(12)}; }, kTensorBytes},
      {"ov_strided_slice_half_rows", "ov_strided_slice",
       {{"begin", "(0, 1024)"}, {"end", "(4096, 3072)"}},
       [] { return std::vector<Tensor>{square(13)}; }, kTensorBytes},
      {"where", "where", nlohmann::json::object(),
       [] {
         return std::vector<Tensor>{hashed_tensor({kSide, kSide}, 2, 14), square(15), square(16)};
       },
       4 * kTensorBytes},
  };
  return list;
}

// Once per case (shared by the thread counts): empty when the optimized kernel equals the
// reference, else why not.
const std::string& verdict(const BandwidthCase& c, const std::vector<Tensor>& inputs) {
  static std::map<std::string, std::string> verdicts;
  auto it = verdicts.find(c.name);
  if (it == verdicts.end()) {
    it = verdicts.emplace(c.name, differs_from_reference("optimized", c.op, c.attrs, inputs)
                                      .value_or(""))
             .first;
  }
  return it->second;
}

void set_bytes(benchmark::State& state, int64_t bytes) {
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void bench_ours(benchmark::State& state, size_t index, int threads) {
  const BandwidthCase& c = cases()[index];
  set_bench_threads(threads);
  if (!implements("optimized", c.op)) {
    state.SkipWithError("no optimized kernel");
    return;
  }
  std::vector<Tensor> inputs = c.inputs();
  const std::string& why = verdict(c, inputs);
  if (!why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const OpCall call(c.op, c.attrs, std::move(inputs), "optimized");
  for (auto _ : state) {
    std::vector<Tensor> y = call.run();
    benchmark::DoNotOptimize(y[0].i32());
  }
  set_bytes(state, c.bytes);
}

// bytes / 2 copied from one buffer to another (both touched before timing), split into one
// contiguous part per thread.
void bench_memcpy(benchmark::State& state, int64_t bytes, int threads) {
  set_bench_threads(threads);
  const auto half = static_cast<size_t>(bytes / 2);
  Buffer<char> src(half), dst(half);
  std::memset(src.data(), 1, half);
  std::memset(dst.data(), 0, half);
  for (auto _ : state) {
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num());
      const size_t n = static_cast<size_t>(omp_get_num_threads());
      const size_t begin = half * t / n, end = half * (t + 1) / n;
      std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2 * static_cast<int64_t>(half));
}

const bool registered = [] {
  for (size_t i = 0; i < cases().size(); ++i) {
    const BandwidthCase& c = cases()[i];
    for (int t : {1, 2}) {
      const std::string suffix = "/t" + std::to_string(t);
      register_case("bandwidth/" + c.name + "/ours" + suffix, bench_ours, i, t);
      register_case("bandwidth/" + c.name + "/memcpy" + suffix, bench_memcpy, c.bytes, t);
    }
  }
  return true;
}();

}  // namespace
}  // namespace cvm::bench
