#include "support/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace cvm::testing {

namespace wp = cvmcheck_worker;

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) {
  // A worker that dies before reading its input must fail the write, not kill the test binary.
  ::signal(SIGPIPE, SIG_IGN);
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw std::runtime_error("pipe failed");
  }
  // Built before fork: the child of a threaded process may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  if (pid_ < 0) {
    close_input();
    ::close(from_worker_);
    throw std::runtime_error("fork failed");
  }
}

WorkerProcess::~WorkerProcess() {
  close_input();
  if (!wait(0)) kill();
  if (from_worker_ >= 0) ::close(from_worker_);
}

bool WorkerProcess::send(const std::string& frame) {
  size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(to_worker_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void WorkerProcess::close_input() {
  if (to_worker_ >= 0) ::close(to_worker_);
  to_worker_ = -1;
}

WorkerProcess::Got WorkerProcess::receive(std::string& payload, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (buffer_.size() >= 4) {
      uint32_t len = 0;
      std::memcpy(&len, buffer_.data(), 4);
      if (len == 0 || len > wp::kMaxFrameBytes) {
        throw wp::ProtocolError("frame length " + std::to_string(len) + " out of range");
      }
      if (buffer_.size() >= 4 + size_t{len}) {
        payload = buffer_.substr(4, len);
        buffer_.erase(0, 4 + size_t{len});
        return Got::kFrame;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Got::kTimeout;
    pollfd fd{from_worker_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return Got::kTimeout;
    char chunk[65536];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (buffer_.empty()) return Got::kEnd;
      throw wp::ProtocolError("stream ends inside a frame");
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

wp::Hello WorkerProcess::handshake() {
  if (!send(wp::encode_hello(wp::Hello{}))) throw wp::ProtocolError("worker gone before hello");
  std::string payload;
  if (receive(payload) != Got::kFrame) throw wp::ProtocolError("no hello from the worker");
  wp::Hello hello = wp::decode_hello(payload);
  hello_flags_ = hello.flags;
  return hello;
}

wp::Reply WorkerProcess::call(const wp::Call& call, int timeout_ms) {
  if (!send(wp::encode_call(call))) throw wp::ProtocolError("worker gone before the call");
  std::string payload;
  const Got got = receive(payload, timeout_ms);
  if (got == Got::kTimeout) throw wp::ProtocolError("no reply within the timeout");
  if (got == Got::kEnd) throw wp::ProtocolError("worker gone without a reply");
  return wp::decode_reply(payload, hello_flags_);
}

std::optional<int> WorkerProcess::wait(int timeout_ms) {
  if (status_ || pid_ <= 0) return status_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      status_ = status;
      return status_;
    }
    if (done < 0 && errno != EINTR) return std::nullopt;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void WorkerProcess::kill() {
  if (status_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = status;
}

}  // namespace cvm::testing
