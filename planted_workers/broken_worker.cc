// A worker that breaks the protocol or the contract on purpose, one way per mode, for the tests
// of the harness's client (each misbehaviour must become the right finding: a crash, a hang, a
// protocol error, a wrong value, a wrong error class). It stands in front of an inner worker
// (inner_worker.h): until the call it misbehaves on, it passes each call on and each reply back
// unchanged, so with `cvmcheck worker --backend reference` behind it, it serves the reference
// exactly as that does; it needs nothing but the worker SDK.
//
//   broken_worker MODE [KIND] [--on-call N] -- COMMAND [ARG...]      (N: 1-based, default 1)
//
//   crash          SIGSEGV on call N               abort       SIGABRT on call N
//   exit           exit(3) on call N               hang        sleeps forever on call N
//   spin           loops forever on call N, burning a core
//   memory         on call N, allocates and touches 64 MiB blocks until the memory runs out
//                  (then aborts: a worker that cannot get memory must not answer)
//   wrong-value    from call N, output 0's first value of every ok reply is off by one bit
//   wrong-class    from call N, logic_error and runtime_error replies swap classes
//   garbage KIND   call N's reply is malformed: bad-length (a frame length over the limit),
//                  zero-length, truncated (the stream ends inside the frame), unknown-outcome,
//                  data-size (data bytes not matching the shape), unknown-dtype,
//                  oversized-count (an output count over the codec's list limit),
//                  trailing-bytes, wrong-id, wrong-type (a hello where a reply belongs); the
//                  inner worker never sees call N
//   bad-handshake  answers the hello with text that is not a frame, says so on stderr, exits 1
//                  (before any inner worker starts)
//   bad-version    answers the hello with protocol version 2, then serves normally
//
// The hello passed back is the inner worker's (its flags, operators and paths), named
// broken-MODE.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "cvmcheck_worker.hpp"
#include "inner_worker.h"

namespace {

namespace wp = cvmcheck_worker;

struct Options {
  std::string mode;
  std::string kind;        // garbage only
  uint64_t on_call = 1;    // the call (1-based) the misbehaviour starts at
  char** inner = nullptr;  // the inner worker's COMMAND [ARG...], null-terminated
};

const char* const kUsage =
    "usage: broken_worker MODE [KIND] [--on-call N] -- COMMAND [ARG...]\n"
    "  MODE: crash abort exit hang spin memory wrong-value wrong-class garbage bad-handshake "
    "bad-version\n"
    "  KIND (garbage): bad-length zero-length truncated unknown-outcome data-size unknown-dtype "
    "oversized-count trailing-bytes wrong-id wrong-type\n"
    "  COMMAND: the inner worker, e.g. cvmcheck worker --backend reference\n";

bool known_mode(const Options& o) {
  static const char* const kModes[] = {"crash", "abort", "exit", "hang", "spin", "memory",
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

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      if (i + 1 == argc) return false;
      o.inner = argv + i + 1;
      break;
    }
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
  return o.inner != nullptr && known_mode(o);
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

// The bytes a "garbage KIND" worker sends instead of call `id`'s reply; `flags` are the hello's,
// so that each kind is malformed in the one way it names (with kFlagPaths a reply ends with its
// path count).
std::string garbage_reply(const std::string& kind, uint64_t id, uint32_t flags) {
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
  if ((flags & wp::kFlagPaths) != 0) w.u32(0);
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
    // malloc, not new: a bad_alloc would be caught in main and end the worker with status 4.
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

bool is_fatal(const std::string& mode) {
  return mode == "crash" || mode == "abort" || mode == "exit" || mode == "hang" ||
         mode == "spin" || mode == "memory";
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
  } else if (mode == "spin") {
    for (volatile uint64_t turns = 0;; turns = turns + 1) {
    }
  } else if (mode == "memory") {
    touch_memory_forever();
  }
  std::abort();  // "abort", and any mode that fell through
}

// From call N on: a fatal misbehaviour, call N's garbage, or a changed reply.
planted_workers::Tampering tampering_of(const Options& o, uint32_t flags) {
  planted_workers::Tampering t;
  t.instead = [&o, flags](const wp::Call& call,
                          uint64_t n) -> std::optional<planted_workers::Substitute> {
    if (n >= o.on_call && is_fatal(o.mode)) misbehave_fatally(o.mode);
    if (n != o.on_call || o.mode != "garbage") return std::nullopt;
    return planted_workers::Substitute{garbage_reply(o.kind, call.id, flags),
                                       o.kind == "truncated"};
  };
  t.alter = [&o](const wp::Call&, uint64_t n, wp::Reply& reply) {
    if (n < o.on_call) return;
    if (o.mode == "wrong-value" && reply.outcome == wp::Outcome::kOk && !reply.outputs.empty() &&
        !reply.outputs[0].data.empty()) {
      reply.outputs[0].data[0] ^= 1;
    } else if (o.mode == "wrong-class" && reply.outcome != wp::Outcome::kOk) {
      reply.outcome = reply.outcome == wp::Outcome::kLogicError ? wp::Outcome::kRuntimeError
                                                                : wp::Outcome::kLogicError;
    }
  };
  return t;
}

// Passes the hello both ways (the inner worker's, renamed, back), then relays the calls.
int relay_through(const Options& o, const planted_workers::InnerWorker& inner,
                  const std::string& harness_hello) {
  std::optional<wp::Hello> hello = planted_workers::exchange_hello(inner, harness_hello);
  if (!hello) {
    std::cerr << "broken_worker: the inner worker " << o.inner[0] << " ended before its hello\n";
    return 5;
  }
  hello->name = "broken-" + o.mode;
  if (o.mode == "bad-version") hello->version = wp::kProtocolVersion + 1;
  wp::write_all(1, wp::encode_hello(*hello));
  return planted_workers::relay_calls(inner, hello->flags, tampering_of(o, hello->flags));
}

int serve_broken(const Options& o) {
  std::string payload;
  if (!wp::read_frame(0, payload)) return 0;
  (void)wp::decode_hello(payload);
  if (o.mode == "bad-handshake") {
    wp::write_all(1, "this is not a hello frame\n");
    std::cerr << "broken_worker: bad-handshake: wrote text instead of a hello\n";
    return 1;
  }
  planted_workers::InnerWorker inner =
      planted_workers::start_inner_worker(o.inner, "broken_worker");
  int status = 4;
  try {
    status = relay_through(o, inner, payload);
  } catch (const std::exception& e) {
    std::cerr << "broken_worker: " << e.what() << "\n";
  }
  planted_workers::stop_inner_worker(inner);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    std::cerr << kUsage;
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a harness gone mid-reply: a write error, status 4
  try {
    return serve_broken(options);
  } catch (const std::exception& e) {
    std::cerr << "broken_worker: " << e.what() << "\n";
    return 4;
  }
}
