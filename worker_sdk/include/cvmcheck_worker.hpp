// cvmcheck worker protocol, version 1 (docs/backend-protocol.md): the codec
// (cvmcheck_worker_codec.hpp) and a serve loop, header-only, C++17, no dependency beyond the
// standard library and POSIX read/write.
//
// An implementation under test becomes a cvmcheck backend by supplying one function:
//
//   #include "cvmcheck_worker.hpp"
//   cvmcheck_worker::Reply my_call(const cvmcheck_worker::Call& call) { ... }
//   int main() { return cvmcheck_worker::serve("my-impl", {"abs", "clip"}, my_call); }
//
// and is run as `cvmcheck campaign --backend exec:"./my-worker"`. The handler throws
// cvmcheck_worker::LogicError for a bad model or input (optionally naming the rule id); any other
// exception becomes a runtime_error reply.
//
// A worker that reports its kernel paths declares them with serve_with_paths and names the
// paths each call took in Reply::paths (a failed call's too: return Reply::error with its paths
// rather than throwing, since a thrown exception carries none).
//
// A worker that runs whole models serves with serve_graphs: a second handler takes each graph
// request and returns the model reply (kFlagGraphs is set).
#pragma once

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "cvmcheck_worker_codec.hpp"
#include "cvmcheck_worker_graph_codec.hpp"

namespace cvmcheck_worker {

// ---------------------------------------------------------------------------------------------
// Blocking frame I/O on file descriptors (the worker side; the harness adds timeouts).

inline void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ProtocolError(std::string("write failed: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

// Reads exactly n bytes; false on end of stream before the first byte, ProtocolError inside.
inline bool read_exact(int fd, void* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd, static_cast<char*>(out) + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw ProtocolError(std::string("read failed: ") + std::strerror(errno));
    if (got == 0) {
      if (done == 0) return false;
      throw ProtocolError("stream ends inside a frame");
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

// One frame's payload; false on a clean end of stream.
inline bool read_frame(int fd, std::string& payload) {
  uint32_t len = 0;
  if (!read_exact(fd, &len, 4)) return false;
  if (len == 0 || len > kMaxFrameBytes) {
    throw ProtocolError("frame length " + std::to_string(len) + " out of range");
  }
  payload.resize(len);
  if (!read_exact(fd, payload.data(), len)) throw ProtocolError("stream ends inside a frame");
  return true;
}

// ---------------------------------------------------------------------------------------------
// The worker's loop: answer the harness's hello, then one reply per call until bye or end of
// input. Returns the process exit status (0 on a clean stop).

using Handler = std::function<Reply(const Call&)>;
using GraphHandler = std::function<ModelReply(const GraphRequest&)>;

// One graph request answered: the handler's reply, or its exception as a failure of the graph
// as a whole (node -1), as is a reply over the frame limit.
inline std::string answer_graph(const std::string& payload, const GraphHandler& graph_handler) {
  const GraphRequest request = decode_graph(payload);
  ModelReply reply;
  try {
    reply = graph_handler(request);
  } catch (const LogicError& e) {
    reply = ModelReply::error(Outcome::kLogicError, e.what(), e.rule);
  } catch (const std::exception& e) {
    reply = ModelReply::error(Outcome::kRuntimeError, e.what());
  }
  reply.id = request.id;
  try {
    return encode_model_reply(reply);
  } catch (const ProtocolError& e) {  // every entry of a large model can pass the frame limit
    ModelReply over = ModelReply::error(Outcome::kRuntimeError, e.what());
    over.id = request.id;
    return encode_model_reply(over);
  }
}

inline std::string answer_call(const std::string& payload, const Handler& handler,
                               uint32_t flags) {
  const Call call = decode_call(payload);
  Reply reply;
  try {
    reply = handler(call);
  } catch (const LogicError& e) {
    reply = Reply::error(Outcome::kLogicError, e.what(), e.rule);
  } catch (const std::exception& e) {
    reply = Reply::error(Outcome::kRuntimeError, e.what());
  }
  reply.id = call.id;
  return encode_reply(reply, flags);
}

// Answers the harness's hello with `ours`, then serves calls (and graph requests, where
// `graph_handler` is set); replies are encoded with ours.flags, so they carry their paths
// exactly when the hello said they would. A graph request to a worker without a graph handler
// is a malformed message.
inline int serve_hello(const Hello& ours, const Handler& handler, int in_fd, int out_fd,
                       const GraphHandler& graph_handler = nullptr) {
  try {
    std::string payload;
    if (!read_frame(in_fd, payload)) return 0;
    const Hello theirs = decode_hello(payload);
    write_all(out_fd, encode_hello(ours));
    if (theirs.version != kProtocolVersion) return 3;  // the harness reports the mismatch
    while (read_frame(in_fd, payload)) {
      const char type = payload[0];  // read_frame never returns an empty payload
      if (type == static_cast<char>(MessageType::kBye)) return 0;
      if (type == static_cast<char>(MessageType::kGraph) && graph_handler) {
        write_all(out_fd, answer_graph(payload, graph_handler));
      } else {
        write_all(out_fd, answer_call(payload, handler, ours.flags));
      }
    }
    return 0;
  } catch (const ProtocolError& e) {
    const std::string line = std::string("cvmcheck_worker: ") + e.what() + "\n";
    (void)!::write(2, line.data(), line.size());
    return 4;
  }
}

inline int serve(const std::string& name, const std::vector<std::string>& ops,
                 const Handler& handler, uint32_t flags = 0, int in_fd = 0, int out_fd = 1) {
  Hello ours;
  ours.name = name;
  ours.flags = flags;
  ours.ops = ops;
  return serve_hello(ours, handler, in_fd, out_fd);
}

// serve, declaring `paths` (kFlagPaths is set; the list may be empty): each reply then carries
// the handler's Reply::paths.
inline int serve_with_paths(const std::string& name, const std::vector<std::string>& ops,
                            const std::vector<PathDecl>& paths, const Handler& handler,
                            uint32_t flags = 0, int in_fd = 0, int out_fd = 1) {
  Hello ours;
  ours.name = name;
  ours.flags = flags | kFlagPaths;
  ours.ops = ops;
  ours.paths = paths;
  return serve_hello(ours, handler, in_fd, out_fd);
}

// serve, running whole models too: kFlagGraphs is set (with `flags`), calls go to `handler`,
// graph requests to `graph_handler`. `paths`, where not empty, are declared as serve_with_paths
// declares them (model replies carry none).
inline int serve_graphs(const std::string& name, const std::vector<std::string>& ops,
                        const Handler& handler, const GraphHandler& graph_handler,
                        uint32_t flags = 0, const std::vector<PathDecl>& paths = {},
                        int in_fd = 0, int out_fd = 1) {
  Hello ours;
  ours.name = name;
  ours.flags = flags | kFlagGraphs | (paths.empty() ? 0u : kFlagPaths);
  ours.ops = ops;
  ours.paths = paths;
  return serve_hello(ours, handler, in_fd, out_fd, graph_handler);
}

}  // namespace cvmcheck_worker
