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
#pragma once

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "cvmcheck_worker_codec.hpp"

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

// Answers the harness's hello with `ours`, then serves calls; replies are encoded with
// ours.flags, so they carry their paths exactly when the hello said they would.
inline int serve_hello(const Hello& ours, const Handler& handler, int in_fd, int out_fd) {
  try {
    std::string payload;
    if (!read_frame(in_fd, payload)) return 0;
    const Hello theirs = decode_hello(payload);
    write_all(out_fd, encode_hello(ours));
    if (theirs.version != kProtocolVersion) return 3;  // the harness reports the mismatch
    while (read_frame(in_fd, payload)) {
      if (!payload.empty() && payload[0] == static_cast<char>(MessageType::kBye)) return 0;
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
      write_all(out_fd, encode_reply(reply, ours.flags));
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

}  // namespace cvmcheck_worker
