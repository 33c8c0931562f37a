// A worker process for tests: started with pipes on its stdin and stdout (stderr inherited, so
// its diagnostics land in the test log), fed frames, read with a deadline so that a hanging
// worker fails a test instead of hanging it. Test-only; the harness has its own client.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "cvmcheck_worker.hpp"

namespace cvm::testing {

class WorkerProcess {
 public:
  // argv[0] is the program's path; throws std::runtime_error if it cannot be started.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();  // kills the worker if it still runs, then reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False when the worker's stdin is closed (it exited): the frame was not delivered.
  bool send(const std::string& frame);
  void close_input();

  enum class Got { kFrame, kTimeout, kEnd };
  // The default wait of every call below: a guard against a hung test, never a verdict on speed
  // (a worker on a loaded machine, or one whose start initializes a shared GPU, can take many
  // seconds to say hello). A test that expects a timeout names its own, short one.
  static constexpr int kGuardMs = 120000;
  // The next frame's payload within `timeout_ms`: kEnd on a clean end of stream before the
  // frame's first byte. A bad frame length, or the stream ending inside a frame, throws
  // cvmcheck_worker::ProtocolError (as the codec's read_frame).
  Got receive(std::string& payload, int timeout_ms = kGuardMs);

  // Sends a hello and decodes the answer (ProtocolError if there is none or it is malformed).
  cvmcheck_worker::Hello handshake();
  // Sends the call and decodes its reply (ProtocolError on a timeout or a malformed reply), with
  // its paths where the handshake's flags say the replies carry them.
  cvmcheck_worker::Reply call(const cvmcheck_worker::Call& call, int timeout_ms = kGuardMs);

  // The wait status (waitpid's), waiting up to `timeout_ms`; nullopt if it still runs then.
  std::optional<int> wait(int timeout_ms = kGuardMs);
  void kill();

 private:
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffer_;  // bytes read past the last frame
  uint32_t hello_flags_ = 0;  // the worker's, from handshake()
  std::optional<int> status_;
};

}  // namespace cvm::testing
