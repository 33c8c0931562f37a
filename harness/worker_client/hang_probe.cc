#include "harness/worker_client/hang_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "cvmcheck/errors.h"

namespace cvm {
namespace {

struct ProcStat {
  bool ok = false;
  char state = '?';
  double cpu_s = 0;  // user + system
};

ProcStat read_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  ProcStat s;
  if (!in || !std::getline(in, line)) return s;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return s;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  long long utime = 0, stime = 0;
  for (int number = 3; rest >> field; ++number) {
    if (number == 3) s.state = field.empty() ? '?' : field[0];
    if (number == 14) utime = std::atoll(field.c_str());
    if (number == 15) {
      stime = std::atoll(field.c_str());
      s.ok = true;
      break;
    }
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  s.cpu_s = static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
  return s;
}

std::string wait_channel(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/wchan");
  std::string channel;
  std::getline(in, channel);
  return channel == "0" ? std::string() : channel;
}

const char* state_name(char state) {
  switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "in uninterruptible wait";
    case 'T': case 't': return "stopped";
    case 'Z': return "a zombie";
    default: return "in state ?";
  }
}

bool gdb_on_path() {
  return std::system("command -v gdb >/dev/null 2>&1") == 0;
}

// gdb -p PID -batch: every thread's backtrace appended to `path`, killed after 30 s.
bool append_stacks(pid_t pid, const std::string& path) {
  const std::string pid_text = std::to_string(pid);
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    const int out = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (out < 0) ::_exit(127);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execlp("gdb", "gdb", "-nx", "-batch", "-p", pid_text.c_str(), "-ex",
             "thread apply all bt 40", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  for (int waited_ms = 0; ::waitpid(child, &status, WNOHANG) == 0; waited_ms += 20) {
    if (waited_ms > 30000) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

HangProbe probe_hung_process(pid_t pid, double look_s, const std::string& stack_path) {
  HangProbe probe;
  const ProcStat before = read_stat(pid);
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(look_s));
  const ProcStat after = read_stat(pid);
  const double looked =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (before.ok && after.ok && looked > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.2f", (after.cpu_s - before.cpu_s) / looked);
    char span[32];
    std::snprintf(span, sizeof span, "%.1f", looked);
    probe.summary = concat(state_name(after.state), ", ", rate, " CPU-s per s over ", span, " s");
    const std::string channel = wait_channel(pid);
    if (!channel.empty()) probe.summary += concat(", waiting in ", channel);
  }
  if (!stack_path.empty()) {
    probe.stack_path = stack_path;
    const bool gdb = gdb_on_path();
    {
      std::ofstream out(stack_path, std::ios::app);
      out << "== process " << pid << ": no reply in time\n";
      if (!gdb) out << "no gdb on PATH: no stacks (ci/setup.sh installs it)\n";
    }
    probe.stacks_taken = gdb && append_stacks(pid, stack_path);
  }
  return probe;
}

}  // namespace cvm
