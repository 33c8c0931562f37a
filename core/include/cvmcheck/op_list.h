// The operator list: every operator cvmcheck knows, with its family, in one place. Everything
// else is derived from it or checked against it by tests/completeness_test.cc, which fails (never
// skips) when a listed operator lacks any of: its record (ops/<family>.cc), worked and negative
// examples, a generator record with its rules (harness/gen/<family>_gen.cc), a kernel on every backend
// (unless kKernelExemptions says why not), its section in docs/ops/<family>.md, corpus seeds and
// golden cases. Derived from it: the CUDA plan table (cuda/plan.cc), the fuzz targets (one per
// family: fuzz/CMakeLists.txt and ci/fuzz-targets.sh read this file), `cvmcheck ops --json`
// (which the Python tools read).
//
// Adding an operator: one X(...) line here, its record and generator record, its kernels, its
// docs section; then regenerate golden/ and the corpus seeds (docs/architecture.md).
#pragma once

#include <array>
#include <string_view>

// X(name, family), in the order the records are registered (campaign and golden order).
#define CVMCHECK_OPERATORS(X)       \
  X(sum, reduce)                    \
  X(max, reduce)                    \
  X(broadcast_add, broadcast)       \
  X(broadcast_sub, broadcast)       \
  X(broadcast_mul, broadcast)       \
  X(broadcast_div, broadcast)       \
  X(broadcast_max, broadcast)       \
  X(broadcast_greater, broadcast)   \
  X(abs, elementwise)               \
  X(cvm_precision, elementwise)     \
  X(elemwise_add, elementwise)      \
  X(elemwise_sub, elementwise)      \
  X(negative, elementwise)          \
  X(clip, elementwise)              \
  X(cvm_clip, elementwise)          \
  X(cvm_right_shift, elementwise)   \
  X(cvm_left_shift, elementwise)    \
  X(conv2d, nn)                     \
  X(dense, nn)                      \
  X(relu, nn)                       \
  X(max_pool2d, nn)                 \
  X(upsampling, nn)                 \
  X(repeat, transform_shape)        \
  X(tile, transform_shape)          \
  X(flatten, transform_shape)       \
  X(concatenate, transform_shape)   \
  X(expand_dims, transform_shape)   \
  X(reshape, transform_shape)       \
  X(squeeze, transform_shape)       \
  X(transpose, transform_shape)     \
  X(strided_slice, transform_index) \
  X(take, transform_index)          \
  X(cvm_lut, transform_index)       \
  X(slice_like, transform_index)    \
  X(where, transform_index)         \
  X(pad, transform_index)           \
  X(get_valid_counts, vision)       \
  X(non_max_suppression, vision)    \
  X(ov_strided_slice, ov)

namespace cvm {

struct ListedOp {
  std::string_view name;
  std::string_view family;
};

#define CVMCHECK_LISTED_OP(name, family) ListedOp{#name, #family},
inline constexpr std::array kOperatorList = {CVMCHECK_OPERATORS(CVMCHECK_LISTED_OP)};
#undef CVMCHECK_LISTED_OP

// The families, in list order; each is a record file pair, a docs page and a fuzz target.
inline constexpr std::array<std::string_view, 8> kFamilies = {
    "reduce", "broadcast", "elementwise", "nn", "transform_shape", "transform_index", "vision",
    "ov"};

// A backend that deliberately lacks an operator's kernel says so here, with why; the
// completeness test fails on any other missing kernel. (Planted-bug backends implement one
// operator each by design and are not checked.)
struct KernelExemption {
  std::string_view backend, op, why;
};
inline constexpr std::array<KernelExemption, 0> kKernelExemptions = {};

// The listed family of `name`, or empty when it is not listed.
constexpr std::string_view listed_family(std::string_view name) {
  for (const ListedOp& op : kOperatorList) {
    if (op.name == name) return op.family;
  }
  return {};
}

}  // namespace cvm
