#include "infer/common.h"

#include <algorithm>
#include <limits>

namespace cvm::infer {
namespace {

// Below this many elements a tensor's value pass stays on one thread: waking the pool costs
// more than the pass (the optimized kernels use the same threshold, opt::threads_for).
constexpr int64_t kTeamMinElements = int64_t{1} << 16;
// The optimized backend declares this path with its ops (optimized/paths.h); marked here.
const int kPathValueCheckThreaded = paths::define("infer.value_check.threaded", "", "");

// The min/max loop, written so it vectorizes (select form), compiled for the baseline and, on
// x86, for AVX2 and chosen once by CPUID: the library is built without -march, and SSE2 has no
// 32-bit min/max, which made this pass slower than the kernels it guards.
template <typename T>
[[gnu::always_inline]] inline void min_max_loop(const T* __restrict data, int64_t n, T& lo,
                                                T& hi) {
  T mn = lo, mx = hi;
  for (int64_t i = 0; i < n; ++i) {
    const T v = data[i];
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  lo = mn;
  hi = mx;
}

template <typename T>
void min_max_base(const T* data, int64_t n, T& lo, T& hi) {
  min_max_loop(data, n, lo, hi);
}

#if defined(__x86_64__) || defined(__i386__)
template <typename T>
__attribute__((target("avx2"))) void min_max_avx2(const T* data, int64_t n, T& lo, T& hi) {
  min_max_loop(data, n, lo, hi);
}
#endif

template <typename T>
using MinMaxFn = void (*)(const T*, int64_t, T&, T&);

template <typename T>
MinMaxFn<T> min_max_fn() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return min_max_avx2<T>;
#endif
  return min_max_base<T>;
}

template <typename T>
void min_max(const T* data, int64_t n, int team, int64_t& lo, int64_t& hi) {
  if (n <= 0) {
    lo = hi = 0;
    return;
  }
  const MinMaxFn<T> fn = min_max_fn<T>();
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::min();
  if (team > 1 && n >= kTeamMinElements) {
    paths::hit(kPathValueCheckThreaded);
    const int64_t chunks = (n + kTeamMinElements - 1) / kTeamMinElements;
#pragma omp parallel num_threads(team)
    {
      T part_mn = std::numeric_limits<T>::max(), part_mx = std::numeric_limits<T>::min();
#pragma omp for schedule(static) nowait
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t begin = c * kTeamMinElements;
        fn(data + begin, std::min(kTeamMinElements, n - begin), part_mn, part_mx);
      }
#pragma omp critical(cvm_infer_min_max)
      {
        mn = std::min(mn, part_mn);
        mx = std::max(mx, part_mx);
      }
    }
  } else {
    fn(data, n, mn, mx);
  }
  lo = mn;
  hi = mx;
}

void check_storage(const Tensor& x, size_t k) {
  const int p = x.precision();
  if (p < kMinPrecision || p > kMaxPrecision) {
    fail_rule(rules::kPrecisionRange, "input ", k, ": precision ", p, " not in [1, 32]");
  }
  if (x.dtype() == DType::kInt8 && p > 8) {
    fail_rule(rules::kInt8Precision, "input ", k, ": int8 data with precision ", p);
  }
}

}  // namespace

void validate_inputs(const OpContext& ctx, int team) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& x = ctx.inputs[k];
    check_storage(x, k);
    int64_t lo = 0, hi = 0;
    if (x.dtype() == DType::kInt8) {
      min_max(x.i8(), x.size(), team, lo, hi);
    } else {
      min_max(x.i32(), x.size(), team, lo, hi);
    }
    check_input_values(ctx, k, lo, hi);
  }
}

void validate_input_storage(const OpContext& ctx) {
  for (size_t k = 0; k < ctx.inputs.size(); ++k) check_storage(ctx.inputs[k], k);
}

void check_input_values(const OpContext& ctx, size_t k, int64_t lo, int64_t hi) {
  const int p = ctx.inputs[k].precision();
  const int64_t a = alpha(p);
  if (lo <= hi && (lo < -a || hi > a)) {
    fail_rule(rules::kValueRange, "input ", k, ": values in [", lo, ", ", hi, "] exceed precision ",
              p);
  }
}

void validate_output(const OutputSpec& spec) {
  if (spec.precision < kMinPrecision || spec.precision > kMaxPrecision) {
    fail_rule(rules::kOutputPrecision, "output precision ", spec.precision, " not in [1, 32]");
  }
  validate_shape(spec.shape, "output");
}

Tensor allocate(const OutputSpec& spec) {
  validate_output(spec);
  return Tensor::uninitialized(DType::kInt32, spec.shape, spec.precision);
}

int axis_in(int64_t axis, int n, const char* what, const char* rule) {
  if (axis < -n || axis >= n) fail_rule(rule, what, " ", axis, " not in [", -n, ", ", n, ")");
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

}  // namespace cvm::infer
