// Tests added because a kernel mutant survived every other harness mode (tools/mutate,
// docs/mutation.md): each names the mutant ids it kills. One suite per operator,
// MutationKills<Operator>, so the mutation runner's unit mode can select an operator's tests.
// Every test builds specific inputs and compares the optimized backend with the reference, bit
// for bit, on 1, 2 and 3 threads: the generators' small tensors never reach the kernels'
// threaded paths (2^16 elements and more), and a few value edges they rarely draw.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>
#include <random>
#include <tuple>
#include <sstream>

#include "registry/registry.h"
#include "cvmcheck/precision.h"
#include "cvmcheck/registry.h"
#include "optimized/cpu_features.h"
#include "optimized/kernels.h"
#include "support/isas.h"

namespace cvm {
namespace {

// Values of precision p, uniform, with +-alpha(p) and 0 mixed in.
Tensor random_tensor(const Shape& shape, int p, DType dtype, uint32_t seed) {
  std::mt19937 gen(seed);
  const int64_t a = alpha(p);
  std::uniform_int_distribution<int64_t> value(-a, a), pick(0, 9);
  std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
  for (int32_t& e : v) {
    const int64_t k = pick(gen);
    e = static_cast<int32_t>(k == 0 ? a : k == 1 ? -a : k == 2 ? 0 : value(gen));
  }
  return Tensor::from_values(shape, v, p, dtype);
}

std::string describe(const Outcome& o) {
  std::ostringstream out;
  out << outcome_name(o.kind);
  if (!o.message.empty()) out << " (" << o.message << ")";
  return out.str();
}

// The first difference between two outcomes, or "" when they are identical.
std::string difference(const Outcome& want, const Outcome& got) {
  if (want.kind != got.kind) return describe(want) + " vs " + describe(got);
  if (want.outputs.size() != got.outputs.size()) return "output count differs";
  for (size_t o = 0; o < want.outputs.size(); ++o) {
    const Tensor& x = want.outputs[o];
    const Tensor& y = got.outputs[o];
    if (x.shape() != y.shape() || x.precision() != y.precision()) {
      return "output " + std::to_string(o) + ": shape/precision " + shape_str(x.shape()) + "/" +
             std::to_string(x.precision()) + " vs " + shape_str(y.shape()) + "/" +
             std::to_string(y.precision());
    }
    for (int64_t i = 0; i < x.size(); ++i) {
      if (x.get(i) != y.get(i)) {
        return "output " + std::to_string(o) + " index " + std::to_string(i) + ": " +
               std::to_string(x.get(i)) + " (reference) vs " + std::to_string(y.get(i));
      }
    }
    if (!x.identical(y)) return "output " + std::to_string(o) + ": same values, different bytes";
  }
  return "";
}

// The reference must succeed; the optimized backend must give identical bytes on 1, 2 and 3
// threads.
void expect_agree(const std::string& op, const nlohmann::json& attrs,
                  const std::vector<Tensor>& inputs, const std::string& what) {
  const Outcome ref = run_op_outcome(registry(), "reference", op, attrs, inputs);
  ASSERT_EQ(ref.kind, OutcomeKind::kOk) << what << ": " << describe(ref);
  for (int threads : {1, 2, 3}) {
    opt::set_threads(threads);
    const Outcome got = run_op_outcome(registry(), "optimized", op, attrs, inputs);
    opt::set_threads(0);
    const std::string diff = difference(ref, got);
    EXPECT_EQ(diff, "") << op << " " << attrs.dump() << " " << what << " on " << threads
                        << " threads";
  }
}

// --- reduce -----------------------------------------------------------------------------------

// Large enough for the threaded path (a kept outer group split across threads), in the three
// group layouts: kept/reduced, kept/reduced/kept, and kept/reduced/kept/reduced.
// Kills optimized/reduce.cc:106:off_by_one:0 and :1 (the threaded loop's bounds).
void reduce_on_threads(const std::string& op) {
  const std::vector<std::pair<Shape, std::string>> layouts = {
      {{8, 16384}, "(1,)"}, {{5, 4096, 7}, "(1,)"}, {{3, 64, 5, 128}, "(1, 3)"}};
  uint32_t seed = 1;
  for (const auto& [shape, axis] : layouts) {
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      const Tensor x = random_tensor(shape, 8, dtype, seed++);
      expect_agree(op, {{"axis", axis}}, {x}, shape_str(shape));
    }
  }
}

TEST(MutationKillsSum, ThreadedPathMatchesTheReference) { reduce_on_threads("sum"); }
TEST(MutationKillsMax, ThreadedPathMatchesTheReference) { reduce_on_threads("max"); }

// Strictly increasing values, so each reduced row's maximum is its last element and the first
// its minimum: the operator examples' maxima sit elsewhere. Kills optimized/reduce.cc:74:off_by_one:0
// in the unit mode (the properties and golden already did).
TEST(MutationKillsMax, MaximumAtTheEndOfEveryReducedRow) {
  for (const auto& [shape, axis] : std::vector<std::pair<Shape, std::string>>{
           {{3, 5}, "(1,)"}, {{2, 3, 4}, "(2,)"}, {{2, 3, 4}, "(1,)"}, {{4, 6}, "(0,)"}}) {
    std::vector<int32_t> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i) - 10;
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      const Tensor x = Tensor::from_values(shape, v, 8, dtype);
      expect_agree("max", {{"axis", axis}}, {x}, "ascending " + shape_str(shape));
      std::vector<int32_t> down(v.rbegin(), v.rend());
      expect_agree("max", {{"axis", axis}}, {Tensor::from_values(shape, down, 8, dtype)},
                   "descending " + shape_str(shape));
    }
  }
}

// "(a, b)", appended piecewise: GCC 12 warns, falsely, on "(" + std::string temporaries.
std::string pair_text(int64_t a, int64_t b) {
  std::string text = "(";
  text += std::to_string(a);
  text += ", ";
  text += std::to_string(b);
  text += ")";
  return text;
}

// --- nn: relu's chunks ---------------------------------------------------------------------------

// More than two 2^14-element chunks (the last one partial): the nn path tests' relu inputs have
// at most a few thousand elements, one chunk. Kills optimized/nn.cc:37:off_by_one:0.
TEST(MutationKillsRelu, SeveralChunksOnSeveralThreads) {
  uint32_t seed = 400;
  for (const Shape& shape : std::vector<Shape>{{1, 3, 150, 101}, {2, 2, 128, 64}}) {
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      expect_agree("relu", nlohmann::json::object(), {random_tensor(shape, 8, dtype, seed++)},
                   shape_str(shape));
    }
  }
}

// --- nn: the value checks fused into the GEMM packing -------------------------------------------

// The ISA paths this machine can run, then the emulated twins (support/isas.h).
using testing::isa_runs;
using testing::IsaRun;
using testing::machine_isas;

// Every position of input `which`, in turn, holds alpha(p) + 1 or -alpha(p) - 1 (the other values
// are valid): the reference gives logic_error, and so must the optimized backend on every ISA.
// The GEMM paths find such values while packing (full 16-value vectors, then a scalar tail, and
// 4-row blocks, then the last 1 to 3 rows), so each position class needs its own case.
void expect_each_bad_position_rejected(const std::string& op, const nlohmann::json& attrs,
                                       const std::vector<Tensor>& valid, size_t which) {
  const std::vector<IsaRun> isas = isa_runs();
  const Tensor& t = valid[which];
  const int64_t a = alpha(t.precision());
  int failures = 0;
  for (int64_t i = 0; i < t.size() && failures < 3; ++i) {
    for (int64_t bad : {a + 1, -a - 1}) {
      std::vector<int32_t> v = t.values();
      v[static_cast<size_t>(i)] = static_cast<int32_t>(bad);
      std::vector<Tensor> inputs = valid;
      inputs[which] = Tensor::from_values(t.shape(), v, t.precision(), t.dtype());
      const Outcome ref = run_op_outcome(registry(), "reference", op, attrs, inputs);
      ASSERT_EQ(ref.kind, OutcomeKind::kLogicError) << describe(ref);
      for (const IsaRun& isa : isas) {
        opt::set_isa_cap(isa.isa, isa.emulated);
        const Outcome got = run_op_outcome(registry(), "optimized", op, attrs, inputs);
        opt::clear_isa_cap();
        if (got.kind != OutcomeKind::kLogicError) {
          ++failures;
          ADD_FAILURE() << op << " " << attrs.dump() << " on " << isa.name() << ": input "
                        << which << " " << shape_str(t.shape()) << " "
                        << (t.dtype() == DType::kInt8 ? "int8" : "int32") << " p"
                        << t.precision() << " value " << bad << " at flat index " << i
                        << " gave " << describe(got);
        }
      }
    }
  }
}

// Depths 20 and 37 (one or two full 16-value steps, then a tail), 6 and 9 rows and units (a 4-row
// block, then 1 to 3 rows).
// Kills optimized/nn_isa_vnni.cc:220:drop_clamp:0 (and the other dropped range updates of the
// packing, see docs/mutation.md).
TEST(MutationKillsDense, OutOfRangeValueAnywhereInXOrWIsALogicError) {
  uint32_t seed = 100;
  for (const auto& [rows, depth, units] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {6, 20, 7}, {5, 37, 9}, {9, 16, 4}}) {
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      const std::vector<Tensor> valid = {random_tensor({rows, depth}, 4, dtype, seed++),
                                         random_tensor({units, depth}, 4, dtype, seed++)};
      const nlohmann::json attrs = {{"units", std::to_string(units)}, {"use_bias", "false"}};
      expect_agree("dense", attrs, valid, "valid values");
      expect_each_bad_position_rejected("dense", attrs, valid, 0);
      expect_each_bad_position_rejected("dense", attrs, valid, 1);
    }
  }
}

// The implicit-GEMM (3x3 and 1x1, 20 input channels: a tail after 16), depthwise and direct
// conv2d paths.
TEST(MutationKillsConv2d, OutOfRangeValueAnywhereInDataOrWeightsIsALogicError) {
  struct Layer {
    Shape data, weights;
    nlohmann::json attrs;
  };
  const std::vector<Layer> layers = {
      {{1, 6, 5, 7}, {5, 6, 3, 3},
       {{"channels", "5"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}}},
      {{1, 20, 3, 5}, {7, 20, 1, 1}, {{"channels", "7"}, {"kernel_size", "(1, 1)"}}},
      {{1, 6, 5, 7}, {6, 1, 3, 3},
       {{"channels", "6"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}, {"groups", "6"}}},
      {{1, 3, 3, 3}, {4, 3, 2, 2},
       {{"channels", "4"}, {"kernel_size", "(2, 2)"}, {"strides", "(50, 50)"}}},
  };
  uint32_t seed = 200;
  for (const Layer& layer : layers) {
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      nlohmann::json attrs = layer.attrs;
      attrs["use_bias"] = "false";
      const std::vector<Tensor> valid = {random_tensor(layer.data, 4, dtype, seed++),
                                         random_tensor(layer.weights, 4, dtype, seed++)};
      expect_agree("conv2d", attrs, valid, "valid values");
      expect_each_bad_position_rejected("conv2d", attrs, valid, 0);
      expect_each_bad_position_rejected("conv2d", attrs, valid, 1);
    }
  }
}

// Depthwise rows wider than 32 outputs: the VNNI strip handles 64 outputs per step as four
// 16-lane vectors whose masks are clamped to [0, 16] lanes; the generators and nn_paths keep
// out_w below 32. Kills optimized/nn_isa_vnni.cc:443:drop_clamp:0.
TEST(MutationKillsConv2d, WideDepthwiseRowsMatchTheReferenceOnEveryIsa) {
  const std::vector<IsaRun> isas = isa_runs();
  uint32_t seed = 300;
  for (int64_t out_w : {31, 32, 33, 40, 47, 48, 63, 64, 65, 80, 130}) {
    for (int64_t stride : {1, 2}) {
      const int64_t width = (out_w - 1) * stride + 1;  // kernel 3, padding 1
      const std::vector<Tensor> inputs = {random_tensor({1, 4, 3, width}, 8, DType::kInt8, seed++),
                                          random_tensor({4, 1, 3, 3}, 8, DType::kInt32, seed++),
                                          random_tensor({4}, 12, DType::kInt32, seed++)};
      const nlohmann::json attrs = {{"channels", "4"}, {"kernel_size", "(3, 3)"},
                                    {"padding", "(1, 1)"}, {"groups", "4"},
                                    {"strides", pair_text(stride, stride)}};
      for (const IsaRun& isa : isas) {
        opt::set_isa_cap(isa.isa, isa.emulated);
        expect_agree("conv2d", attrs, inputs, "out_w " + std::to_string(out_w) + " on " +
                                                  isa.name());
        opt::clear_isa_cap();
      }
    }
  }
}

// Kernels wider than the image plus one side's padding (a dilated kernel of 5 over a row of 1
// or 2 pixels padded by 2): some kernel taps see only padding for every output, the case where
// the generic packing's inside_range must clamp its start to the row length. Without that clamp
// the packing writes pad bytes past the row (an overrun only a sanitizer sees, or the
// std::clamp precondition _GLIBCXX_ASSERTIONS checks): the sanitize mode's kill of
// optimized/nn_generic.h:22:drop_clamp:0. Regular, grouped and depthwise, every ISA.
TEST(MutationKillsConv2d, KernelTapsThatSeeOnlyPaddingMatchTheReferenceOnEveryIsa) {
  struct Layer {
    int64_t channels, height, width, kernel, dilation, pad, stride, groups;
  };
  const std::vector<Layer> layers = {
      {3, 1, 1, 5, 1, 2, 1, 1}, {3, 2, 2, 5, 1, 2, 1, 1}, {4, 1, 2, 3, 2, 2, 1, 2},
      {4, 2, 1, 5, 1, 2, 2, 4}, {6, 3, 1, 3, 3, 3, 1, 6}, {20, 1, 1, 5, 1, 2, 1, 1},
  };
  const std::vector<IsaRun> isas = isa_runs();
  uint32_t seed = 400;
  for (const Layer& l : layers) {
    const int64_t out_channels = l.groups == 1 ? 5 : l.channels;
    for (DType dtype : {DType::kInt8, DType::kInt32}) {
      const std::vector<Tensor> inputs = {
          random_tensor({2, l.channels, l.height, l.width}, 7, dtype, seed++),
          random_tensor({out_channels, l.channels / l.groups, l.kernel, l.kernel}, 7, dtype,
                        seed++)};
      const nlohmann::json attrs = {{"channels", std::to_string(out_channels)},
                                    {"kernel_size", pair_text(l.kernel, l.kernel)},
                                    {"padding", pair_text(l.pad, l.pad)},
                                    {"dilation", pair_text(l.dilation, l.dilation)},
                                    {"strides", pair_text(l.stride, l.stride)},
                                    {"groups", std::to_string(l.groups)},
                                    {"use_bias", "false"}};
      for (const IsaRun& isa : isas) {
        opt::set_isa_cap(isa.isa, isa.emulated);
        expect_agree("conv2d", attrs, inputs, shape_str(inputs[0].shape()) + " on " +
                                                  isa.name());
        opt::clear_isa_cap();
      }
    }
  }
}

// --- dispatch controls ------------------------------------------------------------------------
// The tests that "run every ISA" or "1, 2 and 3 threads" are only as good as the controls they
// use: a cap that is ignored, or a thread count of 0, makes them run one path several times
// and still pass. (The unit mode runs this suite for every optimized/ mutant.)

// Sets an environment variable for one scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Kills optimized/cpu_features.cc:70:relop:0 (a cap of portable ignored).
TEST(MutationKillsDispatch, IsaCapSelectsEachSupportedPath) {
  const ScopedEnv no_env("CVMCHECK_ISA", nullptr);
  for (opt::Isa isa : machine_isas()) {
    opt::set_isa_cap(isa);
    EXPECT_EQ(opt::active_isa(), isa) << opt::isa_name(isa);
  }
  // The highest-ranked cap (AVX-512 VNNI in x86 builds, NEON dot product in aarch64 ones).
  opt::set_isa_cap(static_cast<opt::Isa>(opt::kIsaCount - 1));
  EXPECT_EQ(opt::active_isa(), opt::detected_isa()) << "a cap above the CPU gives the CPU's best";
  opt::clear_isa_cap();
  EXPECT_EQ(opt::active_isa(), opt::detected_isa());
}

// Kills optimized/cpu_features.cc:84:relop:0 (CVMCHECK_ISA parsed wrongly).
TEST(MutationKillsDispatch, IsaVariableCapsByNameAndIgnoresUnknownNames) {
  opt::clear_isa_cap();
  for (opt::Isa isa : machine_isas()) {
    const ScopedEnv env("CVMCHECK_ISA", opt::isa_name(isa));
    EXPECT_EQ(opt::active_isa(), isa) << opt::isa_name(isa);
  }
  const ScopedEnv unknown("CVMCHECK_ISA", "sse9");
  EXPECT_EQ(opt::active_isa(), opt::detected_isa());
}

// Kills optimized/backend.cc:17:relop:0 (no CVMCHECK_THREADS gives 0 threads) and
// backend.cc:30:relop:0 (a count set by set_threads replaced by the default).
TEST(MutationKillsDispatch, ThreadCountIsWhatWasSetOrAPositiveDefault) {
  {
    const ScopedEnv no_env("CVMCHECK_THREADS", nullptr);
    opt::set_threads(0);
    EXPECT_GE(opt::threads(), 1);
  }
  {
    const ScopedEnv env("CVMCHECK_THREADS", "3");
    opt::set_threads(0);
    EXPECT_EQ(opt::threads(), 3);
  }
  for (int n : {1, 2, 5}) {
    opt::set_threads(n);
    EXPECT_EQ(opt::threads(), n);
  }
  opt::set_threads(0);
}

}  // namespace
}  // namespace cvm
