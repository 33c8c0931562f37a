#include "harness/mrt/mrt_check.h"

#include <sstream>

#include "cvmcheck/errors.h"
#include "harness/gen/generators.h"

namespace cvm::mrt {
namespace {

using rc::gen::inRange;

// One offset per channel, or one shared by every channel (layer-wise).
std::vector<int64_t> per_channel(int64_t channels, bool channel_wise, int p) {
  const auto as_int64 = [](int32_t v) { return int64_t{v}; };
  const rc::Gen<int64_t> one = rc::gen::map(gen::value(p), as_int64);
  if (channel_wise) {
    return *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(channels), one);
  }
  const int64_t shared = *one;
  return std::vector<int64_t>(static_cast<size_t>(channels), shared);
}

std::vector<int64_t> multipliers(int64_t channels, bool channel_wise) {
  if (!channel_wise) return std::vector<int64_t>(static_cast<size_t>(channels), 1);
  return *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(channels),
                                                   inRange<int64_t>(1, 4));
}

// Offsets of zero-point buffers and merge multipliers, common to every family. Offsets of
// precision 8 keep the folded constants of conv2d/dense within int32 and the expansion's
// inferred precisions within 32.
void draw_offsets(IdentityCase& c, int offset_precision) {
  const bool channel_wise = c.scheme.granularity == Granularity::kChannel;
  const int64_t channels = c.channels();
  if (c.scheme.x_zero_point) c.zx = per_channel(channels, channel_wise, offset_precision);
  if (c.scheme.w_zero_point) c.zw = per_channel(channels, channel_wise, offset_precision);
  c.multipliers = multipliers(channels, channel_wise);
}

IdentityCase conv2d_case(const Scheme& s) {
  IdentityCase c;
  c.scheme = s;
  const int64_t n = *inRange<int64_t>(1, 3);
  const int64_t channels = *inRange<int64_t>(1, 5);
  const int64_t out_ch = *inRange<int64_t>(1, 5);
  const int64_t kh = *inRange<int64_t>(1, 4);
  const int64_t kw = *inRange<int64_t>(1, 4);
  const int64_t dh = *inRange<int64_t>(1, 3);
  const int64_t dw = *inRange<int64_t>(1, 3);
  const int64_t sh = *inRange<int64_t>(1, 4);
  const int64_t sw = *inRange<int64_t>(1, 4);
  const int64_t extra_h = *inRange<int64_t>(0, 5);
  const int64_t extra_w = *inRange<int64_t>(0, 5);
  const int px = *gen::precision(2, 8);
  const int pw = *gen::precision(2, 8);
  c.strides = {sh, sw};
  c.dilation = {dh, dw};
  c.xq = *gen::tensor_any_dtype({n, channels, dh * (kh - 1) + 1 + extra_h,
                                 dw * (kw - 1) + 1 + extra_w}, px);
  c.wq = *gen::tensor_any_dtype({out_ch, channels, kh, kw}, pw);
  draw_offsets(c, 8);
  return c;
}

IdentityCase dense_case(const Scheme& s) {
  IdentityCase c;
  c.scheme = s;
  const int64_t rows = *inRange<int64_t>(1, 5);
  const int64_t depth = *inRange<int64_t>(1, 7);
  const int64_t units = *inRange<int64_t>(1, 6);
  const int px = *gen::precision(2, 8);
  const int pw = *gen::precision(2, 8);
  c.xq = *gen::tensor_any_dtype({rows, depth}, px);
  c.wq = *gen::tensor_any_dtype({units, depth}, pw);
  draw_offsets(c, 8);
  return c;
}

IdentityCase pad_case(const Scheme& s) {
  IdentityCase c;
  c.scheme = s;
  const int64_t n = *inRange<int64_t>(1, 3);
  const int64_t channels = *inRange<int64_t>(1, 5);
  const int64_t h = *inRange<int64_t>(1, 6);
  const int64_t w = *inRange<int64_t>(1, 6);
  const int64_t ph1 = *inRange<int64_t>(0, 4);
  const int64_t ph2 = *inRange<int64_t>(0, 4);
  const int64_t pw1 = *inRange<int64_t>(0, 4);
  const int64_t pw2 = *inRange<int64_t>(0, 4);
  const int px = *gen::precision(1, 24);
  c.padding = {ph1, ph2, pw1, pw2};
  c.xq = *gen::tensor_any_dtype({n, channels, h, w}, px);
  draw_offsets(c, 21);
  c.pad_constants =
      per_channel(channels, s.granularity == Granularity::kChannel, 21);
  return c;
}

IdentityCase relu_case(const Scheme& s) {
  IdentityCase c;
  c.scheme = s;
  const Shape shape = *gen::shape(2, 4, 5, 256);
  const int px = *gen::precision(1, 24);
  c.xq = *gen::tensor_any_dtype(shape, px);
  draw_offsets(c, 21);
  return c;
}

IdentityCase max_pool2d_case(const Scheme& s) {
  IdentityCase c;
  c.scheme = s;
  const int64_t n = *inRange<int64_t>(1, 3);
  const int64_t channels = *inRange<int64_t>(1, 5);
  const int64_t kh = *inRange<int64_t>(1, 4);
  const int64_t kw = *inRange<int64_t>(1, 4);
  const int64_t sh = *inRange<int64_t>(1, 4);
  const int64_t sw = *inRange<int64_t>(1, 4);
  // Padding beforehand smaller than the window, so every window holds an image element.
  const int64_t ph = *inRange<int64_t>(0, kh);
  const int64_t pw = *inRange<int64_t>(0, kw);
  const int64_t extra_h = *inRange<int64_t>(0, 5);
  const int64_t extra_w = *inRange<int64_t>(0, 5);
  const int px = *gen::precision(1, 24);
  c.pool = {kh, kw};
  c.strides = {sh, sw};
  c.padding = {ph, ph, pw, pw};
  const int64_t h = std::max<int64_t>(1, kh - 2 * ph) + extra_h;
  const int64_t w = std::max<int64_t>(1, kw - 2 * pw) + extra_w;
  c.xq = *gen::tensor_any_dtype({n, channels, h, w}, px);
  draw_offsets(c, 21);
  return c;
}

template <typename T>
std::string list_text(const T& values) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << "]";
  return out.str();
}

}  // namespace

rc::Gen<IdentityCase> identity_case(const Scheme& scheme) {
  return rc::gen::exec([scheme] {
    switch (scheme.family) {
      case Family::kConv2d: return conv2d_case(scheme);
      case Family::kDense: return dense_case(scheme);
      case Family::kPad: return pad_case(scheme);
      case Family::kRelu: return relu_case(scheme);
      case Family::kMaxPool2d: return max_pool2d_case(scheme);
    }
    return IdentityCase{};
  });
}

std::string skip_reason(const Backend& backend, const Scheme& scheme) {
  if (!backend.available) return "unavailable: " + backend.unavailable_reason;
  for (const std::string& op : expansion_ops(scheme)) {
    if (!backend.implements(op)) return "does not implement " + op;
  }
  return "";
}

std::string describe(const IdentityCase& c) {
  std::ostringstream out;
  out << scheme_name(c.scheme) << ": xq " << shape_str(c.xq.shape()) << " p" << c.xq.precision()
      << " " << dtype_name(c.xq.dtype());
  if (c.xq.size() <= 64) out << " " << list_text(c.xq.values());
  if (has_weights(c.scheme.family)) {
    out << "; wq " << shape_str(c.wq.shape()) << " p" << c.wq.precision();
    if (c.wq.size() <= 64) out << " " << list_text(c.wq.values());
  }
  if (!c.zx.empty()) out << "; zx " << list_text(c.zx);
  if (!c.zw.empty()) out << "; zw " << list_text(c.zw);
  if (!c.pad_constants.empty()) out << "; pad constants " << list_text(c.pad_constants);
  out << "; multipliers " << list_text(c.multipliers) << "; strides " << list_text(c.strides)
      << "; dilation " << list_text(c.dilation) << "; pool " << list_text(c.pool)
      << "; padding " << list_text(c.padding);
  return out.str();
}

std::optional<std::string> check_identity(const Registry& registry, const IdentityCase& c,
                                          const std::string& backend, PlantedBug bug) {
  const Int64Tensor expected = direct(c);
  Tensor actual;
  try {
    actual = expand(c, ExpansionRun{registry, backend, nullptr, bug});
  } catch (const std::exception& e) {
    return std::string("expansion failed on ") + backend + ": " + e.what() + "\n  case: " +
           describe(c);
  }
  if (actual.shape() != expected.shape) {
    return "shape " + shape_str(actual.shape()) + " from the expansion on " + backend +
           ", direct formula " + shape_str(expected.shape) + "\n  case: " + describe(c);
  }
  for (int64_t i = 0; i < actual.size(); ++i) {
    if (actual.get(i) != expected.values[static_cast<size_t>(i)]) {
      return concat("value at flat index ", i, ": expansion on ", backend, " gives ",
                    actual.get(i), ", direct formula ", expected.values[static_cast<size_t>(i)],
                    "\n  case: ", describe(c));
    }
  }
  return std::nullopt;
}

}  // namespace cvm::mrt
