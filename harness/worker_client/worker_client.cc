#include "harness/worker_client/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "harness/worker_client/hang_probe.h"
#include "harness/worker_client/worker_call.h"

namespace cvm {
namespace wire = cvmcheck_worker;

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t deadline_after(double seconds) { return now_ns() + static_cast<int64_t>(seconds * 1e9); }

int remaining_ms(int64_t deadline_ns) {
  const int64_t left = deadline_ns - now_ns();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left / 1000000 + 1, 1 << 30));
}

std::string temp_log_path() {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
                        "/cvmcheck-worker-XXXXXX.log";
  const int fd = ::mkstemps(pattern.data(), 4);
  if (fd >= 0) ::close(fd);
  return pattern;
}

wire::DType wire_dtype(DType dtype) {
  return dtype == DType::kInt8 ? wire::DType::kInt8 : wire::DType::kInt32;
}

}  // namespace

WorkerClient::WorkerClient(WorkerOptions options) : options_(std::move(options)) {
  if (options_.log_path.empty()) options_.log_path = temp_log_path();
  start();
}

WorkerClient::~WorkerClient() { stop(/*polite=*/true); }

std::string WorkerClient::stderr_tail(size_t bytes) const {
  std::ifstream in(options_.log_path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(bytes)
                                  ? size - static_cast<std::streamoff>(bytes) : 0;
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return tail;
}

void WorkerClient::start() {
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an EPIPE we handle, never a signal
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) fail_runtime("pipe: ", std::strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    fail_runtime("pipe: ", std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  const std::string script = "exec " + options_.command;
  const char* log = options_.log_path.c_str();
  rlimit memory{};
  memory.rlim_cur = memory.rlim_max = static_cast<rlim_t>(options_.memory_bytes);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail_runtime("fork: ", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);                     // its own group, so a kill reaches all of it
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and it never outlives the harness
    if (::getppid() != parent) ::_exit(126);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    const int err = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (err >= 0) ::dup2(err, 2);
    if (options_.memory_bytes > 0) ::setrlimit(RLIMIT_AS, &memory);
    ::signal(SIGPIPE, SIG_DFL);
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from this side, so the group exists before any kill
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  pid_ = pid;
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  ::fcntl(to_worker_, F_SETFL, ::fcntl(to_worker_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_worker_, F_SETFL, ::fcntl(from_worker_, F_GETFL) | O_NONBLOCK);
  read_buffer_.clear();

  const auto start_failed = [&](const std::string& why) {
    stop(/*polite=*/false);
    const std::string tail = stderr_tail(1500);
    throw WorkerStartError(concat("worker '", options_.command, "' ", why,
                                  tail.empty() ? std::string("; its stderr is empty")
                                               : "; the tail of its stderr (" +
                                                     options_.log_path + "):\n" + tail));
  };
  const int64_t deadline = deadline_after(options_.start_timeout_s);
  bool broken = false;
  wire::Hello ours;
  if (!write_frame(wire::encode_hello(ours), deadline, broken)) {
    start_failed(broken ? "closed its input before the handshake (" + exit_description() + ")"
                        : "did not read the handshake in time");
  }
  std::string payload;
  bool eof = false;
  try {
    if (!read_frame(payload, deadline, eof)) {
      start_failed(eof ? "ended before the handshake (" + exit_description() + ")"
                       : concat("sent no handshake within ", options_.start_timeout_s, " s"));
    }
    hello_ = wire::decode_hello(payload);
  } catch (const wire::ProtocolError& e) {
    start_failed(std::string("sent a malformed handshake: ") + e.what());
  }
  if (hello_.version != wire::kProtocolVersion) {
    start_failed(concat("speaks protocol version ", hello_.version, "; this harness speaks ",
                        wire::kProtocolVersion));
  }
}

void WorkerClient::stop(bool polite) {
  if (pid_ < 0) return;
  if (polite) {
    bool broken = false;
    write_frame(wire::encode_bye(), deadline_after(0.5), broken);
  }
  ::close(to_worker_);
  ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  int status = 0;
  const int64_t deadline = deadline_after(polite ? 1.0 : 0.0);
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (now_ns() >= deadline) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(-pid_, SIGKILL);  // anything it left running in its group
  pid_ = -1;
}

std::string WorkerClient::exit_description() {
  if (pid_ < 0) return "not running";
  int status = 0;
  pid_t done = 0;
  const int64_t deadline = deadline_after(1.0);
  while ((done = ::waitpid(pid_, &status, WNOHANG)) == 0 && now_ns() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string what;
  if (done == 0) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    what = "closed its pipes and was killed";
  } else if (WIFSIGNALED(status)) {
    what = concat("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  } else if (WIFEXITED(status)) {
    what = concat("exited with status ", WEXITSTATUS(status));
  } else {
    what = "ended";
  }
  ::kill(-pid_, SIGKILL);
  ::close(to_worker_);
  ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  pid_ = -1;
  return what;
}

bool WorkerClient::write_frame(const std::string& frame, int64_t deadline_ns, bool& broken) {
  size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(to_worker_, frame.data() + done, frame.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{to_worker_, POLLOUT, 0};
      const int ready = ::poll(&p, 1, remaining_ms(deadline_ns));
      if (ready == 0 && now_ns() >= deadline_ns) return false;
      continue;
    }
    broken = true;  // EPIPE: the worker closed its input (it died)
    return false;
  }
  return true;
}

bool WorkerClient::read_frame(std::string& payload, int64_t deadline_ns, bool& eof) {
  char chunk[65536];
  int64_t spin_until = 0;
  for (;;) {
    if (read_buffer_.size() >= 4) {
      uint32_t len = 0;
      std::memcpy(&len, read_buffer_.data(), 4);
      if (len == 0 || len > wire::kMaxFrameBytes) {
        throw wire::ProtocolError(concat("frame length ", len, " out of range (1..",
                                         wire::kMaxFrameBytes, ")"));
      }
      if (read_buffer_.size() >= 4 + static_cast<size_t>(len)) {
        payload.assign(read_buffer_, 4, len);
        read_buffer_.erase(0, 4 + static_cast<size_t>(len));
        return true;
      }
    }
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n > 0) {
      read_buffer_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      if (!read_buffer_.empty()) {  // it wrote part of a frame and ended
        throw wire::ProtocolError(concat("the stream ends inside a frame (", read_buffer_.size(),
                                         " bytes of it)"));
      }
      eof = true;
      return false;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      eof = true;
      return false;
    }
    // Polling a little before sleeping spares the worker a cross-CPU wake-up on its reply,
    // which costs tens of microseconds on a VM; worth it only with a core to spare.
    if (spin_until == 0) spin_until = now_ns() + static_cast<int64_t>(options_.spin_us * 1e3);
    if (now_ns() < spin_until) continue;
    pollfd p{from_worker_, POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline_ns));
    if (ready == 0 && now_ns() >= deadline_ns) return false;
  }
}

Outcome WorkerClient::failure(const std::string& kind, const std::string& message) {
  Outcome outcome;
  outcome.kind = OutcomeKind::kRuntimeError;
  outcome.failure = kind;
  outcome.message = message;
  return outcome;
}

Outcome WorkerClient::call(const std::string& op, const nlohmann::json& attrs,
                           const std::vector<Tensor>& inputs) {
  begin(op, attrs, inputs);
  return finish();
}

void WorkerClient::begin(const std::string& op, const nlohmann::json& attrs,
                         const std::vector<Tensor>& inputs) {
  if (pending_.active) (void)finish();  // an abandoned call (its caller threw): keep in step
  pending_ = Pending{};
  pending_.active = true;
  if (pid_ < 0) {
    try {
      ++restarts_;
      start();
    } catch (const std::exception& e) {
      pending_.settled = failure("crash", concat("the worker could not be restarted: ", e.what()));
      return;
    }
  }
  ++calls_;
  pending_.id = next_id_++;
  wire::Writer w(wire::MessageType::kCall);
  w.u64(pending_.id);
  w.str(op);
  wire::encode_attrs(w, attrs_to_protocol(attrs));
  w.u32(static_cast<uint32_t>(inputs.size()));
  for (const Tensor& t : inputs) {
    const bool i8 = t.dtype() == DType::kInt8;
    w.tensor_parts(wire_dtype(t.dtype()), t.shape(), t.precision(),
                   i8 ? static_cast<const void*>(t.i8()) : static_cast<const void*>(t.i32()),
                   static_cast<size_t>(t.size()) * (i8 ? 1 : 4));
  }
  pending_.deadline_ns = deadline_after(options_.call_timeout_s);
  bool broken = false;
  if (!write_frame(w.frame(), pending_.deadline_ns, broken)) {
    pending_.settled = broken ? crashed("before the call was sent") : hung();
  }
}

Outcome WorkerClient::crashed(const std::string& when) {
  const std::string how = exit_description();
  const std::string tail = stderr_tail(400);
  return failure("crash", concat("worker ", how, " ", when,
                                 tail.empty() ? std::string() : "; stderr ends: " + tail));
}

Outcome WorkerClient::hung() {
  const HangProbe probe = probe_hung_process(
      pid_, 0.3, options_.hang_stacks ? options_.log_path + ".stacks.txt" : std::string());
  stop(/*polite=*/false);
  std::string message = concat("no reply within ", options_.call_timeout_s,
                               " s (--call-timeout); the worker was killed");
  if (!probe.summary.empty()) message += concat(" (it was ", probe.summary, ")");
  if (!probe.stack_path.empty()) {
    message += concat(probe.stacks_taken ? "; its stacks: " : "; no stacks taken, see ",
                      probe.stack_path);
  }
  return failure("hang", message);
}

Outcome WorkerClient::finish() {
  if (!pending_.active) return failure("protocol_error", "no call is pending (a harness bug)");
  Pending call = std::move(pending_);
  pending_ = Pending{};
  if (call.settled) return std::move(*call.settled);
  std::string payload;
  bool eof = false;
  wire::Reply reply;
  try {
    if (!read_frame(payload, call.deadline_ns, eof)) {
      return eof ? crashed("during the call") : hung();
    }
    reply = wire::decode_reply(payload, hello_.flags);  // with kFlagPaths, its paths too
    if (reply.id != call.id) {
      throw wire::ProtocolError(concat("reply for call ", reply.id, " where ", call.id,
                                       " was expected"));
    }
    if (!read_buffer_.empty()) {
      throw wire::ProtocolError(concat(read_buffer_.size(), " bytes after the reply"));
    }
  } catch (const wire::ProtocolError& e) {
    stop(/*polite=*/false);  // the stream is out of step: start afresh
    return failure("protocol_error", e.what());
  }
  // A rule id counts only from a worker that said in its handshake that it reports them.
  if ((hello_.flags & wire::kFlagReportsRules) == 0) reply.rule.clear();
  try {
    return outcome_from_reply(reply);
  } catch (const std::exception& e) {
    // A shape no tensor may have (no dims, a zero dim, over 6 dims): not a result to compare.
    return failure("protocol_error", e.what());
  }
}

ModelResult WorkerClient::run_model(wire::GraphRequest request) {
  if (pending_.active) (void)finish();  // an abandoned call: keep in step
  const auto failed = [](const Outcome& o) { return ModelResult{o.failure, o.message, {}}; };
  if (!runs_models()) {
    return failed(failure("protocol_error", "the worker does not run models (no kFlagGraphs)"));
  }
  if (pid_ < 0) {
    try {
      ++restarts_;
      start();
    } catch (const std::exception& e) {
      return failed(failure("crash", concat("the worker could not be restarted: ", e.what())));
    }
  }
  ++calls_;
  request.id = next_id_++;
  const std::string frame = wire::encode_graph(request);  // ProtocolError over the frame limit
  const int64_t deadline = deadline_after(options_.call_timeout_s);
  bool broken = false;
  if (!write_frame(frame, deadline, broken)) {
    return failed(broken ? crashed("before the model was sent") : hung());
  }
  ModelResult result;
  std::string payload;
  bool eof = false;
  try {
    if (!read_frame(payload, deadline, eof)) return failed(eof ? crashed("during the model") : hung());
    result.reply = wire::decode_model_reply(payload);
    if (result.reply.id != request.id) {
      throw wire::ProtocolError(concat("model reply for graph ", result.reply.id, " where ",
                                       request.id, " was expected"));
    }
    if (!read_buffer_.empty()) {
      throw wire::ProtocolError(concat(read_buffer_.size(), " bytes after the model reply"));
    }
  } catch (const wire::ProtocolError& e) {
    stop(/*polite=*/false);  // the stream is out of step: start afresh
    return failed(failure("protocol_error", e.what()));
  }
  if ((hello_.flags & wire::kFlagReportsRules) == 0) result.reply.rule.clear();
  return result;
}

}  // namespace cvm
