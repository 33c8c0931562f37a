#include "inner_worker.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace planted_workers {

namespace w = cvmcheck_worker;

InnerWorker start_inner_worker(char** argv, const char* who) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "%s: pipe: %s\n", who, std::strerror(errno));
    std::exit(2);
  }
  const pid_t parent = ::getpid();
  InnerWorker inner;
  inner.pid = ::fork();
  if (inner.pid < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", who, std::strerror(errno));
    std::exit(2);
  }
  if (inner.pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the planted worker died before the prctl
    ::dup2(down[0], 0);  // dup2 clears O_CLOEXEC on the copies
    ::dup2(up[1], 1);
    ::execvp(argv[0], argv);
    std::fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(down[0]);
  ::close(up[1]);
  inner.to = down[1];
  inner.from = up[0];
  return inner;
}

void stop_inner_worker(InnerWorker& inner) {
  if (inner.to >= 0) ::close(inner.to);
  if (inner.from >= 0) ::close(inner.from);
  inner.to = inner.from = -1;
  if (inner.pid > 0) {
    while (::waitpid(inner.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  inner.pid = -1;
}

std::optional<w::Hello> exchange_hello(const InnerWorker& inner,
                                       const std::string& harness_hello) {
  w::write_all(inner.to, w::encode_hello(w::decode_hello(harness_hello)));
  std::string payload;
  if (!w::read_frame(inner.from, payload)) return std::nullopt;
  w::Hello hello = w::decode_hello(payload);
  hello.flags &= ~w::kFlagGraphs;  // the proxies relay calls only: models go node by node
  return hello;
}

int relay_calls(const InnerWorker& inner, uint32_t flags, const Tampering& tampering) {
  std::string payload;
  uint64_t calls = 0;
  while (w::read_frame(0, payload)) {
    if (payload[0] == static_cast<char>(w::MessageType::kBye)) {  // a frame is never empty
      w::write_all(inner.to, w::encode_bye());
      return 0;
    }
    const w::Call call = w::decode_call(payload);
    ++calls;
    if (tampering.instead) {
      if (const std::optional<Substitute> substitute = tampering.instead(call, calls)) {
        w::write_all(1, substitute->bytes);
        if (substitute->then_stop) return 0;
        continue;
      }
    }
    w::write_all(inner.to, w::encode_call(call));
    std::string answer;
    if (!w::read_frame(inner.from, answer)) return 5;  // the inner worker died: so do we
    w::Reply reply = w::decode_reply(answer, flags);  // its paths pass through too
    if (tampering.alter) tampering.alter(call, calls, reply);
    w::write_all(1, w::encode_reply(reply, flags));
  }
  return 0;
}

}  // namespace planted_workers
