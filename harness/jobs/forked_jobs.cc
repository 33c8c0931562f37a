#include "harness/jobs/forked_jobs.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "harness/jobs/stop_signal.h"
#include "harness/worker_client/worker_client.h"

namespace cvm {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return out.good();
}

// What a job's exception was, so the parent can throw the same kind (and main give the same
// exit status as one process would).
constexpr const char* kWorkerStart = "worker_start";
constexpr const char* kCaseFile = "case_file";
constexpr const char* kOther = "other";

}  // namespace

int64_t JobCounters::sum(int counter) const {
  int64_t total = 0;
  for (int k = 0; k < jobs_; ++k) total += at(k, counter).load();
  return total;
}

int64_t JobCounters::max(int counter) const {
  int64_t most = 0;
  for (int k = 0; k < jobs_; ++k) most = std::max(most, at(k, counter).load());
  return most;
}

int default_jobs() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string one_process_reason(const Registry& registry,
                               const std::vector<std::string>& backends) {
  for (const std::string& name : backends) {
    const Backend* b = registry.find_backend(name);
    if (b != nullptr && b->available && !b->fork_safe) {
      return "backend '" + name + "' cannot run in a forked process (its runtime is initialized "
             "before the jobs would fork)";
    }
  }
  return "";
}

namespace {

// Where job k's result and error go: temporary files named after this process and this call.
struct JobFiles {
  std::string stem;
  std::string result(int k) const { return stem + std::to_string(k) + ".out"; }
  std::string error(int k) const { return stem + std::to_string(k) + ".err"; }
};

// In forked job k: runs the body and writes its result, or its exception's kind and message;
// then exits, never returning into the parent's code.
[[noreturn]] void run_job(int k, const std::function<std::string(int, const JobCounters&)>& body,
                          const JobCounters& counters, const JobFiles& files,
                          const std::atomic<int>* parent_stop, pid_t parent) {
  // A job dies with the parent (a second signal, SIGKILL): nobody would read its result.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);
  follow_parent_stop(parent_stop);
  int status = 0;
  const char* kind = nullptr;
  std::string message;
  try {
    status = write_file(files.result(k), body(k, counters)) ? 0 : 3;
    if (status != 0) {
      kind = kOther;
      message = "cannot write " + files.result(k);
    }
  } catch (const WorkerStartError& e) {
    kind = kWorkerStart;
    message = e.what();
  } catch (const CaseFileError& e) {
    kind = kCaseFile;
    message = e.what();
  } catch (const std::exception& e) {
    kind = kOther;
    message = e.what();
  }
  if (kind != nullptr) {
    write_file(files.error(k), std::string(kind) + "\n" + message);
    status = 3;
  }
  std::fflush(nullptr);
  ::_exit(status);
}

// Waits for every job, reporting progress every 100 ms; the first job seen failing on its own
// stops the others. Fills each job's wait status (-1: lost) and returns the failed job (-1: none).
// A stop the parent received (stop_signal.h) is passed to every job through `stop`.
int wait_for_jobs(const std::vector<pid_t>& pids, const JobCounters& counters,
                  const ForkedJobsOptions& options, std::vector<int>& statuses,
                  std::atomic<int>& stop) {
  const auto start = std::chrono::steady_clock::now();
  statuses.assign(pids.size(), 0);
  std::vector<bool> ended(pids.size(), false);
  int failed = -1;
  for (size_t done = 0; done < pids.size();) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (stop.load() == 0) stop.store(stop_signal());
    for (size_t k = 0; k < pids.size(); ++k) {
      if (ended[k]) continue;
      int status = 0;
      const pid_t got = ::waitpid(pids[k], &status, WNOHANG);
      if (got == pids[k] || (got < 0 && errno == ECHILD)) {
        statuses[k] = got == pids[k] ? status : -1;
        ended[k] = true;
        ++done;
        const bool ok = got == pids[k] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && failed < 0) {
          failed = static_cast<int>(k);
          for (size_t other = 0; other < pids.size(); ++other) {
            if (!ended[other]) ::kill(pids[other], SIGKILL);
          }
        }
      }
    }
    if (options.progress) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      options.progress(counters, elapsed.count());
    }
  }
  return failed;
}

// The failed job's error as the exception its job threw (so main gives the same exit status as
// one process would); `error` is its error file, empty when it died without writing one.
[[noreturn]] void throw_job_error(const std::string& job_name, const std::string& error,
                                  int status) {
  const size_t newline = error.find('\n');
  if (newline == std::string::npos) {
    throw RuntimeError(concat(job_name, " failed (",
                              status == -1       ? std::string("lost")
                              : WIFSIGNALED(status) ? concat("signal ", WTERMSIG(status))
                                                    : concat("status ", WEXITSTATUS(status)),
                              ")"));
  }
  const std::string kind = error.substr(0, newline);
  const std::string message = job_name + ": " + error.substr(newline + 1);
  if (kind == kWorkerStart) throw WorkerStartError(message);
  if (kind == kCaseFile) throw CaseFileError(message);
  throw RuntimeError(message);
}

}  // namespace

std::vector<std::string> run_forked_jobs(
    int jobs, const std::function<std::string(int job, const JobCounters& counters)>& body,
    const ForkedJobsOptions& options) {
  check(jobs >= 1, "--jobs must be at least 1");
  const size_t slots = static_cast<size_t>(jobs) *
                       static_cast<size_t>(std::max(1, options.counters_per_job));
  const size_t bytes = sizeof(std::atomic<int64_t>) * (slots + 1);
  void* shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  check(shared != MAP_FAILED, "mmap for the jobs' progress failed");
  auto* values = new (shared) std::atomic<int64_t>[slots + 1];
  for (size_t i = 0; i < slots + 1; ++i) values[i] = 0;
  // The slot after the counters: the signal that asked the parent to stop (0: none).
  static_assert(sizeof(std::atomic<int64_t>) >= sizeof(std::atomic<int>));
  auto* stop = new (&values[slots]) std::atomic<int>(0);
  const JobCounters counters(values, jobs, std::max(1, options.counters_per_job));
  static std::atomic<int> sequence{0};
  const JobFiles files{std::filesystem::temp_directory_path().string() + "/cvmcheck-job-" +
                       std::to_string(::getpid()) + "-" + std::to_string(sequence++) + "-"};
  const auto job_name = [&options, jobs](int k) {
    return concat(options.what, " job ", k + 1, " of ", jobs);
  };

  std::vector<pid_t> pids;
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // nothing buffered may be written twice, by the parent and a job
  for (int k = 0; k < jobs; ++k) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (const pid_t started : pids) ::kill(started, SIGKILL);
      for (const pid_t started : pids) ::waitpid(started, nullptr, 0);
      ::munmap(shared, bytes);
      fail_runtime("fork failed for ", job_name(k));
    }
    if (pid == 0) run_job(k, body, counters, files, stop, parent);
    pids.push_back(pid);
  }
  std::vector<int> statuses;
  const int failed = wait_for_jobs(pids, counters, options, statuses, *stop);
  ::munmap(shared, bytes);

  std::vector<std::string> results;
  std::string error;
  for (int k = 0; k < jobs; ++k) {
    if (k == failed) error = read_file(files.error(k));
    if (failed < 0) results.push_back(read_file(files.result(k)));
    std::error_code ignored;
    std::filesystem::remove(files.result(k), ignored);
    std::filesystem::remove(files.error(k), ignored);
  }
  if (failed >= 0) throw_job_error(job_name(failed), error, statuses[static_cast<size_t>(failed)]);
  return results;
}

}  // namespace cvm
