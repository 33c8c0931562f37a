#include "harness/worker_client/hang_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "cvmcheck/errors.h"

namespace cvm {
namespace {

// A worker may run its work in children (the cvm-runtime adapter forks one per model), so the
// probe looks at every process of the worker's group, the worker first; a few are enough.
constexpr size_t kMostProcesses = 8;

struct ProcStat {
  bool ok = false;
  std::string name;
  char state = '?';
  pid_t group = 0;
  double cpu_s = 0;  // user + system
};

ProcStat read_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  ProcStat s;
  if (!in || !std::getline(in, line)) return s;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return s;
  s.name = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  long long utime = 0;
  for (int number = 3; rest >> field; ++number) {
    if (number == 3) s.state = field.empty() ? '?' : field[0];
    if (number == 5) s.group = static_cast<pid_t>(std::atoll(field.c_str()));
    if (number == 14) utime = std::atoll(field.c_str());
    if (number == 15) {
      const long ticks = ::sysconf(_SC_CLK_TCK);
      s.cpu_s = static_cast<double>(utime + std::atoll(field.c_str())) /
                static_cast<double>(ticks > 0 ? ticks : 100);
      s.ok = true;
      break;
    }
  }
  return s;
}

// `leader` and the other processes of its group.
std::vector<pid_t> group_of(pid_t leader) {
  std::vector<pid_t> pids{leader};
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || pid == leader) continue;
    if (read_stat(static_cast<pid_t>(pid)).group == leader) pids.push_back(static_cast<pid_t>(pid));
    if (pids.size() >= kMostProcesses) break;
  }
  ::closedir(proc);
  return pids;
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

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

bool gdb_on_path() { return std::system("command -v gdb >/dev/null 2>&1") == 0; }

// gdb -p PID -batch: every thread's backtrace appended to `path`, killed after 30 s. As for the
// worker's own start, everything the child needs is prepared before fork (the harness may run
// threads): after it, only async-signal-safe calls.
bool append_stacks(pid_t pid, const std::string& path) {
  const std::string script =
      "exec gdb -nx -batch -p " + std::to_string(pid) + " -ex 'thread apply all bt 40'";
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    const int out = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (out < 0) ::_exit(127);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
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

// "sleeping, 0.00 CPU-s per s over 0.3 s, waiting in pipe_read" for one process.
std::string describe(pid_t pid, const ProcStat& before, const ProcStat& after, double looked) {
  std::string text = concat(state_name(after.state), ", ",
                            fixed((after.cpu_s - before.cpu_s) / looked, 2), " CPU-s per s over ",
                            fixed(looked, 1), " s");
  const std::string channel = wait_channel(pid);
  if (!channel.empty()) text += ", waiting in " + channel;
  return text;
}

}  // namespace

HangProbe probe_hung_process(pid_t pid, double look_s, const std::string& stack_path) {
  HangProbe probe;
  const std::vector<pid_t> pids = group_of(pid);
  std::map<pid_t, ProcStat> before;
  for (pid_t p : pids) before[p] = read_stat(p);
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(look_s));
  const double looked =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (pid_t p : pids) {
    const ProcStat after = read_stat(p);
    if (!before[p].ok || !after.ok || looked <= 0) continue;
    const std::string what = describe(p, before[p], after, looked);
    probe.summary += p == pid ? what : concat("; its process ", p, " (", after.name, ") ", what);
  }
  if (stack_path.empty()) return probe;
  probe.stack_path = stack_path;
  const bool gdb = gdb_on_path();
  probe.stacks_taken = gdb;
  for (pid_t p : pids) {
    {
      std::ofstream out(stack_path, std::ios::app);
      out << "== process " << p << " (" << read_stat(p).name << ") of worker " << pid
          << ": no reply in time\n";
      if (!gdb) out << "no gdb on PATH: no stacks (ci/setup.sh installs it)\n";
    }
    if (gdb) probe.stacks_taken = append_stacks(p, stack_path) && probe.stacks_taken;
  }
  return probe;
}

}  // namespace cvm
