// The worker protocol's codec (worker_sdk/include/cvmcheck_worker.hpp): every message survives an
// encode/decode round trip unchanged, and every kind of malformed message is refused with a
// ProtocolError that names what was wrong (never a crash, never a half-decoded message).
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

// Decoding `payload` throws a ProtocolError whose message contains `what`.
void expect_refused(const std::function<void()>& decode, const std::string& what) {
  try {
    decode();
    ADD_FAILURE() << "decoded; expected a ProtocolError about '" << what << "'";
  } catch (const wp::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' does not name '" << what << "'";
  }
}

wp::Reply ok_reply() {
  wp::Reply r = wp::Reply::ok({wp::Tensor::int32({2}, {-7, 2147483647}, 31), int8_tensor()});
  r.id = 0x0123456789abcdefULL;
  return r;
}

TEST(WorkerCodec, HelloRoundTrips) {
  wp::Hello h;
  h.version = 1;
  h.name = "impl under test";
  h.flags = wp::kFlagReportsRules;
  h.ops = {"abs", "strided_slice", "slice", ""};
  const wp::Hello back = wp::decode_hello(payload_of(wp::encode_hello(h)));
  EXPECT_EQ(back.version, h.version);
  EXPECT_EQ(back.name, h.name);
  EXPECT_EQ(back.flags, h.flags);
  EXPECT_EQ(back.ops, h.ops);
}

TEST(WorkerCodec, CallWithStringAttributesRoundTrips) {
  wp::Call c;
  c.id = 42;
  c.op = "conv2d";
  c.attrs.pairs = {{"channels", "4"}, {"padding", "(1, 1)"}, {"empty", ""}};
  c.inputs = {int8_tensor(), wp::Tensor::int32({1, 1, 1, 1, 1, 2}, {5, -5}, 4)};
  const wp::Call back = wp::decode_call(payload_of(wp::encode_call(c)));
  EXPECT_EQ(back.id, 42u);
  EXPECT_EQ(back.op, "conv2d");
  EXPECT_TRUE(back.attrs.is_string_object);
  EXPECT_EQ(back.attrs.pairs, c.attrs.pairs);
  ASSERT_EQ(back.inputs.size(), 2u);
  expect_same(back.inputs[0], c.inputs[0]);
  expect_same(back.inputs[1], c.inputs[1]);
  EXPECT_EQ(back.inputs[0].values(), (std::vector<int32_t>{1, 2, 3, -1, -128, 127}));
}

TEST(WorkerCodec, CallWithJsonAttributesAndNoInputsRoundTrips) {
  wp::Call c;
  c.id = ~uint64_t{0};
  c.op = "no such operator";
  c.attrs.is_string_object = false;
  c.attrs.json = R"({"axis":1})";
  const wp::Call back = wp::decode_call(payload_of(wp::encode_call(c)));
  EXPECT_EQ(back.id, c.id);
  EXPECT_EQ(back.op, c.op);
  EXPECT_FALSE(back.attrs.is_string_object);
  EXPECT_EQ(back.attrs.json, c.attrs.json);
  EXPECT_TRUE(back.attrs.pairs.empty());
  EXPECT_TRUE(back.inputs.empty());
}

TEST(WorkerCodec, OkReplyRoundTrips) {
  const wp::Reply r = ok_reply();
  const wp::Reply back = wp::decode_reply(payload_of(wp::encode_reply(r)));
  EXPECT_EQ(back.id, r.id);
  EXPECT_EQ(back.outcome, wp::Outcome::kOk);
  ASSERT_EQ(back.outputs.size(), 2u);
  expect_same(back.outputs[0], r.outputs[0]);
  expect_same(back.outputs[1], r.outputs[1]);
  EXPECT_EQ(back.outputs[0].values(), (std::vector<int32_t>{-7, 2147483647}));
}

TEST(WorkerCodec, ErrorRepliesRoundTripWithClassMessageAndRule) {
  for (const wp::Outcome outcome : {wp::Outcome::kLogicError, wp::Outcome::kRuntimeError}) {
    wp::Reply r = wp::Reply::error(outcome, "conv2d: weight shape", "conv2d.weight_shape");
    r.id = 9;
    const wp::Reply back = wp::decode_reply(payload_of(wp::encode_reply(r)));
    EXPECT_EQ(back.id, 9u);
    EXPECT_EQ(back.outcome, outcome);
    EXPECT_EQ(back.message, r.message);
    EXPECT_EQ(back.rule, r.rule);
    EXPECT_TRUE(back.outputs.empty());
  }
}

TEST(WorkerCodec, ByeIsOneTypeByte) {
  EXPECT_EQ(payload_of(wp::encode_bye()), "Q");
}

TEST(WorkerCodec, EveryTruncationOfAMessageIsRefused) {
  const std::string reply = payload_of(wp::encode_reply(ok_reply()));
  for (size_t n = 0; n < reply.size(); ++n) {
    expect_refused([&] { wp::decode_reply(reply.substr(0, n)); }, "message ends inside the");
  }
  wp::Call c;
  c.attrs.pairs = {{"a", "b"}};
  c.inputs = {int8_tensor()};
  const std::string call = payload_of(wp::encode_call(c));
  for (size_t n = 0; n < call.size(); ++n) {
    expect_refused([&] { wp::decode_call(call.substr(0, n)); }, "message ends inside the");
  }
  wp::Hello h;
  h.ops = {"abs"};
  const std::string hello = payload_of(wp::encode_hello(h));
  for (size_t n = 0; n < hello.size(); ++n) {
    expect_refused([&] { wp::decode_hello(hello.substr(0, n)); }, "message ends inside the");
  }
}

TEST(WorkerCodec, TrailingBytesAreRefused) {
  expect_refused([] { wp::decode_reply(payload_of(wp::encode_reply(ok_reply())) + "x"); },
                 "1 trailing bytes after the reply");
  expect_refused([] { wp::decode_call(payload_of(wp::encode_call(wp::Call{})) + "xy"); },
                 "2 trailing bytes after the call");
  expect_refused([] { wp::decode_hello(payload_of(wp::encode_hello(wp::Hello{})) + "z"); },
                 "1 trailing bytes after the hello");
}

// Offsets in an ok reply's payload: type (1), id (8), outcome (1), count (4), then the first
// output: dtype (1), ndim (1), dims (8 each), precision (4), data size (8), data.
constexpr size_t kOutcomeAt = 9, kCountAt = 10, kDtypeAt = 14, kNdimAt = 15, kFirstDimAt = 16;

TEST(WorkerCodec, UnknownOutcomeCodeIsRefused) {
  std::string reply = payload_of(wp::encode_reply(ok_reply()));
  reply[kOutcomeAt] = 3;
  expect_refused([&] { wp::decode_reply(reply); }, "unknown outcome code 3");
}

TEST(WorkerCodec, UnknownDtypeCodeIsRefused) {
  std::string reply = payload_of(wp::encode_reply(ok_reply()));
  reply[kDtypeAt] = 2;
  expect_refused([&] { wp::decode_reply(reply); }, "unknown dtype code 2");
}

TEST(WorkerCodec, DataSizeNotMatchingTheShapeIsRefused) {
  wp::Reply r = ok_reply();
  r.outputs[0].data.push_back(0);  // 9 bytes for 2 int32 elements
  expect_refused([&] { wp::decode_reply(payload_of(wp::encode_reply(r))); },
                 "9 data bytes for 2 elements of int32");
  r = ok_reply();
  r.outputs[1].shape = {2, 2};  // 6 int8 bytes for 4 elements
  expect_refused([&] { wp::decode_reply(payload_of(wp::encode_reply(r))); },
                 "6 data bytes for 4 elements of int8");
}

TEST(WorkerCodec, OversizedCountsAndShapesAreRefusedBeforeAllocating) {
  std::string reply = payload_of(wp::encode_reply(ok_reply()));
  const uint32_t huge = wp::kMaxListLength + 1;
  std::memcpy(&reply[kCountAt], &huge, 4);
  expect_refused([&] { wp::decode_reply(reply); }, "outputs count 65537 over the limit");

  reply = payload_of(wp::encode_reply(ok_reply()));
  reply[kNdimAt] = static_cast<char>(wp::kMaxDims + 1);
  expect_refused([&] { wp::decode_reply(reply); }, "17 dims");

  for (const int64_t dim : {int64_t{-1}, (int64_t{1} << 31) + 1}) {
    reply = payload_of(wp::encode_reply(ok_reply()));
    std::memcpy(&reply[kFirstDimAt], &dim, 8);
    expect_refused([&] { wp::decode_reply(reply); }, "dim " + std::to_string(dim) + " out of range");
  }

  // Dims each in range whose product is not: refused before any data size is believed.
  wp::Writer w(wp::MessageType::kReply);
  w.u64(1);
  w.u8(0);
  w.u32(1);
  w.u8(1);
  w.u8(2);
  w.i64(int64_t{1} << 31);
  w.i64(int64_t{1} << 31);
  expect_refused([&] { wp::decode_reply(w.payload()); }, "too many elements");
}

TEST(WorkerCodec, WrongMessageTypeIsRefused) {
  expect_refused([] { wp::decode_reply(payload_of(wp::encode_hello(wp::Hello{}))); },
                 "message type 'H' where 'R' was expected");
  expect_refused([] { wp::decode_hello(payload_of(wp::encode_bye())); },
                 "message type 'Q' where 'H' was expected");
}

TEST(WorkerCodec, UnknownAttributeFormIsRefused) {
  std::string call = payload_of(wp::encode_call(wp::Call{}));
  call[1 + 8 + 4] = 2;  // type, id, empty operator name: then the attribute form
  expect_refused([&] { wp::decode_call(call); }, "unknown attribute form 2");
}

// read_frame over a pipe: a length of 0 or over the limit, and a stream ending inside a frame.
std::string read_one_frame(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  std::string payload;
  try {
    const bool got = wp::read_frame(fds[0], payload);
    ::close(fds[0]);
    return got ? payload : "<end>";
  } catch (...) {
    ::close(fds[0]);
    throw;
  }
}

TEST(WorkerCodec, BadFrameLengthsAreRefused) {
  expect_refused([] { read_one_frame(std::string(4, '\0')); }, "frame length 0 out of range");
  const uint32_t over = wp::kMaxFrameBytes + 1;
  std::string bytes(4, '\0');
  std::memcpy(bytes.data(), &over, 4);
  expect_refused([&] { read_one_frame(bytes); },
                 "frame length " + std::to_string(over) + " out of range");
  expect_refused([] { read_one_frame(wp::encode_bye().substr(0, 4)); },
                 "stream ends inside a frame");
  expect_refused([] { read_one_frame("\x01\x00"); }, "stream ends inside a frame");
  EXPECT_EQ(read_one_frame(""), "<end>");
  EXPECT_EQ(read_one_frame(wp::encode_bye()), "Q");
}

}  // namespace
}  // namespace cvm
