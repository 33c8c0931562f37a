// A worker that breaks the protocol or the contract on purpose, one way per mode, for the tests
// of the harness's client (each misbehaviour must become the right finding: a crash, a hang, a
// protocol error, a wrong value, a wrong error class). Until the call it misbehaves on, it
// serves the reference exactly as `cvmcheck worker --backend reference` does.
//
//   broken_worker MODE [KIND] [--on-call N]      (N: 1-based, default 1)
//
//   crash          SIGSEGV on call N               abort       SIGABRT on call N
//   exit           exit(3) on call N               hang        sleeps forever on call N
//   memory         on call N, allocates and touches 64 MiB blocks until the memory runs out
//                  (then aborts: a worker that cannot get memory must not answer)
//   wrong-value    from call N, output 0's first value of every ok reply is off by one bit
//   wrong-class    from call N, logic_error and runtime_error replies swap classes
//   garbage KIND   call N's reply is malformed: bad-length (a frame length over the limit),
//                  zero-length, truncated (the stream ends inside the frame), unknown-outcome,
//                  data-size (data bytes not matching the shape), unknown-dtype,
//                  oversized-count (an output count over the codec's list limit),
//                  trailing-bytes, wrong-id, wrong-type (a hello where a reply belongs)
//   bad-handshake  answers the hello with text that is not a frame, says so on stderr, exits 1
//   bad-version    answers the hello with protocol version 2, then serves normally
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "registry/registry.h"
#include "cvmcheck_worker.hpp"
#include "harness/workers/worker_call.h"

namespace {

namespace wp = cvmcheck_worker;

struct Options {
  std::string mode;
  std::string kind;      // garbage only
  uint64_t on_call = 1;  // the call (1-based) the misbehaviour starts at
};

const char* const kUsage =
    "usage: broken_worker MODE [KIND] [--on-call N]\n"
    "  MODE: crash abort exit hang memory wrong-value wrong-class garbage bad-handshake "
    "bad-version\n"
    "  KIND (garbage): bad-length zero-length truncated unknown-outcome data-size unknown-dtype "
    "oversized-count trailing-bytes wrong-id wrong-type\n";

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--on-call" && i + 1 < argc) {
      o.on_call = std::strtoull(argv[++i], nullptr, 10);
      if (o.on_call == 0) return false;
    } else if (o.mode.empty()) {
      o.mode = arg;
    } else if (o.kind.empty()) {
      o.kind = arg;
    } else {
      return false;
    }
  }
  static const char* const kModes[] = {"crash", "abort", "exit", "hang", "memory",
                                       "wrong-value", "wrong-class", "garbage",
                                       "bad-handshake", "bad-version"};
  static const char* const kKinds[] = {"bad-length", "zero-length", "truncated",
                                       "unknown-outcome", "data-size", "unknown-dtype",
                                       "oversized-count", "trailing-bytes", "wrong-id",
                                       "wrong-type"};
  bool mode_known = false, kind_known = false;
  for (const char* m : kModes) mode_known = mode_known || o.mode == m;
  for (const char* k : kKinds) kind_known = kind_known || o.kind == k;
  return mode_known && (o.mode == "garbage" ? kind_known : o.kind.empty());
}

// One output tensor of shape (2,) with its data size field set to `data_bytes` (8 is right).
void put_output(wp::Writer& w, uint8_t dtype, uint64_t data_bytes) {
  w.u8(dtype);
  w.u8(1);
  w.i64(2);
  w.i32(8);
  w.u64(data_bytes);
  for (int i = 0; i < 8; ++i) w.u8(0);
}

// The bytes a "garbage KIND" worker sends instead of call `id`'s reply.
std::string garbage_reply(const std::string& kind, uint64_t id) {
  if (kind == "bad-length") return std::string("\xff\xff\xff\xff", 4);
  if (kind == "zero-length") return std::string(4, '\0');
  wp::Writer w(kind == "wrong-type" ? wp::MessageType::kHello : wp::MessageType::kReply);
  if (kind == "wrong-type") {
    w.u32(wp::kProtocolVersion);
    w.str("broken");
    w.u32(0);
    w.u32(0);
    return w.frame();
  }
  w.u64(kind == "wrong-id" ? id + 1 : id);
  w.u8(kind == "unknown-outcome" ? 7 : 0);
  if (kind == "unknown-outcome") {
    w.str("an outcome no version defines");
    w.str("");
    return w.frame();
  }
  w.u32(kind == "oversized-count" ? wp::kMaxListLength + 1 : 1);
  put_output(w, kind == "unknown-dtype" ? 9 : 1, kind == "data-size" ? 12 : 8);
  if (kind == "trailing-bytes") w.u32(0xdeadbeef);
  std::string frame = w.frame();
  if (kind == "truncated") frame.resize(frame.size() / 2);  // then the worker exits
  return frame;
}

// Every block stays reachable from here: a block the program drops is one the compiler may
// elide with its memset (clang does), leaving a side-effect-free infinite loop, which is UB.
char* volatile g_last_block = nullptr;

[[noreturn]] void touch_memory_forever() {
  constexpr size_t kBlock = size_t{64} << 20;
  for (;;) {
    // malloc, not new: a bad_alloc would be caught by serve() and answered as runtime_error.
    auto* block = static_cast<char*>(std::malloc(kBlock));
    if (block == nullptr) {
      std::cerr << "broken_worker: out of memory, aborting\n";
      std::abort();
    }
    std::memset(block, 1, kBlock);  // touched, so it counts against the resident set
    char* const previous = g_last_block;
    std::memcpy(block, &previous, sizeof previous);  // a list of every block
    g_last_block = block;
  }
}

[[noreturn]] void misbehave_fatally(const std::string& mode) {
  std::cerr << "broken_worker: " << mode << " now\n";
  if (mode == "crash") {
    std::signal(SIGSEGV, SIG_DFL);  // a sanitizer's handler would turn it into an abort
    std::raise(SIGSEGV);
  } else if (mode == "exit") {
    std::exit(3);
  } else if (mode == "hang") {
    for (;;) ::pause();
  } else if (mode == "memory") {
    touch_memory_forever();
  }
  std::abort();  // "abort", and any mode that fell through
}

int serve_broken(const Options& o, int in_fd, int out_fd) {
  std::string payload;
  if (!wp::read_frame(in_fd, payload)) return 0;
  (void)wp::decode_hello(payload);
  if (o.mode == "bad-handshake") {
    wp::write_all(out_fd, "this is not a hello frame\n");
    std::cerr << "broken_worker: bad-handshake: wrote text instead of a hello\n";
    return 1;
  }
  wp::Hello hello;
  hello.name = "broken-" + o.mode;
  hello.ops = cvm::served_op_names(cvm::registry(), "reference");
  if (o.mode == "bad-version") hello.version = wp::kProtocolVersion + 1;
  wp::write_all(out_fd, wp::encode_hello(hello));

  uint64_t calls = 0;
  while (wp::read_frame(in_fd, payload)) {
    if (payload[0] == static_cast<char>(wp::MessageType::kBye)) return 0;
    const wp::Call call = wp::decode_call(payload);
    const bool now = ++calls >= o.on_call;
    if (now && (o.mode == "crash" || o.mode == "abort" || o.mode == "exit" || o.mode == "hang" ||
                o.mode == "memory")) {
      misbehave_fatally(o.mode);
    }
    if (now && calls == o.on_call && o.mode == "garbage") {
      wp::write_all(out_fd, garbage_reply(o.kind, call.id));
      if (o.kind == "truncated") return 0;
      continue;
    }
    wp::Reply reply = cvm::serve_call(cvm::registry(), "reference", call);
    reply.id = call.id;
    if (now && o.mode == "wrong-value" && reply.outcome == wp::Outcome::kOk &&
        !reply.outputs.empty() && !reply.outputs[0].data.empty()) {
      reply.outputs[0].data[0] ^= 1;
    } else if (now && o.mode == "wrong-class" && reply.outcome != wp::Outcome::kOk) {
      reply.outcome = reply.outcome == wp::Outcome::kLogicError ? wp::Outcome::kRuntimeError
                                                                : wp::Outcome::kLogicError;
    }
    wp::write_all(out_fd, wp::encode_reply(reply));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    std::cerr << kUsage;
    return 2;
  }
  const int out_fd = cvm::take_stdout_for_protocol();
  if (out_fd < 0) return 2;
  try {
    return serve_broken(options, 0, out_fd);
  } catch (const std::exception& e) {
    std::cerr << "broken_worker: " << e.what() << "\n";
    return 4;
  }
}
