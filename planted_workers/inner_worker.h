// The worker a planted worker stands in front of. Both planted workers are proxies: each call
// goes to an inner worker (`cvmcheck worker --backend reference` in the tests) and its reply
// comes back, tampered with as the planted worker says. So they compute nothing themselves and
// build on the worker SDK alone (worker_sdk/include/cvmcheck_worker.hpp), whatever the inner
// worker serves.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cvmcheck_worker.hpp"

namespace planted_workers {

struct InnerWorker {
  pid_t pid = -1;
  int to = -1;    // its stdin
  int from = -1;  // its stdout
};

// Starts `argv` (COMMAND [ARG...], null-terminated) with its stdin and stdout on pipes to this
// process; it is killed when this process dies. Exits with status 2, naming `who`, when no
// process can be started (a command that cannot be run ends the inner worker with status 127).
InnerWorker start_inner_worker(char** argv, const char* who);

// Closes its pipes and waits for it to end.
void stop_inner_worker(InnerWorker& inner);

// Passes the harness's hello (the payload read from stdin) to the inner worker and returns its
// answer, less kFlagGraphs (a proxy relays calls, not models); nullopt when it ended before
// answering.
std::optional<cvmcheck_worker::Hello> exchange_hello(const InnerWorker& inner,
                                                     const std::string& harness_hello);

// What goes to the harness in place of the inner worker's reply to a call.
struct Substitute {
  std::string bytes;      // sent as they are (they need not be a frame)
  bool then_stop = false;  // end the relay after sending them
};

// How a planted worker tampers with the relay; each hook gets the call and its number (1-based).
struct Tampering {
  // Before the call goes to the inner worker: bytes to send instead of its reply (the inner
  // worker never sees the call), or nullopt to pass the call on. May end the process.
  std::function<std::optional<Substitute>(const cvmcheck_worker::Call&, uint64_t)> instead;
  // The inner worker's reply, changed in place before it goes to the harness.
  std::function<void(const cvmcheck_worker::Call&, uint64_t, cvmcheck_worker::Reply&)> alter;
};

// Passes each call from stdin to the inner worker and its reply to stdout (encoded with `flags`,
// the hello's), until the harness says bye or its stream ends (0), or the inner worker ends
// before replying (5). Throws cvmcheck_worker::ProtocolError on a malformed message.
int relay_calls(const InnerWorker& inner, uint32_t flags, const Tampering& tampering);

}  // namespace planted_workers
