// cvmcheck_onednn_model_check: runs oneDNN's int8 convolution and inner product on random data
// and compares every output with the arithmetic docs/conformance/onednn.md says oneDNN does, and
// with the exact sum. Prints one line per configuration: the implementation, how many outputs
// differ from the exact result and how many from the model; exit 1 when any output differs from
// the model. Honours DNNL_MAX_CPU_ISA, so `DNNL_MAX_CPU_ISA=AVX2 cvmcheck_onednn_model_check`
// checks the AVX2 arithmetic on any x86 machine.
//
// The models (y: the s32 output, b: the bias, rne: round to nearest even):
//   every implementation:  y = rne(f32(acc) + f32(b))                       (f32-accumulator)
//   conv2d, int8 jit kernels without VNNI: acc = 2 * sum x * rne(w / 2)     (weight-halving)
//   dense, x64:gemm_s8s8s32:jit without VNNI:
//     acc = sum over pairs of sat16((x0 + 128) w0 + (x1 + 128) w1) - 128 sum w  (pair-saturation)
//     and on avx512_core with one unit and two or more rows, the roles swapped:
//     acc = sum over pairs of sat16((w0 + 128) x0 + (w1 + 128) x1) - 128 sum x  (-gemv)
//   otherwise acc = sum x * w.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

struct Config {
  const char* op;             // "conv2d" (1x1 kernel over C channels, H x W pixels) or "dense"
  int64_t rows, depth, outs;  // conv2d: pixels, C, OC; dense: M, K, units
  int wmax;                   // weights in [-wmax, wmax]
  int64_t bmax;               // bias in [-bmax, bmax] (0: no bias)
  int fill = 0;               // nonzero: every data value and weight is this (large sums)
};

bool without_vnni() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::sse41 || isa == dnnl::cpu_isa::avx || isa == dnnl::cpu_isa::avx2 ||
         isa == dnnl::cpu_isa::avx512_core;
}

int32_t to_s32(float v) {  // oneDNN's saturation to [INT32_MIN, largest f32 below 2^31]
  return static_cast<int32_t>(std::nearbyint(std::fmin(std::fmax(v, -2147483648.f), 2147483520.f)));
}

// The model's accumulator of output (r, o) over depth K: x is (rows, K), w (outs, K).
int64_t model_acc(const Config& c, const std::string& impl, const int8_t* x, const int8_t* w) {
  const bool halve = without_vnni() && c.op[0] == 'c' && impl.find("int8") != std::string::npos &&
                     impl.find("ref") == std::string::npos;
  const bool pairs = without_vnni() && impl.find("gemm_s8s8s32") != std::string::npos;
  // The operand shifted to u8 (u) and the one kept s8 (s).
  const bool gemv = c.op[0] == 'd' && c.outs == 1 && c.rows >= 2 &&
                    dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core;
  const int8_t* u = gemv ? w : x;
  const int8_t* s = gemv ? x : w;
  int64_t acc = 0, ssum = 0;
  for (int64_t k = 0; k < c.depth; ++k) {
    if (halve) {
      acc += 2 * x[k] * static_cast<int64_t>(std::nearbyint(w[k] / 2.0f));
    } else if (pairs && k % 2 == 0) {
      int64_t pair = (u[k] + 128) * s[k];
      if (k + 1 < c.depth) pair += (u[k + 1] + 128) * s[k + 1];
      acc += std::min<int64_t>(32767, std::max<int64_t>(-32768, pair));
    } else if (!pairs) {
      acc += x[k] * w[k];
    }
    ssum += s[k];
  }
  return pairs ? acc - 128 * ssum : acc;
}

// Runs the configuration; x is (rows, depth), w (outs, depth), y (rows, outs), all row-major.
std::string run(const Config& c, std::vector<int8_t>& x, std::vector<int8_t>& w,
                std::vector<int32_t>& b, std::vector<int32_t>& y) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const bool conv = c.op[0] == 'c';
  // conv2d: N = 1, C = depth, H = 1, W = rows (pixels), kernel 1x1; the data transposed to NCHW.
  const memory::dims xd = conv ? memory::dims{1, c.depth, 1, c.rows} : memory::dims{c.rows, c.depth};
  const memory::dims wd = conv ? memory::dims{c.outs, c.depth, 1, 1} : memory::dims{c.outs, c.depth};
  const memory::dims yd = conv ? memory::dims{1, c.outs, 1, c.rows} : memory::dims{c.rows, c.outs};
  std::vector<int8_t> xt(x.size());
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t k = 0; k < c.depth; ++k) xt[k * c.rows + r] = x[r * c.depth + k];
  std::vector<int32_t> yt(y.size());
  memory xm({xd, dt::s8, conv ? tag::nchw : tag::nc}, eng, conv ? xt.data() : x.data());
  memory wm({wd, dt::s8, conv ? tag::oihw : tag::oi}, eng, w.data());
  memory ym({yd, dt::s32, conv ? tag::nchw : tag::nc}, eng, yt.data());
  memory bm({{c.outs}, dt::s32, tag::a}, eng, b.data());
  const memory::desc bd = c.bmax > 0 ? bm.get_desc() : memory::desc();
  const memory::desc xa(xd, dt::s8, tag::any), wa(wd, dt::s8, tag::any), ya(yd, dt::s32, tag::any);
  dnnl::primitive prim;
  dnnl::primitive_desc_base pd;
  if (conv) {
    const dnnl::convolution_forward::primitive_desc cpd(
        {dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, xa, wa, bd, ya,
         {1, 1}, {0, 0}, {0, 0}},
        eng);
    pd = cpd;
    prim = dnnl::convolution_forward(cpd);
  } else {
    const dnnl::inner_product_forward::primitive_desc ipd(
        {dnnl::prop_kind::forward_inference, xa, wa, bd, ya}, eng);
    pd = ipd;
    prim = dnnl::inner_product_forward(ipd);
  }
  memory xp(pd.query_md(dnnl::query::src_md), eng), wp(pd.query_md(dnnl::query::weights_md), eng);
  memory yp(pd.query_md(dnnl::query::dst_md), eng);
  dnnl::reorder(xm, xp).execute(s, xm, xp);
  dnnl::reorder(wm, wp).execute(s, wm, wp);
  prim.execute(s, {{DNNL_ARG_SRC, xp}, {DNNL_ARG_WEIGHTS, wp}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, yp}});
  dnnl::reorder(yp, ym).execute(s, yp, ym);
  s.wait();
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t o = 0; o < c.outs; ++o) y[r * c.outs + o] = conv ? yt[o * c.rows + r] : yt[r * c.outs + o];
  return pd.impl_info_str();
}

// Runs one configuration on random data; true when every output equals the model.
bool check(const Config& c, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dx(-127, 127), dw(-c.wmax, c.wmax);
  std::uniform_int_distribution<int64_t> db(-c.bmax, c.bmax);
  std::vector<int8_t> x(c.rows * c.depth), w(c.outs * c.depth);
  std::vector<int32_t> b(c.outs), y(c.rows * c.outs);
  for (int8_t& v : x) v = static_cast<int8_t>(c.fill != 0 ? c.fill : dx(gen));
  for (int8_t& v : w) v = static_cast<int8_t>(c.fill != 0 ? c.fill : dw(gen));
  for (int32_t& v : b) v = static_cast<int32_t>(db(gen));
  const std::string impl = run(c, x, w, b, y);
  int64_t inexact = 0, off_model = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t o = 0; o < c.outs; ++o) {
      int64_t exact = b[o];
      for (int64_t k = 0; k < c.depth; ++k) exact += x[r * c.depth + k] * w[o * c.depth + k];
      const int64_t acc = model_acc(c, impl, &x[r * c.depth], &w[o * c.depth]);
      const int32_t model = to_s32(static_cast<float>(acc) + static_cast<float>(b[o]));
      inexact += y[r * c.outs + o] != exact;
      off_model += y[r * c.outs + o] != model;
    }
  }
  std::printf("%-6s rows %-4lld depth %-5lld outs %-4lld |w| <= %-3d |b| <= %-10lld %-28s outputs %-6lld "
              "differ from exact %-6lld from the model %lld\n",
              c.op, static_cast<long long>(c.rows), static_cast<long long>(c.depth),
              static_cast<long long>(c.outs), c.wmax, static_cast<long long>(c.bmax), impl.c_str(),
              static_cast<long long>(c.rows * c.outs), static_cast<long long>(inexact),
              static_cast<long long>(off_model));
  return off_model == 0;
}

}  // namespace

int main() {
  static const Config configs[] = {
      {"conv2d", 36, 8, 8, 127, 0},         {"conv2d", 49, 64, 64, 127, 0},
      {"conv2d", 36, 8, 8, 126, 100000000}, {"conv2d", 4, 1200, 3, 127, 0},
      {"dense", 4, 64, 8, 127, 0},          {"dense", 3, 7, 5, 127, 0},
      {"dense", 64, 1024, 16, 127, 0},      {"dense", 17, 33, 9, 127, 100000000},
      {"dense", 8, 2048, 4, 127, 0},          {"dense", 16, 64, 1, 127, 0},
      {"dense", 2, 35, 1, 62, 0},             {"dense", 1, 64, 1, 127, 0},
      // 127 x 127 x 1041 = 2^24 + 13073: the accumulator alone passes 2^24.
      {"conv2d", 2, 1041, 2, 127, 0, 127},  {"dense", 2, 1041, 2, 127, 0, 127},
  };
  std::printf("oneDNN %d.%d.%d\n", dnnl_version()->major, dnnl_version()->minor,
              dnnl_version()->patch);
  bool ok = true;
  uint32_t seed = 1;
  for (const Config& c : configs) ok = check(c, seed++) && ok;
  return ok ? 0 : 1;
}
