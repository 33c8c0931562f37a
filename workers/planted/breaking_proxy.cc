// A worker in front of another worker that breaks one operator of it: each call goes to the
// inner worker and its reply comes back, except that an ok reply of operator OP has the lowest
// bit of output 0's first value flipped. It gives an implementation we did not write one new
// bug and nothing else, for the nightly's life cycle (docs/nightly.md): the finding is new while
// the proxy is in front, fixed once the inner worker is run alone again.
//
//   breaking_proxy --break OP -- COMMAND [ARG...]
//
// The inner worker's hello (flags, operators; the name marked) is passed on; it dies with the
// proxy.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cvmcheck_worker.hpp"

namespace w = cvmcheck_worker;

namespace {

struct Inner {
  pid_t pid = -1;
  int to = -1;    // the inner worker's stdin
  int from = -1;  // its stdout
};

Inner start_inner(char** argv) {
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) {
    std::perror("breaking_proxy: pipe");
    std::exit(2);
  }
  Inner inner;
  inner.pid = ::fork();
  if (inner.pid < 0) {
    std::perror("breaking_proxy: fork");
    std::exit(2);
  }
  if (inner.pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(down[0], 0);
    ::dup2(up[1], 1);
    for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
    ::execvp(argv[0], argv);
    std::perror("breaking_proxy: exec");
    ::_exit(127);
  }
  ::close(down[0]);
  ::close(up[1]);
  inner.to = down[1];
  inner.from = up[0];
  return inner;
}

// Flips the lowest bit of output 0's first value (a wrong value the contract never allows).
void break_reply(w::Reply& reply) {
  if (reply.outcome != w::Outcome::kOk || reply.outputs.empty()) return;
  std::vector<uint8_t>& data = reply.outputs[0].data;
  if (!data.empty()) data[0] ^= 1;
}

// Passes the hello both ways, then each call and its reply, until the harness says bye or the
// stream ends. Returns the exit status.
int relay(const Inner& inner, const std::string& broken_op) {
  std::string payload;
  if (!w::read_frame(0, payload)) return 0;
  w::write_all(inner.to, w::encode_hello(w::decode_hello(payload)));
  if (!w::read_frame(inner.from, payload)) return 5;
  w::Hello hello = w::decode_hello(payload);
  hello.name += " [breaking_proxy: " + broken_op + "]";
  w::write_all(1, w::encode_hello(hello));
  while (w::read_frame(0, payload)) {
    if (!payload.empty() && payload[0] == static_cast<char>(w::MessageType::kBye)) {
      w::write_all(inner.to, w::encode_bye());
      return 0;
    }
    const w::Call call = w::decode_call(payload);
    w::write_all(inner.to, w::encode_call(call));
    std::string answer;
    if (!w::read_frame(inner.from, answer)) return 5;  // the inner worker died: so do we
    w::Reply reply = w::decode_reply(answer, hello.flags);  // its paths pass through too
    if (call.op == broken_op) break_reply(reply);
    w::write_all(1, w::encode_reply(reply, hello.flags));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || std::string(argv[1]) != "--break" || std::string(argv[3]) != "--") {
    std::fprintf(stderr, "usage: breaking_proxy --break OP -- COMMAND [ARG...]\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  const Inner inner = start_inner(argv + 4);
  int status = 0;
  try {
    status = relay(inner, argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "breaking_proxy: %s\n", e.what());
    status = 4;
  }
  ::close(inner.to);
  ::close(inner.from);
  ::waitpid(inner.pid, nullptr, 0);
  return status;
}
