// The optimized nn kernels on every ISA path this machine has (portable, AVX2, AVX-512 VNNI,
// forced with set_isa_cap, as CVMCHECK_ISA does), against the reference, bit for bit: random
// conv2d and dense calls (depthwise, grouped, strided, dilated, padded, 1x1, bias or not, int8
// and int32 storage, values at +-alpha(p) and the precision edges, shapes that take the direct
// fallback, sums whose shifted VNNI form wraps int32), plus relu, max_pool2d and upsampling, and
// identical bytes on 1, 2 and 3 threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "registry/registry.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "support/isas.h"

namespace cvm {
namespace {

using opt::Isa;

struct Case {
  std::string op;
  nlohmann::json attrs;
  std::vector<Tensor> inputs;
  std::string what;
};

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int64_t in(int64_t lo, int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  bool coin() { return in(0, 1) == 1; }
  // A value of precision p: often an edge (+-alpha, 0), else uniform.
  int32_t value(int p) {
    const int64_t a = alpha(p);
    switch (in(0, 5)) {
      case 0: return static_cast<int32_t>(a);
      case 1: return static_cast<int32_t>(-a);
      case 2: return 0;
      default: return static_cast<int32_t>(in(-a, a));
    }
  }
  Tensor tensor(const Shape& shape, int p, bool allow_int8 = true) {
    std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
    const int mode = static_cast<int>(in(0, 9));  // 0: all +alpha, 1: all -alpha, else mixed
    for (int32_t& e : v) {
      e = mode == 0   ? static_cast<int32_t>(alpha(p))
          : mode == 1 ? static_cast<int32_t>(-alpha(p))
                      : value(p);
    }
    const bool i8 = allow_int8 && p <= 8 && coin();
    return Tensor::from_values(shape, v, p, i8 ? DType::kInt8 : DType::kInt32);
  }

 private:
  std::mt19937 gen_;
};

std::string tuple(int64_t a, int64_t b) {
  std::string text = "(";  // appended: GCC 12 warns, falsely, on "(" + std::string temporaries
  text += std::to_string(a);
  text += ", ";
  text += std::to_string(b);
  text += ")";
  return text;
}

// Input and bias precisions for T terms with the output precision <= 32.
void precisions(Rng& rng, int64_t terms, bool bias, int& p0, int& p1, int& p2) {
  for (;;) {
    p0 = static_cast<int>(rng.in(1, 8));
    p1 = static_cast<int>(rng.in(1, 8));
    p2 = static_cast<int>(rng.in(1, 31));
    const int p = p0 + p1 + bitlen(static_cast<uint64_t>(terms));
    if ((bias ? std::max(p, p2) + 1 : p) <= 32) return;
  }
}

Case conv_case(Rng& rng, int kind) {
  int64_t n = rng.in(1, 2), groups = 1, icg = rng.in(1, 24), opg = rng.in(1, 24);
  int64_t h = rng.in(1, 20), w = rng.in(1, 20);
  int64_t kh = rng.in(1, 5), kw = rng.in(1, 5), sh = rng.in(1, 3), sw = rng.in(1, 3);
  int64_t ph = rng.in(0, 3), pw = rng.in(0, 3), dh = rng.in(1, 3), dw = rng.in(1, 3);
  switch (kind) {
    case 1:  // depthwise, sometimes with a channel multiplier
      groups = rng.in(2, 24);
      icg = 1;
      opg = rng.coin() ? 1 : rng.in(2, 3);
      break;
    case 2:  // grouped
      groups = rng.in(2, 4);
      icg = rng.in(2, 9);
      opg = rng.in(1, 12);
      break;
    case 3:  // 1x1, more channels
      icg = rng.in(8, 70);
      opg = rng.in(1, 40);
      kh = kw = 1;
      ph = pw = 0;
      if (rng.coin()) sh = sw = 1;
      break;
    case 4:  // extreme padding / strides / dilation (direct fallback or tall phase planes)
      h = rng.in(1, 3);
      w = rng.in(1, 3);
      ph = rng.coin() ? 4095 : rng.in(0, 40);
      pw = rng.coin() ? 4095 : rng.in(0, 40);
      sh = rng.coin() ? 4095 : rng.in(1, 50);
      sw = rng.coin() ? 4095 : rng.in(1, 50);
      dh = rng.coin() ? 4095 : rng.in(1, 50);
      dw = rng.in(1, 50);
      kh = rng.in(1, 2);
      kw = rng.in(1, 2);
      break;
    case 5:  // a typical 3x3 layer, stride 1 or 2
      icg = rng.in(4, 40);
      opg = rng.in(4, 40);
      h = rng.in(5, 24);
      w = rng.in(5, 40);
      kh = kw = 3;
      ph = pw = 1;
      dh = dw = 1;
      sh = sw = rng.in(1, 2);
      break;
    default: break;
  }
  // Make the dilated kernel fit the padded input.
  if (dh * (kh - 1) + 1 > h + 2 * ph) dh = 1;
  if (dw * (kw - 1) + 1 > w + 2 * pw) dw = 1;
  kh = std::min(kh, h + 2 * ph);
  kw = std::min(kw, w + 2 * pw);
  const bool bias = rng.coin();
  int p0 = 0, p1 = 0, p2 = 0;
  precisions(rng, icg * kh * kw, bias, p0, p1, p2);
  const int64_t c = groups * icg, oc = groups * opg;
  Case k;
  k.op = "conv2d";
  k.attrs = {{"channels", std::to_string(oc)},     {"kernel_size", tuple(kh, kw)},
             {"strides", tuple(sh, sw)},           {"padding", tuple(ph, pw)},
             {"dilation", tuple(dh, dw)},          {"groups", std::to_string(groups)},
             {"use_bias", bias ? "true" : "false"}};
  k.inputs = {rng.tensor({n, c, h, w}, p0), rng.tensor({oc, icg, kh, kw}, p1)};
  if (bias) k.inputs.push_back(rng.tensor({oc}, p2));
  k.what = "conv2d " + k.attrs.dump() + " x " + shape_str(k.inputs[0].shape()) + " p" +
           std::to_string(p0) + "/" + std::to_string(p1);
  return k;
}

Case dense_case(Rng& rng, int64_t m, int64_t depth, int64_t units) {
  const bool bias = rng.coin();
  int p0 = 0, p1 = 0, p2 = 0;
  precisions(rng, depth, bias, p0, p1, p2);
  Case k;
  k.op = "dense";
  k.attrs = {{"units", std::to_string(units)}, {"use_bias", bias ? "True" : "False"}};
  k.inputs = {rng.tensor({m, depth}, p0), rng.tensor({units, depth}, p1)};
  if (bias) k.inputs.push_back(rng.tensor({units}, p2));
  k.what = "dense M=" + std::to_string(m) + " K=" + std::to_string(depth) +
           " units=" + std::to_string(units) + " p" + std::to_string(p0) + "/" + std::to_string(p1);
  return k;
}

// The native paths this machine runs, then every emulated twin (support/isas.h).
using testing::isa_runs;
using testing::IsaRun;
using testing::machine_isas;

std::string first_difference(const Outcome& a, const Outcome& b) {
  std::ostringstream out;
  out << outcome_name(a.kind) << " vs " << outcome_name(b.kind) << " (" << a.message << " | "
      << b.message << ")";
  if (a.kind != OutcomeKind::kOk || b.kind != OutcomeKind::kOk) return out.str();
  if (a.outputs.size() != b.outputs.size()) return "output count differs";
  for (size_t o = 0; o < a.outputs.size(); ++o) {
    const Tensor& x = a.outputs[o];
    const Tensor& y = b.outputs[o];
    if (x.shape() != y.shape() || x.precision() != y.precision()) {
      return "shape/precision " + shape_str(x.shape()) + "/" + std::to_string(x.precision()) +
             " vs " + shape_str(y.shape()) + "/" + std::to_string(y.precision());
    }
    for (int64_t i = 0; i < x.size(); ++i) {
      if (x.get(i) != y.get(i)) {
        return "index " + std::to_string(i) + ": " + std::to_string(x.get(i)) + " vs " +
               std::to_string(y.get(i));
      }
    }
  }
  return "identical";
}

bool same(const Outcome& a, const Outcome& b) {
  if (a.kind != b.kind || a.outputs.size() != b.outputs.size()) return false;
  for (size_t o = 0; o < a.outputs.size(); ++o) {
    if (!a.outputs[o].identical(b.outputs[o])) return false;
  }
  return true;
}

// Runs each case on the reference once and on the optimized backend on every ISA path.
void check_cases(const std::vector<Case>& cases, bool expect_ok = true) {
  const std::vector<IsaRun> isas = isa_runs();
  for (const Case& k : cases) {
    const Outcome ref = run_op_outcome(registry(), "reference", k.op, k.attrs, k.inputs);
    if (expect_ok) {
      ASSERT_EQ(ref.kind, OutcomeKind::kOk) << k.what << ": " << ref.message;
    }
    for (const IsaRun& isa : isas) {
      opt::set_isa_cap(isa.isa, isa.emulated);
      const Outcome got = run_op_outcome(registry(), "optimized", k.op, k.attrs, k.inputs);
      opt::clear_isa_cap();
      ASSERT_TRUE(same(ref, got)) << isa.name() << ": " << k.what << ": "
                                  << first_difference(ref, got);
    }
  }
}

TEST(NnPaths, ReportsAnIsaAndHonoursTheCap) {
  const char* env = std::getenv("CVMCHECK_ISA");
  const std::string saved = env != nullptr ? env : "";
  unsetenv("CVMCHECK_ISA");
  EXPECT_EQ(opt::active_isa(), opt::detected_isa());
  for (Isa isa : machine_isas()) {
    opt::set_isa_cap(isa);
    EXPECT_EQ(opt::active_isa(), isa);
    EXPECT_STREQ(opt::active_isa_name(), opt::isa_name(isa));
  }
  opt::clear_isa_cap();
  setenv("CVMCHECK_ISA", "portable", 1);
  EXPECT_EQ(opt::active_isa(), Isa::kPortable);
  setenv("CVMCHECK_ISA", "no-such-isa", 1);
  EXPECT_EQ(opt::active_isa(), opt::detected_isa());
  EXPECT_FALSE(opt::active_isa_emulated());
  // A twin by name, whatever the CPU (x86 builds: the twins are SIMDe's x86 emulation); AVX2
  // has none, so avx2~simde is unknown.
  if (opt::isa_has_twin(Isa::kAvx512Vnni)) {
    setenv("CVMCHECK_ISA", "avx512vnni~simde", 1);
    EXPECT_EQ(opt::active_isa(), Isa::kAvx512Vnni);
    EXPECT_TRUE(opt::active_isa_emulated());
  }
  setenv("CVMCHECK_ISA", "avx2~simde", 1);
  EXPECT_EQ(opt::active_isa(), opt::detected_isa());
  EXPECT_FALSE(opt::active_isa_emulated());
  unsetenv("CVMCHECK_ISA");
  if (opt::isa_has_twin(Isa::kAvxVnni)) {
    opt::set_isa_cap(Isa::kAvxVnni, true);
    EXPECT_EQ(opt::active_isa(), Isa::kAvxVnni);
    EXPECT_TRUE(opt::active_isa_emulated());
  }
  opt::clear_isa_cap();
  unsetenv("CVMCHECK_ISA");
  if (env != nullptr) setenv("CVMCHECK_ISA", saved.c_str(), 1);
}

TEST(NnPaths, Conv2dRandomCasesMatchTheReferenceOnEveryIsa) {
  Rng rng(20240611);
  std::vector<Case> cases;
  for (int i = 0; i < 240; ++i) cases.push_back(conv_case(rng, i % 6));
  check_cases(cases);
}

TEST(NnPaths, Conv2dLargerLayersMatchTheReference) {
  Rng rng(7);
  std::vector<Case> cases;
  auto layer = [&](int64_t c, int64_t hw, int64_t oc, int64_t k, int64_t s, int64_t p,
                   int64_t groups) {
    Case x;
    x.op = "conv2d";
    x.attrs = {{"channels", std::to_string(oc)},
               {"kernel_size", tuple(k, k)},
               {"strides", tuple(s, s)},
               {"padding", tuple(p, p)},
               {"groups", std::to_string(groups)}};
    x.inputs = {rng.tensor({1, c, hw, hw}, 8), rng.tensor({oc, c / groups, k, k}, 8),
                rng.tensor({oc}, 12)};
    x.what = "layer C" + std::to_string(c) + " " + std::to_string(hw) + "x" + std::to_string(hw);
    cases.push_back(x);
  };
  layer(64, 20, 64, 3, 1, 1, 1);   // many channels: several k-steps per plane
  layer(3, 45, 16, 7, 2, 3, 1);    // first-layer shape, stride 2: four phase planes
  layer(96, 7, 80, 3, 1, 1, 1);    // plane narrower than a vector: tile scratch path
  layer(32, 30, 32, 3, 1, 1, 32);  // depthwise
  layer(48, 9, 24, 3, 2, 1, 4);    // grouped, strided
  check_cases(cases);
}

// Several input channels per group on the direct path: the GEMM plan is refused because a wide
// width dilation makes most of its computed pixels fall outside the image (gemm work over 8x
// the direct work). The direct kernel's fast plane path is for one channel per group only; a
// guard that sent these calls to it survived every other test.
TEST(NnPaths, Conv2dDirectFallbackWithSeveralChannelsPerGroupMatchesTheReference) {
  Rng rng(402);
  std::vector<Case> cases;
  for (int64_t icg : {2, 3, 5}) {
    for (int64_t groups : {1, 2}) {
      const int64_t oc = groups * 3, dilation_w = 580, w = 600;
      Case k;
      k.op = "conv2d";
      k.attrs = {{"channels", std::to_string(oc)},
                 {"kernel_size", "(2, 2)"},
                 {"dilation", tuple(1, dilation_w)},
                 {"groups", std::to_string(groups)},
                 {"use_bias", groups == 1 ? "true" : "false"}};
      k.inputs = {rng.tensor({1, groups * icg, 6, w}, 6), rng.tensor({oc, icg, 2, 2}, 6)};
      if (groups == 1) k.inputs.push_back(rng.tensor({oc}, 12));
      k.what = "conv2d direct fallback icg " + std::to_string(icg) + " groups " +
               std::to_string(groups);
      cases.push_back(k);
    }
  }
  check_cases(cases);
}

// vpdpbusd's shifted sums, sum((x + 128) * w), exceed int32 here (x = +-1 with 147456 terms);
// the result is exact only through the modulo-2^32 argument of optimized/nn_gemm.h.
TEST(NnPaths, Conv2dShiftedSumsThatWrapInt32StayExact) {
  const int64_t c = 16384, oc = 8;
  std::vector<int32_t> x(static_cast<size_t>(c * 16), 1), w(static_cast<size_t>(oc * c * 9), 127);
  for (size_t i = 0; i < w.size(); i += 7) w[i] = -127;
  for (size_t i = 0; i < x.size(); i += 3) x[i] = -1;
  Case k;
  k.op = "conv2d";
  k.attrs = {{"channels", std::to_string(oc)},
             {"kernel_size", "(3, 3)"},
             {"padding", "(1, 1)"},
             {"use_bias", "false"}};
  k.inputs = {Tensor::from_values({1, c, 4, 4}, x, 2, DType::kInt8),
              Tensor::from_values({oc, c, 3, 3}, w, 8)};
  k.what = "conv2d wrap";
  check_cases({k});
}

TEST(NnPaths, DenseRandomCasesMatchTheReferenceOnEveryIsa) {
  Rng rng(99);
  std::vector<Case> cases;
  for (int i = 0; i < 120; ++i) {
    cases.push_back(dense_case(rng, rng.in(1, 40), rng.in(1, 300), rng.in(1, 150)));
  }
  // Several k-blocks (4096 k on VNNI, 2048 on AVX2), and shapes around the tile sizes.
  cases.push_back(dense_case(rng, 3, 9000, 70));
  cases.push_back(dense_case(rng, 13, 4097, 17));
  cases.push_back(dense_case(rng, 64, 256, 64));
  cases.push_back(dense_case(rng, 1, 1, 1));
  check_cases(cases);
}

TEST(NnPaths, DenseShiftedSumsThatWrapInt32StayExact) {
  const int64_t depth = int64_t{1} << 20;
  std::vector<int32_t> x(static_cast<size_t>(2 * depth), 1), w(static_cast<size_t>(3 * depth), 127);
  for (size_t i = 0; i < x.size(); i += 5) x[i] = -1;
  Case k;
  k.op = "dense";
  k.attrs = {{"units", "3"}};
  k.inputs = {Tensor::from_values({2, depth}, x, 2),
              Tensor::from_values({3, depth}, w, 8, DType::kInt8),
              Tensor::from_values({3}, {-5, 0, 1 << 20}, 22)};
  k.what = "dense wrap";
  check_cases({k});
}

TEST(NnPaths, RuleBreakingCallsAreLogicErrorsOnEveryIsa) {
  Rng rng(3);
  std::vector<Case> cases;
  Case k = dense_case(rng, 2, 8, 3);
  k.inputs[1] = Tensor::from_values({3, 8}, std::vector<int32_t>(24, 200), 9);  // p1 = 9
  k.what = "dense weight precision 9";
  cases.push_back(k);
  Case c = conv_case(rng, 0);
  c.attrs["groups"] = "0";
  c.what = "conv2d groups 0";
  cases.push_back(c);
  // 8 + 8 + bitlen(2^16) = 33 > 32.
  Case big;
  big.op = "dense";
  big.attrs = {{"units", "1"}, {"use_bias", "false"}};
  big.inputs = {Tensor::zeros(DType::kInt8, {1, 65536}, 8),
                Tensor::zeros(DType::kInt8, {1, 65536}, 8)};
  big.what = "dense output precision 33";
  cases.push_back(big);
  // Values outside the declared precision: checked fused into the packing on the GEMM paths.
  Case xv = dense_case(rng, 5, 40, 20);
  xv.inputs[0] = Tensor::from_values({5, 40}, std::vector<int32_t>(200, 9), 4);  // alpha(4) = 7
  xv.what = "dense data value 9 at precision 4";
  cases.push_back(xv);
  Case wv = dense_case(rng, 5, 40, 20);
  std::vector<int32_t> wvals(800, 3);
  wvals[777] = -128;
  wv.inputs[1] = Tensor::from_values({20, 40}, wvals, 8, DType::kInt8);
  wv.what = "dense weight -128 at precision 8";
  cases.push_back(wv);
  for (int kind : {5, 1, 4}) {  // GEMM, depthwise, direct
    Case cx = conv_case(rng, kind);
    std::vector<int32_t> v = cx.inputs[0].values();
    v.back() = static_cast<int32_t>(alpha(cx.inputs[0].precision()) + 1);
    cx.inputs[0] = Tensor::from_values(cx.inputs[0].shape(), v, cx.inputs[0].precision());
    cx.what = "conv2d data value above alpha, kind " + std::to_string(kind);
    cases.push_back(cx);
    Case cw = conv_case(rng, kind);
    std::vector<int32_t> u = cw.inputs[1].values();
    u.front() = static_cast<int32_t>(-alpha(cw.inputs[1].precision()) - 1);
    cw.inputs[1] = Tensor::from_values(cw.inputs[1].shape(), u, cw.inputs[1].precision());
    cw.what = "conv2d weight value below -alpha, kind " + std::to_string(kind);
    cases.push_back(cw);
  }
  for (const Case& x : cases) {
    const Outcome ref = run_op_outcome(registry(), "reference", x.op, x.attrs, x.inputs);
    EXPECT_EQ(ref.kind, OutcomeKind::kLogicError) << x.what;
  }
  check_cases(cases, false);
}

TEST(NnPaths, ReluMaxPoolAndUpsamplingMatchTheReference) {
  Rng rng(5);
  std::vector<Case> cases;
  for (int i = 0; i < 60; ++i) {
    const int p = static_cast<int>(rng.in(1, 32));
    const Shape s = {rng.in(1, 3), rng.in(1, 5), rng.in(1, 17), rng.in(1, 17)};
    Case r{"relu", nlohmann::json::object(), {rng.tensor(s, p)}, "relu " + shape_str(s)};
    cases.push_back(r);
    const int64_t psh = rng.in(1, 4), psw = rng.in(1, 4);
    int64_t ph = rng.in(0, psh - 1), pw = rng.in(0, psw - 1);
    const bool one_entry = rng.coin();
    if (one_entry) ph = pw = std::min(ph, pw);
    const int64_t sh = rng.in(1, 3), sw = rng.in(1, 3);
    // Ceil mode only where its last window starts inside the input.
    auto ceil_ok = [](int64_t in, int64_t pool, int64_t stride, int64_t pad) {
      const int64_t out = (in + 2 * pad - pool + stride - 1) / stride + 1;
      return (out - 1) * stride - pad < in;
    };
    const bool ceil_mode = rng.coin() && ceil_ok(s[2], psh, sh, ph) && ceil_ok(s[3], psw, sw, pw);
    if (psh <= s[2] + 2 * ph && psw <= s[3] + 2 * pw) {
      Case m{"max_pool2d",
             {{"pool_size", tuple(psh, psw)},
              {"strides", tuple(sh, sw)},
              {"padding", one_entry ? std::to_string(ph) : tuple(ph, pw)},
              {"ceil_mode", ceil_mode ? "true" : "false"}},
             {rng.tensor(s, p)},
             "max_pool2d " + shape_str(s)};
      cases.push_back(m);
    }
    Case u{"upsampling",
           {{"scale", std::to_string(rng.in(1, 4))}},
           {rng.tensor(s, p)},
           "upsampling " + shape_str(s)};
    cases.push_back(u);
  }
  check_cases(cases);
}

TEST(NnPaths, ConvAndDenseGiveIdenticalBytesOnOneTwoAndThreeThreads) {
  Rng rng(11);
  std::vector<Case> cases;
  for (int i = 0; i < 6; ++i) {
    Case k = conv_case(rng, 5);
    k.inputs[0] = rng.tensor({2, k.inputs[0].dim(1), 24, 24}, k.inputs[0].precision());
    cases.push_back(k);
  }
  cases.push_back(dense_case(rng, 37, 700, 300));
  for (const Case& k : cases) {
    for (const IsaRun& isa : isa_runs()) {
      opt::set_isa_cap(isa.isa, isa.emulated);
      std::vector<Outcome> runs;
      for (int threads : {1, 2, 3}) {
        opt::set_threads(threads);
        runs.push_back(run_op_outcome(registry(), "optimized", k.op, k.attrs, k.inputs));
      }
      opt::set_threads(0);
      opt::clear_isa_cap();
      ASSERT_EQ(runs[0].kind, OutcomeKind::kOk) << k.what << ": " << runs[0].message;
      EXPECT_TRUE(same(runs[0], runs[1])) << isa.name() << ": " << k.what;
      EXPECT_TRUE(same(runs[0], runs[2])) << isa.name() << ": " << k.what;
    }
  }
}

}  // namespace
}  // namespace cvm
