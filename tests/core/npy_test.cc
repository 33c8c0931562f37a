#include <gtest/gtest.h>

#include <cstring>

#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"

namespace cvm {
namespace {

// Builds .npy bytes by hand so tests do not depend on the writer under test.
std::string npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t unpadded = 8 + len_bytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (size_t i = 0; i < len_bytes; ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string le32(std::initializer_list<int32_t> values) {
  std::string out;
  for (int32_t v : values) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
  }
  return out;
}

TEST(Npy, ReadsInt32Version1) {
  const Tensor t = parse_npy(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", le32({1, -2, 3, INT32_MIN})), 32);
  EXPECT_EQ(t.dtype(), DType::kInt32);
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(t.values(), (std::vector<int32_t>{1, -2, 3, INT32_MIN}));
  EXPECT_EQ(t.precision(), 32);
}

TEST(Npy, ReadsInt8Version2AndKeyOrder) {
  const Tensor t = parse_npy(
      npy("{'shape': (3,), 'fortran_order': False, 'descr': '|i1'}", std::string("\x01\xff\x80", 3), 2), 8);
  EXPECT_EQ(t.dtype(), DType::kInt8);
  EXPECT_EQ(t.values(), (std::vector<int32_t>{1, -1, -128}));
}

TEST(Npy, WriterRoundTripsAndAlignsTo64) {
  for (DType dtype : {DType::kInt8, DType::kInt32}) {
    const Tensor t = Tensor::from_values({2, 1, 3}, {1, -2, 3, -4, 5, -6}, 7, dtype);
    const std::string bytes = to_npy(t);
    const size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
    EXPECT_EQ((10 + header_len) % 64, 0u);
    EXPECT_TRUE(parse_npy(bytes, 7).identical(t));
  }
}

TEST(Npy, RejectsMalformedOrUnsupportedFiles) {
  const std::string ok_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data = le32({1, 2});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty", ""},
      {"bad magic", "\x93NUMPX\x01\x00"},
      {"truncated prefix", std::string("\x93NUMPY\x01", 7)},
      {"version 3", npy(ok_dict, data, 3)},
      {"header length beyond file", npy(ok_dict, data).substr(0, 20)},
      {"float dtype", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data)},
      {"big-endian int32", npy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", data)},
      {"int64", npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", data)},
      {"fortran order", npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", data)},
      {"missing shape", npy("{'descr': '<i4', 'fortran_order': False, }", data)},
      {"unknown key", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data)},
      {"repeated key", npy("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", data)},
      {"negative dim", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }", data)},
      {"scalar", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", le32({1}))},
      {"zero dim", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", "")},
      {"seven dims", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1), }", le32({1}))},
      {"dim above 2^24", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (16777217,), }", "")},
      {"over 2^30 elements (no allocation)",
       npy("{'descr': '<i4', 'fortran_order': False, 'shape': (16777216, 128), }", "")},
      {"huge dim text", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "")},
      {"short data", npy(ok_dict, le32({1}))},
      {"trailing data", npy(ok_dict, le32({1, 2, 3}))},
      {"unterminated string", npy("{'descr: '<i4', 'fortran_order': False, 'shape': (2,), }", data)},
      {"trailing garbage", npy(ok_dict + "x", data)},
  };
  for (const auto& [name, bytes] : cases) {
    EXPECT_THROW(parse_npy(bytes, 8), LogicError) << name;
  }
}

TEST(Npy, MissingFileIsALogicError) {
  EXPECT_THROW(read_npy("/nonexistent/x.npy", 8), LogicError);
}

}  // namespace
}  // namespace cvm
