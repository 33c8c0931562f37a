#include "onednn_peer.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace cvm::bench {

using dnnl::memory;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct OneDnnPeer::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive compute;
  dnnl::primitive_desc_base pd;
  memory user_x, user_w, user_y;  // int32, plain layouts, our buffers
  memory w_s8_plain;              // s8, plain layout (the int32 -> s8 conversion)
  memory x, w, y;                 // oneDNN's preferred layouts
  dnnl::reorder to_x, to_w_plain, to_w, from_y;
  bool reorder_y = true;

  void finish(const memory::desc& x_pref, const memory::desc& w_pref, const memory::desc& y_pref,
              const memory::desc& w_plain_s8) {
    x = memory(x_pref, engine);
    w = memory(w_pref, engine);
    reorder_y = y_pref != user_y.get_desc();
    y = reorder_y ? memory(y_pref, engine) : user_y;  // the primitive writes our buffer directly
    w_s8_plain = memory(w_plain_s8, engine);
    to_x = dnnl::reorder(user_x, x);
    to_w_plain = dnnl::reorder(user_w, w_s8_plain);
    to_w = dnnl::reorder(w_s8_plain, w);
    if (reorder_y) from_y = dnnl::reorder(y, user_y);
  }
};

OneDnnPeer::OneDnnPeer(const ConvShape& sh, const int32_t* xp, const int32_t* wp, int32_t* yp)
    : s_(std::make_unique<State>()) {
  const memory::dims x_dims = {sh.n, sh.c, sh.h, sh.w};
  const memory::dims y_dims = {sh.n, sh.oc, sh.out_h(), sh.out_w()};
  memory::dims w_dims = {sh.oc, sh.c, sh.k, sh.k};
  tag w_tag = tag::oihw;
  if (sh.groups > 1) {
    w_dims = {sh.groups, sh.oc / sh.groups, sh.c / sh.groups, sh.k, sh.k};
    w_tag = tag::goihw;
  }
  s_->user_x = memory({x_dims, dt::s32, tag::nchw}, s_->engine, const_cast<int32_t*>(xp));
  s_->user_w = memory({w_dims, dt::s32, w_tag}, s_->engine, const_cast<int32_t*>(wp));
  s_->user_y = memory({y_dims, dt::s32, tag::nchw}, s_->engine, yp);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(x_dims, dt::s8, tag::any), memory::desc(w_dims, dt::s8, tag::any),
      memory::desc(y_dims, dt::s32, tag::any), {sh.stride, sh.stride}, {0, 0}, {sh.pad, sh.pad},
      {sh.pad, sh.pad});
  const dnnl::convolution_forward::primitive_desc pd(desc, s_->engine);
  s_->pd = pd;
  s_->compute = dnnl::convolution_forward(pd);
  s_->finish(pd.src_desc(), pd.weights_desc(), pd.dst_desc(), {w_dims, dt::s8, w_tag});
  // Weights reordered once for run_primitive.
  run_end_to_end();
}

OneDnnPeer::OneDnnPeer(const DenseShape& sh, const int32_t* xp, const int32_t* wp, int32_t* yp)
    : s_(std::make_unique<State>()) {
  const memory::dims x_dims = {sh.m, sh.k}, w_dims = {sh.units, sh.k}, y_dims = {sh.m, sh.units};
  s_->user_x = memory({x_dims, dt::s32, tag::nc}, s_->engine, const_cast<int32_t*>(xp));
  s_->user_w = memory({w_dims, dt::s32, tag::oi}, s_->engine, const_cast<int32_t*>(wp));
  s_->user_y = memory({y_dims, dt::s32, tag::nc}, s_->engine, yp);
  const dnnl::inner_product_forward::desc desc(
      dnnl::prop_kind::forward_inference, memory::desc(x_dims, dt::s8, tag::any),
      memory::desc(w_dims, dt::s8, tag::any), memory::desc(y_dims, dt::s32, tag::any));
  const dnnl::inner_product_forward::primitive_desc pd(desc, s_->engine);
  s_->pd = pd;
  s_->compute = dnnl::inner_product_forward(pd);
  s_->finish(pd.src_desc(), pd.weights_desc(), pd.dst_desc(), {w_dims, dt::s8, tag::oi});
  run_end_to_end();
}

OneDnnPeer::~OneDnnPeer() = default;

void OneDnnPeer::run_end_to_end() {
  State& s = *s_;
  s.to_x.execute(s.stream, s.user_x, s.x);
  s.to_w_plain.execute(s.stream, s.user_w, s.w_s8_plain);
  s.to_w.execute(s.stream, s.w_s8_plain, s.w);
  run_primitive();
  if (s.reorder_y) s.from_y.execute(s.stream, s.y, s.user_y);
  s.stream.wait();
}

void OneDnnPeer::run_primitive() {
  State& s = *s_;
  s.compute.execute(s.stream, {{DNNL_ARG_SRC, s.x}, {DNNL_ARG_WEIGHTS, s.w}, {DNNL_ARG_DST, s.y}});
  s.stream.wait();
}

std::string OneDnnPeer::implementation() const { return s_->pd.impl_info_str(); }

}  // namespace cvm::bench
