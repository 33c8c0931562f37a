// The MRT expansion identities (the MRT formalization, docs/mrt.md): for each operator and input scheme,
//   (a) the direct formula of the quantized operator, as naive loops in int64, and
//   (b) the expansion exactly as the seed writes it, a graph of registered operators run
//       through the registry on a chosen backend,
// which must agree exactly. Zero-point terms use the seed's sign: the expansion adds an offset
// z to the buffer, z = -zp for a buffer quantized by the seed's table (decision Z1).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/registry.h"
#include "cvmcheck/tensor.h"

namespace cvm::mrt {

enum class Family { kConv2d, kDense, kPad, kRelu, kMaxPool2d };
enum class Granularity { kLayer, kChannel };

struct Scheme {
  Family family = Family::kConv2d;
  Granularity granularity = Granularity::kLayer;
  bool x_zero_point = false;
  bool w_zero_point = false;  // conv2d and dense only
};

const char* family_name(Family family);
// e.g. "conv2d_channel_xzp_wsym", "relu_layer_xsym"
std::string scheme_name(const Scheme& scheme);
// Every identity: conv2d and dense with 4 input schemes, pad/relu/max_pool2d with 2, each
// layer-wise and channel-wise (28).
std::vector<Scheme> all_schemes();
// The registered operators the scheme's expansion may call.
std::vector<std::string> expansion_ops(const Scheme& scheme);
bool has_weights(Family family);

// One instance of an identity. Per-channel vectors have one entry per channel of axis 1 of
// xq (conv2d/pad/relu/pool: C; dense: K); a layer-wise case has all entries equal and
// multipliers all 1, so the direct formula is one function for both granularities.
struct IdentityCase {
  Scheme scheme;
  Tensor xq;                           // quantized input buffer, channel axis 1
  Tensor wq;                           // conv2d (O, C, KH, KW) or dense (M, K) weights
  std::vector<int64_t> zx, zw;         // zero-point offsets (used when the scheme has them)
  std::vector<int64_t> multipliers;    // channel lazy merge multipliers
  std::vector<int64_t> pad_constants;  // pad: round(PV * sc_x) (per channel)
  std::array<int64_t, 2> strides{1, 1};   // conv2d, max_pool2d
  std::array<int64_t, 2> dilation{1, 1};  // conv2d
  std::array<int64_t, 2> pool{1, 1};      // max_pool2d kernel (KH, KW)
  std::array<int64_t, 4> padding{0, 0, 0, 0};  // (PH1, PH2, PW1, PW2); pool: padding beforehand
  int64_t channels() const { return xq.dim(1); }
};

struct Int64Tensor {
  Shape shape;
  std::vector<int64_t> values;
};

// (a) The direct formula (naive loops, int64).
Int64Tensor direct(const IdentityCase& c);

// Wrong expansions, each a realistic slip, to prove the checks can fail.
enum class PlantedBug {
  kNone,
  kConvDropZpProduct,    // conv2d zp/zp: C2 without the C*KH*KW*zx*zw term
  kDenseDropXSum,        // dense, zero-point W: the zw * sum(Xq) term dropped
  kPadZpAfterPad,        // pad, zero-point X: pad(Xq) + C (the border gets zx too)
  kReluZpAfterRelu,      // relu, zero-point X: relu(Xq) + C
  kPoolPadWithZero,      // max_pool2d: padding beforehand with 0 instead of the lowest value
  kMergeDropMultiplier,  // channel-wise: lazy merge without the multipliers
};
const char* planted_bug_name(PlantedBug bug);
std::vector<PlantedBug> all_planted_bugs();  // every bug except kNone
Family planted_bug_family(PlantedBug bug);

// One operator call of an expansion, as data (golden fixtures write each as a case).
struct ExpansionStep {
  std::string op;
  nlohmann::json attrs;
  std::vector<Tensor> inputs;
  Tensor output;
  std::string label;  // what the step is in the seed's formula
};

struct ExpansionRun {
  const Registry& registry;
  std::string backend;
  std::vector<ExpansionStep>* trace = nullptr;  // filled when given
  PlantedBug bug = PlantedBug::kNone;
};

// (b) The expansion. RuntimeError naming the step when an operator call does not succeed
// (an expansion whose inputs break an operator's contract is a bug of the generator).
Tensor expand(const IdentityCase& c, const ExpansionRun& run);

// A constant tensor (a folded parameter such as C) with the smallest precision holding it.
Tensor constant_tensor(const Shape& shape, const std::vector<int64_t>& values);

}  // namespace cvm::mrt
