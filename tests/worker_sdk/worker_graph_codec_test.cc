// The worker protocol's whole-model messages (cvmcheck_worker_graph_codec.hpp, kFlagGraphs): a
// graph request and a model reply survive a round trip unchanged; every malformed model reply (cut
// short, an unknown code, a count or a packed size out of bounds, trailing bytes) is a
// ProtocolError naming what was wrong; serve_graphs answers calls and graph requests alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>

#include "cvmcheck_worker.hpp"

namespace cvm {
namespace {

namespace wp = cvmcheck_worker;

std::string payload_of(const std::string& frame) { return frame.substr(4); }

void expect_refused(const std::function<void()>& decode, const std::string& what) {
  try {
    decode();
    ADD_FAILURE() << "decoded; expected a ProtocolError about '" << what << "'";
  } catch (const wp::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' does not name '" << what << "'";
  }
}

wp::Tensor int8_tensor() {
  wp::Tensor t;
  t.dtype = wp::DType::kInt8;
  t.shape = {2, 3};
  t.precision = 8;
  t.data = {1, 2, 3, 0xff, 0x80, 0x7f};
  return t;
}

void expect_same(const wp::Tensor& a, const wp::Tensor& b) {
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.data, b.data);
}

wp::GraphRequest graph_request() {
  wp::GraphRequest g;
  g.id = 0x0102030405060708ULL;
  g.graph_json = "{\"nodes\": []}";
  g.params = {0xb7, 0x9c, 0x04, 0x05, 0, 1, 2};
  g.inputs = {{"data", int8_tensor()}, {"w", wp::Tensor::int32({1}, {-5}, 4)}};
  return g;
}

wp::ModelReply model_reply() {
  wp::ModelReply m = wp::ModelReply::error(wp::Outcome::kRuntimeError, "boom", "graph.x", 2);
  m.id = 77;
  m.entries = {int8_tensor(), std::nullopt, wp::Tensor::int32({2}, {-7, 2147483647}, 31)};
  m.packed = wp::PackedOutput{1, {1, 0xfe, 3}};
  return m;
}

// Offsets in model_reply()'s payload: type (1), id (8), outcome (1), message "boom" (4 + 4),
// rule "graph.x" (4 + 7), node (4), entry count (4), then entry 0's present flag.
constexpr size_t kOutcomeAt = 9, kNodeAt = 29, kCountAt = 33, kFirstPresentAt = 37;

TEST(WorkerGraphCodec, GraphRequestRoundTrips) {
  const wp::GraphRequest g = graph_request();
  const std::string frame = wp::encode_graph(g);
  EXPECT_EQ(frame[4], 'G');
  const wp::GraphRequest back = wp::decode_graph(payload_of(frame));
  EXPECT_EQ(back.id, g.id);
  EXPECT_EQ(back.graph_json, g.graph_json);
  EXPECT_EQ(back.params, g.params);
  ASSERT_EQ(back.inputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.inputs[i].first, g.inputs[i].first);
    expect_same(back.inputs[i].second, g.inputs[i].second);
  }
}

TEST(WorkerGraphCodec, ModelReplyRoundTripsWithAbsentEntriesAndPackedOutput) {
  const wp::ModelReply m = model_reply();
  const wp::ModelReply back = wp::decode_model_reply(payload_of(wp::encode_model_reply(m)));
  EXPECT_EQ(back.id, 77u);
  EXPECT_EQ(back.outcome, wp::Outcome::kRuntimeError);
  EXPECT_EQ(back.message, "boom");
  EXPECT_EQ(back.rule, "graph.x");
  EXPECT_EQ(back.node, 2);
  ASSERT_EQ(back.entries.size(), 3u);
  expect_same(*back.entries[0], *m.entries[0]);
  EXPECT_FALSE(back.entries[1].has_value());
  expect_same(*back.entries[2], *m.entries[2]);
  ASSERT_TRUE(back.packed.has_value());
  EXPECT_EQ(back.packed->type_size, 1u);
  EXPECT_EQ(back.packed->bytes, m.packed->bytes);

  wp::ModelReply empty;  // ok, no entries, no packed output, the graph as a whole
  const wp::ModelReply none = wp::decode_model_reply(payload_of(wp::encode_model_reply(empty)));
  EXPECT_EQ(none.outcome, wp::Outcome::kOk);
  EXPECT_EQ(none.node, -1);
  EXPECT_TRUE(none.entries.empty());
  EXPECT_FALSE(none.packed.has_value());
}

TEST(WorkerGraphCodec, EveryTruncationIsRefused) {
  const std::string reply = payload_of(wp::encode_model_reply(model_reply()));
  for (size_t n = 0; n < reply.size(); ++n) {
    expect_refused([&] { wp::decode_model_reply(reply.substr(0, n)); }, "message ends inside the");
  }
  const std::string graph = payload_of(wp::encode_graph(graph_request()));
  for (size_t n = 0; n < graph.size(); ++n) {
    expect_refused([&] { wp::decode_graph(graph.substr(0, n)); }, "message ends inside the");
  }
}

TEST(WorkerGraphCodec, TrailingBytesAndWrongTypesAreRefused) {
  expect_refused(
      [] { wp::decode_model_reply(payload_of(wp::encode_model_reply(model_reply())) + "x"); },
      "1 trailing bytes after the model reply");
  expect_refused([] { wp::decode_graph(payload_of(wp::encode_graph(graph_request())) + "xy"); },
                 "2 trailing bytes after the graph request");
  expect_refused([] { wp::decode_model_reply(payload_of(wp::encode_reply(wp::Reply{}))); },
                 "message type 'R' where 'M' was expected");
  expect_refused([] { wp::decode_graph(payload_of(wp::encode_bye())); },
                 "message type 'Q' where 'G' was expected");
}

TEST(WorkerGraphCodec, BadCodesAndCountsAreRefused) {
  const std::string good = payload_of(wp::encode_model_reply(model_reply()));
  std::string reply = good;
  reply[kOutcomeAt] = 3;
  expect_refused([&] { wp::decode_model_reply(reply); }, "unknown model outcome code 3");

  reply = good;
  const int32_t node = -2;
  std::memcpy(&reply[kNodeAt], &node, 4);
  expect_refused([&] { wp::decode_model_reply(reply); }, "model blamed node -2");

  reply = good;
  const uint32_t huge = wp::kMaxGraphEntries + 1;
  std::memcpy(&reply[kCountAt], &huge, 4);
  expect_refused([&] { wp::decode_model_reply(reply); },
                 "model entries count " + std::to_string(huge) + " over the limit");

  reply = good;
  reply[kFirstPresentAt] = 2;
  expect_refused([&] { wp::decode_model_reply(reply); }, "model entry present flag 2");
}

TEST(WorkerGraphCodec, BadPackedOutputsAreRefused) {
  wp::ModelReply m;
  m.packed = wp::PackedOutput{4, {1, 2, 3, 4, 5, 6}};  // 6 bytes of int32
  expect_refused([&] { wp::decode_model_reply(payload_of(wp::encode_model_reply(m))); },
                 "packed output of 6 bytes is not whole elements of 4");
  m.packed = wp::PackedOutput{2, {1, 2}};
  expect_refused([&] { wp::decode_model_reply(payload_of(wp::encode_model_reply(m))); },
                 "packed type size 2 (1 or 4)");
  m.packed.reset();
  std::string reply = payload_of(wp::encode_model_reply(m));
  reply.back() = 2;  // the packed flag
  expect_refused([&] { wp::decode_model_reply(reply); }, "model packed flag 2");
  // A byte count past the message's end: refused before anything is allocated.
  wp::Writer w(wp::MessageType::kModel);
  w.u64(1);
  w.u8(0);
  w.str("");
  w.str("");
  w.i32(-1);
  w.u32(0);
  w.u8(1);
  w.u32(4);
  w.u64(uint64_t{1} << 40);
  expect_refused([&] { wp::decode_model_reply(w.payload()); },
                 "message ends inside the packed output");
}

// serve_graphs over pipes: the hello says kFlagGraphs, a call goes to the call handler, a graph
// request to the graph handler (a thrown LogicError becomes a logic_error model reply).
TEST(WorkerGraphCodec, ServeGraphsAnswersCallsAndGraphs) {
  int to_worker[2], from_worker[2];
  ASSERT_EQ(::pipe(to_worker), 0);
  ASSERT_EQ(::pipe(from_worker), 0);
  wp::Call call;
  call.id = 5;
  wp::GraphRequest bad = graph_request();
  bad.id = 9;
  bad.graph_json = "refuse";
  const std::string in = wp::encode_hello(wp::Hello{}) + wp::encode_call(call) +
                         wp::encode_graph(graph_request()) + wp::encode_graph(bad) +
                         wp::encode_bye();
  ASSERT_EQ(::write(to_worker[1], in.data(), in.size()), static_cast<ssize_t>(in.size()));
  ::close(to_worker[1]);
  const auto on_call = [](const wp::Call&) { return wp::Reply::ok({int8_tensor()}); };
  const auto on_graph = [](const wp::GraphRequest& g) {
    if (g.graph_json == "refuse") throw wp::LogicError("bad model", "graph.format");
    wp::ModelReply m;
    m.entries = {g.inputs[0].second};
    return m;
  };
  EXPECT_EQ(wp::serve_graphs("g", {"abs"}, on_call, on_graph, 0, {}, to_worker[0],
                             from_worker[1]), 0);
  ::close(to_worker[0]);
  ::close(from_worker[1]);
  std::string payload;
  ASSERT_TRUE(wp::read_frame(from_worker[0], payload));
  EXPECT_EQ(wp::decode_hello(payload).flags, wp::kFlagGraphs);
  ASSERT_TRUE(wp::read_frame(from_worker[0], payload));
  EXPECT_EQ(wp::decode_reply(payload).id, 5u);
  ASSERT_TRUE(wp::read_frame(from_worker[0], payload));
  const wp::ModelReply ok = wp::decode_model_reply(payload);
  EXPECT_EQ(ok.id, graph_request().id);
  ASSERT_EQ(ok.entries.size(), 1u);
  expect_same(*ok.entries[0], int8_tensor());
  ASSERT_TRUE(wp::read_frame(from_worker[0], payload));
  const wp::ModelReply refused = wp::decode_model_reply(payload);
  EXPECT_EQ(refused.id, 9u);
  EXPECT_EQ(refused.outcome, wp::Outcome::kLogicError);
  EXPECT_EQ(refused.rule, "graph.format");
  EXPECT_EQ(refused.node, -1);
  EXPECT_FALSE(wp::read_frame(from_worker[0], payload));
  ::close(from_worker[0]);
}

}  // namespace
}  // namespace cvm
