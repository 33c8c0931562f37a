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
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cvmcheck_worker.hpp"
#include "inner_worker.h"

namespace w = cvmcheck_worker;

namespace {

// Flips the lowest bit of output 0's first value (a wrong value the contract never allows).
void break_reply(w::Reply& reply) {
  if (reply.outcome != w::Outcome::kOk || reply.outputs.empty()) return;
  std::vector<uint8_t>& data = reply.outputs[0].data;
  if (!data.empty()) data[0] ^= 1;
}

// Passes the hello both ways, then each call and its reply, until the harness says bye or the
// stream ends. Returns the exit status.
int relay(const planted_workers::InnerWorker& inner, const std::string& broken_op) {
  std::string payload;
  if (!w::read_frame(0, payload)) return 0;
  std::optional<w::Hello> hello = planted_workers::exchange_hello(inner, payload);
  if (!hello) return 5;
  hello->name += " [breaking_proxy: " + broken_op + "]";
  w::write_all(1, w::encode_hello(*hello));
  planted_workers::Tampering tampering;
  tampering.alter = [&broken_op](const w::Call& call, uint64_t, w::Reply& reply) {
    if (call.op == broken_op) break_reply(reply);
  };
  return planted_workers::relay_calls(inner, hello->flags, tampering);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || std::string(argv[1]) != "--break" || std::string(argv[3]) != "--") {
    std::fprintf(stderr, "usage: breaking_proxy --break OP -- COMMAND [ARG...]\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  planted_workers::InnerWorker inner =
      planted_workers::start_inner_worker(argv + 4, "breaking_proxy");
  int status = 0;
  try {
    status = relay(inner, argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "breaking_proxy: %s\n", e.what());
    status = 4;
  }
  planted_workers::stop_inner_worker(inner);
  return status;
}
