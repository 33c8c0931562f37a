#include "onednn_common.h"

#include <cstdio>
#include <set>

#include "cvmcheck/paths.h"

namespace cvm::onednn {
namespace {
thread_local uint64_t g_call_id = 0;
}  // namespace

dnnl::engine& engine() {
  static dnnl::engine instance(dnnl::engine::kind::cpu, 0);
  return instance;
}

dnnl::stream& stream() {
  static dnnl::stream instance(engine());
  return instance;
}

std::vector<int8_t> to_s8(const Tensor& t) {
  std::vector<int8_t> out(static_cast<size_t>(t.size()));
  if (t.dtype() == DType::kInt8) {
    std::copy(t.i8(), t.i8() + t.size(), out.begin());
  } else {
    for (int64_t i = 0; i < t.size(); ++i) out[static_cast<size_t>(i)] = static_cast<int8_t>(t.i32()[i]);
  }
  return out;
}

std::vector<int32_t> to_s32(const Tensor& t) {
  if (t.dtype() == DType::kInt32) return std::vector<int32_t>(t.i32(), t.i32() + t.size());
  return std::vector<int32_t>(t.i8(), t.i8() + t.size());
}

dnnl::memory::dims dims_of(const Shape& shape) {
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::format_tag plain_tag(size_t ndim) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
  return tags[ndim - 1];
}

void set_call_id(uint64_t id) { g_call_id = id; }

void report_impl(const std::string& op, const dnnl::primitive_desc_base& pd) {
  // The implementation is the call's kernel path (docs/paths.md): "onednn.<op>.<impl>", which
  // the worker protocol's path field carries to the campaign's counts. The log names each
  // path once, with the first call that took it: a night's log stays bounded.
  const std::string id = "onednn." + op + "." + pd.impl_info_str();
  static std::set<std::string> logged;
  paths::hit(paths::define(id.c_str(), op.c_str(), pd.impl_info_str()));
  if (logged.insert(id).second) {
    std::fprintf(stderr, "onednn-worker: call %llu %s: %s (first call of this implementation)\n",
                 static_cast<unsigned long long>(g_call_id), op.c_str(), pd.impl_info_str());
  }
}

}  // namespace cvm::onednn
