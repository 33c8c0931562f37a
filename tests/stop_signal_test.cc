// The graceful stop (harness/jobs/stop_signal.h): the first signal only asks to stop, a second
// one ends the process with that signal; a job follows its parent's stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "harness/jobs/stop_signal.h"

namespace cvm {
namespace {

// Runs `body` in a forked child (the handlers are per process) and returns its wait status.
template <typename F>
int in_child(F body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(StopSignal, TheFirstSignalAsksTheSecondEndsTheProcess) {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    const int status = in_child([signal] {
      install_stop_handlers();
      if (stop_signal() != 0) return 10;
      ::raise(signal);
      if (stop_signal() != signal || stop_reason() != "signal:" + signal_name(signal)) return 11;
      ::raise(signal);  // ends the process here
      return 12;
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << signal_name(signal) << " exit " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), signal);
  }
}

TEST(StopSignal, AJobFollowsItsParentsStop) {
  const int status = in_child([] {
    std::atomic<int> parent{0};
    follow_parent_stop(&parent);
    if (stop_signal() != 0) return 10;
    parent.store(SIGTERM);
    return stop_signal() == SIGTERM && stop_reason() == "signal:SIGTERM" ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace cvm
