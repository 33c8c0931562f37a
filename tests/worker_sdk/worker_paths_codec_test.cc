// The worker protocol's kernel-path field (cvmcheck_worker_codec.hpp, kFlagPaths): a hello's
// declared paths and a reply's path ids survive a round trip; without the flag every message is
// byte for byte what it was before the field existed; a malformed field (a count or a text over
// its limit, an empty id, a message cut inside it) is a ProtocolError naming it.
#include <gtest/gtest.h>

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

// A reply encoded and decoded as a worker with kFlagPaths sends it.
wp::Reply round_trip(const wp::Reply& r) {
  return wp::decode_reply(payload_of(wp::encode_reply(r, wp::kFlagPaths)), wp::kFlagPaths);
}

wp::Hello hello_with_paths() {
  wp::Hello h;
  h.name = "impl";
  h.flags = wp::kFlagPaths | wp::kFlagReportsRules;
  h.ops = {"abs", "clip"};
  h.paths = {{"abs.negative", "abs", "an input below zero"},
             {"clip.both", "clip,cvm_clip", ""},
             {"x", "", "\xc3\xa9t\xc3\xa9"}};
  return h;
}

TEST(WorkerPathsCodec, DeclaredPathsRoundTrip) {
  const wp::Hello h = hello_with_paths();
  const wp::Hello back = wp::decode_hello(payload_of(wp::encode_hello(h)));
  EXPECT_EQ(back.flags, h.flags);
  EXPECT_EQ(back.ops, h.ops);
  ASSERT_EQ(back.paths.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.paths[i].id, h.paths[i].id);
    EXPECT_EQ(back.paths[i].ops, h.paths[i].ops);
    EXPECT_EQ(back.paths[i].description, h.paths[i].description);
  }
  wp::Hello none;
  none.flags = wp::kFlagPaths;  // declares none: m = 0
  const std::string payload = payload_of(wp::encode_hello(none));
  EXPECT_EQ(payload.substr(payload.size() - 4), std::string(4, '\0'));
  EXPECT_TRUE(wp::decode_hello(payload).paths.empty());
}

TEST(WorkerPathsCodec, ReplyPathsRoundTripOnOkAndErrorReplies) {
  wp::Reply ok = wp::Reply::ok({wp::Tensor::int32({2}, {-1, 2}, 3)});
  ok.id = 5;
  ok.paths = {"abs.negative", "not.declared.anywhere"};
  wp::Reply back = round_trip(ok);
  EXPECT_EQ(back.id, 5u);
  EXPECT_EQ(back.outputs.at(0).values(), (std::vector<int32_t>{-1, 2}));
  EXPECT_EQ(back.paths, ok.paths);
  for (const wp::Outcome outcome : {wp::Outcome::kLogicError, wp::Outcome::kRuntimeError}) {
    wp::Reply error = wp::Reply::error(outcome, "bad", "abs.rule");
    error.paths = {"abs.negative"};
    back = round_trip(error);
    EXPECT_EQ(back.outcome, outcome);
    EXPECT_EQ(back.message, "bad");
    EXPECT_EQ(back.rule, "abs.rule");
    EXPECT_EQ(back.paths, error.paths);
  }
  const wp::Reply empty = wp::Reply::ok({});
  EXPECT_TRUE(round_trip(empty).paths.empty());
}

TEST(WorkerPathsCodec, WithoutTheFlagEveryMessageIsAsBefore) {
  wp::Hello h = hello_with_paths();
  h.flags = wp::kFlagReportsRules;
  wp::Hello plain = h;
  plain.paths.clear();
  EXPECT_EQ(wp::encode_hello(h), wp::encode_hello(plain));  // declared paths are not sent
  EXPECT_TRUE(wp::decode_hello(payload_of(wp::encode_hello(h))).paths.empty());

  wp::Reply r = wp::Reply::error(wp::Outcome::kLogicError, "bad");
  r.paths = {"abs.negative"};
  wp::Reply bare = r;
  bare.paths.clear();
  EXPECT_EQ(wp::encode_reply(r), wp::encode_reply(bare));
  EXPECT_EQ(wp::encode_reply(r, wp::kFlagReportsRules | wp::kFlagNoPrecision),
            wp::encode_reply(bare));
  EXPECT_TRUE(wp::decode_reply(payload_of(wp::encode_reply(r))).paths.empty());
  // The two sides must agree on the flag: one reads what the other did not write, or the reverse.
  expect_refused([&] { wp::decode_reply(payload_of(wp::encode_reply(r)), wp::kFlagPaths); },
                 "message ends inside the reply paths");
  expect_refused([&] { wp::decode_reply(payload_of(wp::encode_reply(r, wp::kFlagPaths))); },
                 "20 trailing bytes after the reply");
}

TEST(WorkerPathsCodec, OversizedCountsAndTextsAndEmptyIdsAreRefused) {
  wp::Writer w(wp::MessageType::kHello);
  w.u32(1);
  w.str("i");
  w.u32(wp::kFlagPaths);
  w.u32(0);
  w.u32(wp::kMaxPaths + 1);
  expect_refused([&] { wp::decode_hello(w.payload()); }, "hello paths count 513 over the limit");

  wp::Hello h = hello_with_paths();
  h.paths[1].id.clear();
  expect_refused([&] { wp::decode_hello(payload_of(wp::encode_hello(h))); },
                 "hello path id of 0 bytes (1..4096)");
  h = hello_with_paths();
  h.paths[2].description.assign(wp::kMaxPathTextBytes + 1, 'd');
  expect_refused([&] { wp::decode_hello(payload_of(wp::encode_hello(h))); },
                 "hello path description of 4097 bytes (0..4096)");
  h.paths[2].description.assign(wp::kMaxPathTextBytes, 'd');  // at the limit: fine
  EXPECT_EQ(wp::decode_hello(payload_of(wp::encode_hello(h))).paths[2].description.size(), 4096u);

  wp::Reply r = wp::Reply::ok({});
  r.paths.assign(wp::kMaxPaths + 1, "p");
  expect_refused([&] { round_trip(r); },
                 "reply paths count 513 over the limit");
  r.paths = {"p", ""};
  expect_refused([&] { round_trip(r); },
                 "reply path id of 0 bytes");
  r.paths = {std::string(wp::kMaxPathTextBytes + 1, 'p')};
  expect_refused([&] { round_trip(r); },
                 "reply path id of 4097 bytes");
}

TEST(WorkerPathsCodec, EveryTruncationInsideThePathFieldsIsRefused) {
  const std::string hello = payload_of(wp::encode_hello(hello_with_paths()));
  wp::Hello bare = hello_with_paths();
  bare.flags = 0;
  const size_t hello_start = payload_of(wp::encode_hello(bare)).size();
  for (size_t n = hello_start; n < hello.size(); ++n) {
    expect_refused([&] { wp::decode_hello(hello.substr(0, n)); },
                   "message ends inside the hello path");
  }
  wp::Reply r = wp::Reply::error(wp::Outcome::kRuntimeError, "m");
  r.paths = {"abc", "de"};
  const std::string reply = payload_of(wp::encode_reply(r, wp::kFlagPaths));
  const size_t reply_start = payload_of(wp::encode_reply(r)).size();
  for (size_t n = reply_start; n < reply.size(); ++n) {
    expect_refused([&] { wp::decode_reply(reply.substr(0, n), wp::kFlagPaths); },
                   "message ends inside the reply path");
  }
}

}  // namespace
}  // namespace cvm
