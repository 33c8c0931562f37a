#include "harness/graph/graph_params.h"

#include <cstring>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"

namespace cvm::graph {
namespace {

constexpr int32_t kDeviceCpu = 1;
constexpr uint8_t kTypeInt = 0;

// Little-endian fields, whatever the host's byte order.
template <typename T>
void put(std::string& out, T value) {
  auto u = static_cast<std::make_unsigned_t<T>>(value);
  for (size_t i = 0; i < sizeof(T); ++i) {
    out += static_cast<char>(u & 0xff);
    u = static_cast<decltype(u)>(u >> 8);
  }
}

void put_tensor(std::string& out, const Tensor& t) {
  put<uint64_t>(out, kArrayMagic);
  put<uint64_t>(out, 0);
  put<int32_t>(out, kDeviceCpu);
  put<int32_t>(out, 0);
  put<int32_t>(out, t.ndim());
  put<uint8_t>(out, kTypeInt);
  put<uint8_t>(out, t.dtype() == DType::kInt8 ? 8 : 32);
  put<uint16_t>(out, 1);
  for (int64_t d : t.shape()) put<int64_t>(out, d);
  const int64_t bytes = t.size() * (t.dtype() == DType::kInt8 ? 1 : 4);
  put<int64_t>(out, bytes);
  if (t.dtype() == DType::kInt8) {
    out.append(reinterpret_cast<const char*>(t.i8()), static_cast<size_t>(t.size()));
  } else {
    for (int64_t i = 0; i < t.size(); ++i) put<int32_t>(out, t.i32()[i]);
  }
}

[[noreturn]] void fail_params(const std::string& what) {
  throw LogicError("params: " + what, "graph.params_format");
}

// Reads fields off the blob; running past its end is a bad model.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}

  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    std::make_unsigned_t<T> u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      u = static_cast<decltype(u)>(u | static_cast<decltype(u)>(
                                           static_cast<unsigned char>(bytes_[pos_ + i]))
                                           << (8 * i));
    }
    pos_ += sizeof(T);
    return static_cast<T>(u);
  }
  std::string take(uint64_t n, const char* what) {
    need(n, what);
    std::string s = bytes_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }

 private:
  void need(uint64_t n, const char* what) {
    if (n > bytes_.size() - pos_) fail_params(std::string("truncated at ") + what);
  }

  const std::string& bytes_;
  size_t pos_ = 0;
};

Tensor get_tensor(Reader& r, size_t k) {
  const std::string at = "array " + std::to_string(k);
  if (r.get<uint64_t>("an array's magic") != kArrayMagic) fail_params(at + ": bad magic");
  r.get<uint64_t>("an array's reserved field");
  const auto device = r.get<int32_t>("an array's device type");
  r.get<int32_t>("an array's device id");
  if (device != kDeviceCpu) fail_params(at + ": device type " + std::to_string(device) + " (1: cpu)");
  const auto ndim = r.get<int32_t>("an array's ndim");
  const auto code = r.get<uint8_t>("an array's type code");
  const auto bits = r.get<uint8_t>("an array's bits");
  const auto lanes = r.get<uint16_t>("an array's lanes");
  if (code != kTypeInt || (bits != 8 && bits != 32) || lanes != 1) {
    fail_params(at + ": type (" + std::to_string(code) + ", " + std::to_string(bits) + ", " +
                 std::to_string(lanes) + "), not int8 or int32");
  }
  if (ndim < 1 || ndim > kMaxNdim) fail_params(at + ": ndim " + std::to_string(ndim));
  Shape shape;
  for (int i = 0; i < ndim; ++i) shape.push_back(r.get<int64_t>("an array's shape"));
  validate_shape(shape, "params " + at);
  const int64_t bytes = r.get<int64_t>("an array's byte count");
  const int64_t width = bits / 8;
  if (bytes != shape_size(shape) * width) fail_params(at + ": byte count does not match its shape");
  const std::string data = r.take(static_cast<uint64_t>(bytes), "an array's data");
  const DType dtype = bits == 8 ? DType::kInt8 : DType::kInt32;
  Tensor t = Tensor::zeros(dtype, shape, kMaxPrecision);
  if (dtype == DType::kInt8) {
    std::memcpy(t.i8(), data.data(), data.size());
  } else {
    for (int64_t i = 0; i < t.size(); ++i) {
      uint32_t u = 0;
      for (int b = 0; b < 4; ++b) u |= uint32_t{static_cast<unsigned char>(data[4 * i + b])} << (8 * b);
      t.set(i, static_cast<int32_t>(u));
    }
  }
  return t;
}

}  // namespace

std::string write_params(const std::vector<NamedTensor>& params) {
  std::string out;
  put<uint64_t>(out, kParamsMagic);
  put<uint64_t>(out, 0);
  put<uint64_t>(out, params.size());
  for (const auto& p : params) {
    put<uint64_t>(out, p.first.size());
    out += p.first;
  }
  put<uint64_t>(out, params.size());
  for (const auto& p : params) put_tensor(out, p.second);
  return out;
}

std::vector<NamedTensor> parse_params(const std::string& bytes) {
  Reader r(bytes);
  if (r.get<uint64_t>("the magic") != kParamsMagic) fail_params("bad magic");
  r.get<uint64_t>("the reserved field");
  const auto names = r.get<uint64_t>("the name count");
  std::vector<std::string> name_list;
  for (uint64_t i = 0; i < names; ++i) {
    const auto length = r.get<uint64_t>("a name's length");
    name_list.push_back(r.take(length, "a name"));
  }
  if (r.get<uint64_t>("the array count") != names) fail_params("array count differs from name count");
  std::vector<NamedTensor> out;
  for (size_t k = 0; k < name_list.size(); ++k) out.emplace_back(name_list[k], get_tensor(r, k));
  return out;
}

}  // namespace cvm::graph
