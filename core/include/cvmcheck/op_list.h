// The family list and the operator list: every family and every operator cvmcheck knows, in one
// place. Everything else is derived from it or checked against it by tests/completeness_test.cc,
// which fails (never skips) when a listed operator lacks any of: its record (ops/<family>.cc),
// worked and negative examples, a generator record with its rules
// (harness/gen/<family>_gen.cc), a kernel on every backend (unless kKernelExemptions says why
// not), its section in docs/ops/<family>.md, corpus seeds and golden cases. Derived from it: each
// layer's family table (ops/all.cc, harness/gen/generator_table.cc, reference/backend.cc,
// optimized/backend.cc, cuda/plan.cc), `cvmcheck ops --json`, and core/op_list.json (written by
// `cvmcheck ops --list-json`, checked by the completeness test), which CMake, the scripts and
// the cvm-runtime worker read.
//
// Adding an operator: one X(...) line here, its record and generator record, its kernels, its
// docs section; then regenerate core/op_list.json, golden/ and the corpus seeds
// (docs/architecture.md). The macros need no C++20 and define nothing else, for the cvm-runtime
// worker (C++17).
#pragma once

#include <array>
#include <string_view>

// X(family), in list order: each family is a record file pair, a kernel file per backend, a docs
// page and a fuzz target.
#define CVMCHECK_FAMILIES(X) \
  X(reduce)                  \
  X(broadcast)               \
  X(elementwise)             \
  X(nn)                      \
  X(transform_shape)         \
  X(transform_index)         \
  X(vision)                  \
  X(ov)

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

#define CVMCHECK_FAMILY_NAME(family) std::string_view(#family),
inline constexpr std::array kFamilies = {CVMCHECK_FAMILIES(CVMCHECK_FAMILY_NAME)};
#undef CVMCHECK_FAMILY_NAME

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
