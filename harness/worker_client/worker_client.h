// The harness side of the worker protocol (docs/backend-protocol.md): runs an external
// implementation as a child process and makes calls to it. Isolation is the point: the worker
// dying, hanging, blowing its memory limit or garbling a reply becomes an Outcome with a
// `failure` ("crash", "hang", "protocol_error"), the worker is restarted on the next call, and the
// harness goes on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cvmcheck_worker.hpp"
#include "cvmcheck/registry.h"

namespace cvm {

struct WorkerOptions {
  std::string command;             // run with /bin/sh -c "exec COMMAND"
  double call_timeout_s = 10;      // a call over it is a hang (the worker is killed)
  double start_timeout_s = 30;     // start-up to the end of the handshake
  int64_t memory_bytes = int64_t{4} << 30;  // RLIMIT_AS of the worker; 0 for none
  std::string log_path;            // the worker's stderr (appended); empty: a file in $TMPDIR
  double spin_us = 0;              // poll for a reply this long before sleeping on it
  bool hang_stacks = false;        // on a hang, gdb's backtraces to LOG_PATH.stacks.txt
};

// The worker does not start or fails its handshake: names the command and the tail of stderr.
class WorkerStartError : public std::runtime_error {
 public:
  explicit WorkerStartError(const std::string& what) : std::runtime_error(what) {}
};

// A model run by a worker whose hello has cvmcheck_worker::kFlagGraphs: its model reply, or
// the failure it met instead ("crash", "hang", "protocol_error", with a message), as for calls.
struct ModelResult {
  std::string failure;  // empty: `reply` holds the worker's answer
  std::string message;
  cvmcheck_worker::ModelReply reply;
};

class WorkerClient {
 public:
  // Starts the worker and completes the handshake (WorkerStartError otherwise).
  explicit WorkerClient(WorkerOptions options);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  const cvmcheck_worker::Hello& hello() const { return hello_; }
  const WorkerOptions& options() const { return options_; }
  const std::string& log_path() const { return options_.log_path; }

  // One call; never throws for anything the worker does. A worker that is down (after a
  // failure) is restarted first; if it cannot be, the call is a "crash" failure.
  Outcome call(const std::string& op, const nlohmann::json& attrs,
               const std::vector<Tensor>& inputs);
  // The same call in two halves, so the harness can run the reference while the worker
  // computes: begin sends it (the call timeout starts now), finish waits for the reply. A
  // begin while a call is pending first finishes (and drops) that one; finish with none
  // pending is a protocol_error failure.
  void begin(const std::string& op, const nlohmann::json& attrs,
             const std::vector<Tensor>& inputs);
  Outcome finish();

  // The worker runs whole models (its hello has kFlagGraphs).
  bool runs_models() const { return (hello_.flags & cvmcheck_worker::kFlagGraphs) != 0; }
  // One model (the request's id is set here); never throws for anything the worker does (a
  // request over the frame limit is a cvmcheck_worker::ProtocolError, nothing sent). The reply's
  // id, bounds and framing are checked as a call's; the call timeout bounds the whole model. A
  // worker that does not runs_models() is not sent it: a protocol_error failure.
  ModelResult run_model(cvmcheck_worker::GraphRequest request);

  int64_t calls() const { return calls_; }  // calls and models sent
  int64_t restarts() const { return restarts_; }

  // The last `bytes` of the worker's stderr log.
  std::string stderr_tail(size_t bytes = 2000) const;

 private:
  void start();            // spawn + handshake; WorkerStartError
  void stop(bool polite);  // bye (when polite) then kill; reaps the child
  // Reads one frame before the deadline (steady clock, ns). Returns false on a timeout; throws
  // cvmcheck_worker::ProtocolError for a bad length, and sets `eof` on the end of the stream.
  bool read_frame(std::string& payload, int64_t deadline_ns, bool& eof);
  bool write_frame(const std::string& frame, int64_t deadline_ns, bool& broken);
  std::string exit_description();  // after the stream ended: how the process ended
  Outcome failure(const std::string& kind, const std::string& message);
  Outcome crashed(const std::string& when);  // the stream ended: a crash failure, reaped
  Outcome hung();                            // past the deadline: killed, a hang failure

  WorkerOptions options_;
  cvmcheck_worker::Hello hello_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  uint64_t next_id_ = 1;
  int64_t calls_ = 0;
  int64_t restarts_ = 0;
  std::string read_buffer_;
  // The call begun and not finished: its id and deadline, or the failure it already met.
  struct Pending {
    bool active = false;
    uint64_t id = 0;
    int64_t deadline_ns = 0;
    std::optional<Outcome> settled;
  } pending_;
};

}  // namespace cvm
