// A piece of work in a forked child process, its reply frame returned to the worker.
#pragma once

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "cvmcheck_worker.hpp"

// Defined only in a build with --coverage (gcov's runtime): writes the counters, which _exit
// would otherwise drop.
extern "C" void __gcov_dump(void) __attribute__((weak));

namespace cvm_runtime_worker {

// `work` in a child process, its frame's payload returned: each call (and each model) runs as a
// fresh model, as a model file run by its own process would be: memory the original corrupts in
// one call (it writes out of bounds on some inputs, SEMANTICS section 6) cannot change the outcome
// of a later call. A child killed by a signal takes the worker down with the same signal, so the
// harness sees the crash of the original as it happened; a child left behind by a killed worker
// dies with it.
inline std::string in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) {
    throw std::runtime_error(std::string("worker: pipe: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("worker: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
    int status = 0;
    try {
      cvmcheck_worker::write_all(fds[1], work());
    } catch (...) {
      status = 124;
    }
    if (__gcov_dump != nullptr) __gcov_dump();  // a --coverage build (coverage.sh): _exit skips it
    ::_exit(status);
  }
  ::close(fds[1]);
  std::string payload;
  bool got = false;
  std::string read_error;
  try {
    got = cvmcheck_worker::read_frame(fds[0], payload);
  } catch (const std::exception& e) {
    read_error = e.what();
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::signal(sig, SIG_DFL);
    ::raise(sig);  // the original crashed: so does the worker
    ::_exit(128 + sig);
  }
  if (!got || !read_error.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("worker: the child process ended without a reply (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                             (read_error.empty() ? "" : ", " + read_error) + ")");
  }
  return payload;
}

}  // namespace cvm_runtime_worker
