// The check the `worker_reply` fuzz target makes of every input (fuzz/worker_reply_fuzz.cc),
// kept apart so a test can replay the seed corpus through it and prove it catches a planted
// codec bug. The input is one message payload, as the harness reads it from an external worker:
// each decoder either refuses it with a ProtocolError or decodes it, and a decoded message must
// encode back to exactly the same bytes. The encoding has one form per message, so a difference
// means the two sides of the protocol could read one message two ways. Crashes, out-of-bounds
// reads and allocations beyond the input's size are the sanitizers' and libFuzzer's to report.
#pragma once

#include <optional>
#include <string>

#include "cvmcheck_worker.hpp"

namespace cvm {

// The codec under test, as functions, so that a test can plant a bug in one of them.
struct WorkerCodecFunctions {
  cvmcheck_worker::Hello (*decode_hello)(const std::string&) = cvmcheck_worker::decode_hello;
  std::string (*encode_hello)(const cvmcheck_worker::Hello&) = cvmcheck_worker::encode_hello;
  cvmcheck_worker::Call (*decode_call)(const std::string&) = cvmcheck_worker::decode_call;
  std::string (*encode_call)(const cvmcheck_worker::Call&) = cvmcheck_worker::encode_call;
  cvmcheck_worker::Reply (*decode_reply)(const std::string&) = cvmcheck_worker::decode_reply;
  std::string (*encode_reply)(const cvmcheck_worker::Reply&) = cvmcheck_worker::encode_reply;
  // A reply read with the hello's flags (kFlagPaths: its kernel paths follow).
  cvmcheck_worker::Reply (*decode_reply_flags)(const std::string&, uint32_t) =
      cvmcheck_worker::decode_reply;
  std::string (*encode_reply_flags)(const cvmcheck_worker::Reply&, uint32_t) =
      cvmcheck_worker::encode_reply;
  // The whole-model messages (kFlagGraphs).
  cvmcheck_worker::ModelReply (*decode_model_reply)(const std::string&) =
      cvmcheck_worker::decode_model_reply;
  std::string (*encode_model_reply)(const cvmcheck_worker::ModelReply&) =
      cvmcheck_worker::encode_model_reply;
  cvmcheck_worker::GraphRequest (*decode_graph)(const std::string&) = cvmcheck_worker::decode_graph;
  std::string (*encode_graph)(const cvmcheck_worker::GraphRequest&) = cvmcheck_worker::encode_graph;
};

namespace worker_codec_check_detail {

// Decodes with `decode`; if that succeeds, the re-encoded frame's payload must be `payload`.
template <typename Decode, typename Encode>
std::optional<std::string> round_trip(const std::string& payload, const char* message,
                                      Decode decode, Encode encode) {
  std::string again;
  try {
    again = encode(decode(payload)).substr(4);  // the frame less its length prefix
  } catch (const cvmcheck_worker::ProtocolError&) {
    return std::nullopt;  // refused: the right answer to a malformed message
  }
  if (again == payload) return std::nullopt;
  return std::string(message) + " of " + std::to_string(payload.size()) +
         " bytes decodes, but encodes back to " + std::to_string(again.size()) +
         " different bytes";
}

}  // namespace worker_codec_check_detail

// A finding, or nullopt when every decoder refused the payload or read it back losslessly.
inline std::optional<std::string> worker_codec_finding(
    const std::string& payload, const WorkerCodecFunctions& codec = WorkerCodecFunctions{}) {
  using worker_codec_check_detail::round_trip;
  if (auto finding = round_trip(payload, "reply", codec.decode_reply, codec.encode_reply)) {
    return finding;
  }
  constexpr uint32_t kPaths = cvmcheck_worker::kFlagPaths;
  if (auto finding = round_trip(
          payload, "reply with paths",
          [&](const std::string& p) { return codec.decode_reply_flags(p, kPaths); },
          [&](const cvmcheck_worker::Reply& r) { return codec.encode_reply_flags(r, kPaths); })) {
    return finding;
  }
  if (auto finding = round_trip(payload, "hello", codec.decode_hello, codec.encode_hello)) {
    return finding;
  }
  if (auto finding = round_trip(payload, "model reply", codec.decode_model_reply,
                                 codec.encode_model_reply)) {
    return finding;
  }
  if (auto finding = round_trip(payload, "graph request", codec.decode_graph, codec.encode_graph)) {
    return finding;
  }
  return round_trip(payload, "call", codec.decode_call, codec.encode_call);
}

}  // namespace cvm
