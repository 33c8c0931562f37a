#include "cvmcheck/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/precision.h"

namespace cvm {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kMaxHeaderSize = 1 << 16;  // numpy itself limits headers to this order

// Malformed bytes: an NpyFormatError (a damaged file), never a plain bad input.
template <typename... Parts>
void format_check(bool condition, const Parts&... parts) {
  if (!condition) throw NpyFormatError(concat(parts...));
}
template <typename... Parts>
[[noreturn]] void format_fail(const Parts&... parts) {
  throw NpyFormatError(concat(parts...));
}

// A tiny parser for the header's Python dict literal, e.g.
// {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : text_(text) {}

  void parse(std::string& descr, bool& fortran, Shape& shape) {
    bool has_descr = false, has_fortran = false, has_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        format_check(!has_descr, "npy header repeats 'descr'");
        descr = quoted();
        has_descr = true;
      } else if (key == "fortran_order") {
        format_check(!has_fortran, "npy header repeats 'fortran_order'");
        fortran = boolean();
        has_fortran = true;
      } else if (key == "shape") {
        format_check(!has_shape, "npy header repeats 'shape'");
        shape = tuple();
        has_shape = true;
      } else {
        format_fail("npy header has unknown key '", key, "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      format_check(peek() == '}', "npy header: expected ',' or '}'");
    }
    expect('}');
    skip_space();
    format_check(pos_ == text_.size(), "npy header has trailing characters");
    format_check(has_descr && has_fortran && has_shape,
           "npy header must give 'descr', 'fortran_order' and 'shape'");
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    format_check(peek() == c, "npy header: expected '", c, "' at offset ", pos_);
    ++pos_;
  }
  std::string quoted() {
    skip_space();
    const char q = peek();
    format_check(q == '\'' || q == '"', "npy header: expected a quoted string at offset ", pos_);
    const size_t end = text_.find(q, pos_ + 1);
    format_check(end != std::string::npos, "npy header: unterminated string");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    format_fail("npy header: fortran_order must be True or False");
  }
  // (), (3,), (2, 3): non-negative decimal entries; capped so no arithmetic can overflow.
  Shape tuple() {
    expect('(');
    Shape shape;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      format_check(peek() >= '0' && peek() <= '9', "npy header: malformed shape");
      int64_t dim = 0;
      while (peek() >= '0' && peek() <= '9') {
        dim = dim * 10 + (text_[pos_++] - '0');
        format_check(dim <= (int64_t{1} << 40), "npy header: shape entry too large");
      }
      shape.push_back(dim);
      format_check(shape.size() <= 64, "npy header: too many dims");
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      format_check(peek() == ')', "npy header: malformed shape");
    }
    expect(')');
    return shape;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

Tensor parse_npy(const std::string& bytes, int precision) {
  format_check(
      bytes.size() >= kMagicSize + 2 && std::memcmp(bytes.data(), kMagic, kMagicSize) == 0,
         "not an .npy file (bad magic)");
  const auto major = static_cast<uint8_t>(bytes[6]);
  const auto minor = static_cast<uint8_t>(bytes[7]);
  format_check((major == 1 || major == 2) && minor == 0, "unsupported .npy format version ",
         int{major}, ".", int{minor}, " (1.0 and 2.0 are supported)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicSize + 2 + len_bytes;
  format_check(bytes.size() >= prefix, "truncated .npy header");
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) {
    header_len |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
  }
  format_check(header_len <= kMaxHeaderSize, ".npy header length ", header_len, " is too large");
  format_check(bytes.size() >= prefix + header_len, "truncated .npy header");
  std::string header = bytes.substr(prefix, header_len);
  // The header ends with a newline and may be padded with spaces before it.
  while (!header.empty() && (header.back() == '\n' || header.back() == ' ')) header.pop_back();

  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderParser(header).parse(descr, fortran, shape);
  DType dtype;
  size_t item_size;
  if (descr == "|i1") {
    dtype = DType::kInt8;
    item_size = 1;
  } else if (descr == "<i4") {
    dtype = DType::kInt32;
    item_size = 4;
  } else {
    format_fail("unsupported .npy dtype '", descr, "' (only '|i1' and '<i4')");
  }
  format_check(!fortran, "unsupported .npy layout: fortran_order is True (only C order)");
  validate_shape(shape, ".npy array");  // before any allocation of that size
  const auto count = static_cast<size_t>(shape_size(shape));
  const size_t data_size = bytes.size() - prefix - header_len;
  format_check(data_size == count * item_size, ".npy data has ", data_size, " bytes; shape ",
         shape_str(shape), " needs ", count * item_size);

  Tensor tensor = Tensor::zeros(dtype, shape, precision);
  const char* data = bytes.data() + prefix + header_len;
  if (dtype == DType::kInt8) {
    std::memcpy(tensor.i8(), data, count);
  } else {
    for (size_t i = 0; i < count; ++i) {
      const auto* b = reinterpret_cast<const uint8_t*>(data + 4 * i);
      const uint32_t u = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 |
                         uint32_t{b[3]} << 24;
      int32_t v;
      std::memcpy(&v, &u, 4);
      tensor.i32()[i] = v;
    }
  }
  return tensor;
}

Tensor read_npy(const std::string& path, int precision) {
  std::ifstream in(path, std::ios::binary);
  verify(in.good(), "cannot open '", path, "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  try {
    return parse_npy(buffer.str(), precision);
  } catch (const NpyFormatError& e) {
    throw NpyFormatError(concat(path, ": ", e.what()));
  } catch (const LogicError& e) {
    throw LogicError(concat(path, ": ", e.what()), e.rule());
  }
}

std::string to_npy(const Tensor& tensor) {
  std::ostringstream dict;
  dict << "{'descr': '" << (tensor.dtype() == DType::kInt8 ? "|i1" : "<i4")
       << "', 'fortran_order': False, 'shape': " << shape_str(tensor.shape()) << ", }";
  std::string header = dict.str();
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  if (tensor.dtype() == DType::kInt8) {
    out.append(reinterpret_cast<const char*>(tensor.i8()), static_cast<size_t>(tensor.size()));
  } else {
    for (int64_t i = 0; i < tensor.size(); ++i) {
      uint32_t u;
      const int32_t v = tensor.i32()[i];
      std::memcpy(&u, &v, 4);
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
    }
  }
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  std::ofstream out(path, std::ios::binary);
  const std::string bytes = to_npy(tensor);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  check(out.good(), "cannot write '", path, "'");
}

}  // namespace cvm
