#include "harness/jobs/stop_signal.h"

#include <atomic>
#include <csignal>

namespace cvm {
namespace {

// Lock-free, so the handler may store it (async-signal-safe); read by the loops.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
const std::atomic<int>* g_parent_stop = nullptr;

extern "C" void on_stop_signal(int signal) {
  int none = 0;
  if (g_stop_signal.compare_exchange_strong(none, signal)) return;
  // The second signal: the default action (the process ends with that signal, as the sender
  // expects), whatever the loop is doing.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // Interrupted system calls resume: the loops poll the flag, and a read of a worker's pipe
  // must not fail half-way for a stop that waits for the call boundary anyway.
  action.sa_flags = SA_RESTART;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
}

int stop_signal() {
  const int own = g_stop_signal.load();
  if (own != 0 || g_parent_stop == nullptr) return own;
  return g_parent_stop->load();
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal " + std::to_string(signal);
  }
}

std::string stop_reason() {
  const int signal = stop_signal();
  return signal == 0 ? std::string() : "signal:" + signal_name(signal);
}

void request_stop(int signal) { g_stop_signal.store(signal); }

void follow_parent_stop(const std::atomic<int>* parent) { g_parent_stop = parent; }

}  // namespace cvm
