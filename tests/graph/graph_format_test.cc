// The original runtime's model files: the graph JSON and the params blob, against text and
// bytes written by hand from its source (src/runtime/graph_runtime.h, param_dict.cc,
// include/cvm/runtime/ndarray.h), and round trips.
#include <gtest/gtest.h>

#include "cvmcheck/errors.h"
#include "harness/graph/graph_build.h"
#include "harness/graph/graph_json.h"
#include "harness/graph/graph_params.h"

namespace cvm::graph {
namespace {

Graph conv_graph(const char* version = kVersion100) {
  GraphBuilder b(version);
  const EntryRef data = b.add_variable("data", {1, 2, 3, 3}, 8);
  const EntryRef w = b.add_variable("param_1", {4, 2, 1, 1}, 8);
  const uint32_t conv = b.add_op("conv2d",
                                 R"j({"channels": "4", "kernel_size": "(1, 1)", "use_bias": "False"})j",
                                 {data, w}, {{1, 4, 3, 3}}, {-1});
  return b.finish({{conv, 0, 0}});
}

constexpr const char* kConvJson =
    R"({"nodes": [{"op": "null", "name": "data", "inputs": []}, )"
    R"({"op": "null", "name": "param_1", "inputs": []}, )"
    R"({"op": "cvm_op", "name": "conv2d_0", "attrs": {"flatten_data": "0", "func_name": "conv2d", )"
    R"("num_inputs": "2", "num_outputs": "1"}, "inputs": [[0, 0, 0], [1, 0, 0]]}], )"
    R"("arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0, 0]], )"
    R"("attrs": {"dltype": ["list_str", ["int32", "int32", "int32"]], )"
    R"("storage_id": ["list_int", [0, 1, 2]], )"
    R"("shape": ["list_shape", [[1, 2, 3, 3], [4, 2, 1, 1], [1, 4, 3, 3]]], )"
    R"("precision": ["list_int", [8, 8, -1]], )"
    R"("op_attrs": ["list_str", ["{}", "{}", )"
    R"("{\"channels\": \"4\", \"kernel_size\": \"(1, 1)\", \"use_bias\": \"False\"}"]]}, )"
    R"("version": "cvm_1.0.0"})";

TEST(GraphJson, WritesTheOriginalsLayout) { EXPECT_EQ(write_graph_json(conv_graph()), kConvJson); }

TEST(GraphJson, ReadsWhatItWrites) {
  for (const char* version : {kVersion100, kVersion110}) {
    const Graph g = conv_graph(version);
    const Graph back = parse_graph_json(write_graph_json(g));
    EXPECT_TRUE(back == g) << version;
    EXPECT_EQ(write_graph_json(back), write_graph_json(g));
  }
}

TEST(GraphJson, KeepsOptionalFieldsThroughARoundTrip) {
  Graph g = conv_graph(kVersion110);
  g.node_row_ptr.clear();
  g.postprocess = "argmax";
  g.device_index = std::vector<int64_t>{};
  g.nodes[2].precision = 12;
  g.nodes[2].attrs.emplace_back("op_attrs", "{}");
  const Graph back = parse_graph_json(write_graph_json(g));
  EXPECT_TRUE(back == g);
  EXPECT_EQ(back.postprocess.value_or(""), "argmax");
}

TEST(GraphJson, ReadsTheCompilersSpacingAndTwoFieldEntries) {
  // Another writer's layout: newlines, indentation, entries without a version.
  const std::string text = R"({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "cvm_op", "name": "relu_0", "attrs": {"func_name": "relu"}, "inputs": [[0, 0]]}
    ],
    "arg_nodes": [0],
    "heads": [[1, 0]],
    "attrs": {
      "storage_id": ["list_int", [0, 1]],
      "shape": ["list_shape", [[2, 3], [2, 3]]],
      "precision": ["list_int", [8, -1]],
      "op_attrs": ["list_str", ["{}", "{}"]]
    }
  })";
  const Graph g = parse_graph_json(text);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].operator_name(), "relu");
  EXPECT_EQ(g.nodes[1].inputs[0].version, 0u);
  EXPECT_EQ(g.version, kVersion100);  // the loader's default
  EXPECT_TRUE(g.node_row_ptr.empty());
  EXPECT_TRUE(g.dltype.empty());
}

TEST(GraphJson, OperatorNameDropsOneNumericSuffix) {
  Node n;
  n.attrs = {{"func_name", "conv2d_12"}};
  EXPECT_EQ(n.operator_name(), "conv2d");
  n.attrs = {{"func_name", "max_pool2d"}};
  EXPECT_EQ(n.operator_name(), "max_pool2d");
}

TEST(GraphJson, RefusesWhatTheOriginalsReaderRefuses) {
  const std::string good = kConvJson;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::string> bad = {
      "", "[]", "{", with("\"version\"", "\"versions\""),             // unknown key
      with("\"heads\": [[2, 0, 0]], ", ""),                            // required key missing
      with("\"op\": \"cvm_op\"", "\"op\": \"conv2d\""),                // op type
      with("\"func_name\": \"conv2d\"", "\"func\": \"conv2d\""),       // node attribute key
      with("[[0, 0, 0], [1, 0, 0]]", "[[0], [1, 0, 0]]"),              // entry length
      with("[[0, 0, 0], [1, 0, 0]]", "[[0, 0, 0, 0], [1, 0, 0]]"),
      with("[[0, 0, 0], [1, 0, 0]]", "[[-1, 0, 0], [1, 0, 0]]"),       // negative id
      with("[[0, 0, 0], [1, 0, 0]]", "[[0.5, 0, 0], [1, 0, 0]]"),      // not an integer
      with("\"list_int\", [0, 1, 2]", "\"list_str\", [0, 1, 2]"),      // type tag
      with("\"list_int\", [0, 1, 2]", "\"list_int\", [0, 1, 4294967296]"),
      with("\"num_inputs\": \"2\"", "\"num_inputs\": 2"),              // non-string attribute
      with("\"name\": \"data\"", "\"name\": \"d\\u0061ta\""),          // an escape it lacks
      with("\"name\": \"data\"", "\"name\": \"d\\/ata\""),
      with("\"storage_id\": [\"list_int\", [0, 1, 2]], ", ""),         // storage_id required
  };
  for (const std::string& text : bad) {
    EXPECT_THROW(parse_graph_json(text), GraphFormatError) << text;
  }
}

TEST(GraphJson, EscapesOnlyWhatTheOriginalsReaderKnows) {
  EXPECT_EQ(quote_json("a\"b\\c\nd\te\r"), R"("a\"b\\c\nd\te\r")");
  EXPECT_THROW(quote_json(std::string("a\x01")), LogicError);
  GraphBuilder b;
  b.add_variable("da\"ta\n", {1}, 8);
  const Graph g = b.finish({{0, 0, 0}});
  EXPECT_TRUE(parse_graph_json(write_graph_json(g)) == g);
}

// ---------------------------------------------------------------------------------------------

std::string le(uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

TEST(GraphParams, WritesCVMSaveParamsDictsBytes) {
  const Tensor w8 = Tensor::from_values({2}, {-1, 5}, 8, DType::kInt8);
  const Tensor w32 = Tensor::from_values({1, 2}, {-2, 300}, 12);
  std::string expected;
  expected += "\xB7\x9C\x04\x05\x4F\x8D\xE5\xF7";  // kCVMNDArrayListMagic
  expected += le(0, 8) + le(2, 8);                 // reserved, two names
  expected += le(1, 8) + "a" + le(7, 8) + "param_2";
  expected += le(2, 8);  // two arrays
  const std::string array_magic = "\x3F\xA1\xB4\x96\xF0\x40\x5E\xDD";
  expected += array_magic + le(0, 8) + le(1, 4) + le(0, 4) + le(1, 4);  // cpu 0, ndim 1
  expected += std::string("\x00\x08\x01\x00", 4) + le(2, 8) + le(2, 8) + "\xFF\x05";
  expected += array_magic + le(0, 8) + le(1, 4) + le(0, 4) + le(2, 4);  // ndim 2
  expected += std::string("\x00\x20\x01\x00", 4) + le(1, 8) + le(2, 8) + le(8, 8);
  expected += le(static_cast<uint32_t>(-2), 4) + le(300, 4);
  EXPECT_EQ(write_params({{"a", w8}, {"param_2", w32}}), expected);
}

TEST(GraphParams, ReadsWhatItWrites) {
  const Tensor w8 = Tensor::from_values({2, 1, 1}, {-127, 127}, 8, DType::kInt8);
  const Tensor w32 = Tensor::from_values({3}, {-2147483647, 0, 2147483647}, 32);
  const auto back = parse_params(write_params({{"w8", w8}, {"w32", w32}}));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first, "w8");
  EXPECT_EQ(back[0].second.dtype(), DType::kInt8);
  EXPECT_EQ(back[0].second.values(), w8.values());
  EXPECT_EQ(back[1].second.shape(), Shape{3});
  EXPECT_EQ(back[1].second.values(), w32.values());
  EXPECT_TRUE(parse_params(write_params({})).empty());
}

TEST(GraphParams, RefusesDamagedBlobsAsABadModel) {
  const std::string good = write_params({{"w", Tensor::from_values({2}, {1, 2}, 8)}});
  std::vector<std::string> bad;
  for (size_t n = 0; n < good.size(); n += 3) bad.push_back(good.substr(0, n));  // truncated
  auto flip = [&](size_t at, char c) {
    std::string s = good;
    s[at] = c;
    return s;
  };
  bad.push_back(flip(0, 'x'));                  // list magic
  bad.push_back(flip(16 + 8 + 1 + 8, '\x02'));  // array count
  const size_t array = 16 + 8 + 1 + 8 + 8;
  bad.push_back(flip(array, 'x'));         // array magic
  bad.push_back(flip(array + 16, '\x02'));  // device type
  bad.push_back(flip(array + 24, '\x07'));  // ndim 7
  bad.push_back(flip(array + 28, '\x02'));  // float
  bad.push_back(flip(array + 29, '\x10'));  // 16 bits
  bad.push_back(flip(array + 30, '\x02'));  // 2 lanes
  bad.push_back(flip(array + 32, '\x00'));  // dim 0
  bad.push_back(flip(array + 40, '\x09'));  // byte count
  for (const std::string& bytes : bad) EXPECT_THROW(parse_params(bytes), LogicError);
  EXPECT_EQ(parse_params(good + "trailing").size(), 1u);  // ignored, as the runtime does
}

}  // namespace
}  // namespace cvm::graph
