// The main job's verdict does not depend on the machine's load (docs/paths.md, "Paths judged by
// calls"): with both cores of a 2-core machine busy beside it, a campaign of the default scope
// passes on a correct tree, and still fails when a path is dropped from the generators (the
// planted fault CVMCHECK_PLANTED_UNREACHED_PATH: no call of it counts).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

// Busy loops, one per core (at least two), for the test's duration.
class BusyCores {
 public:
  BusyCores() {
    const long cores = std::max(2L, ::sysconf(_SC_NPROCESSORS_ONLN));
    for (long k = 0; k < cores; ++k) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (volatile uint64_t spin = 0;; spin = spin + 1) {
        }
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~BusyCores() {
    for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
    for (const pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
  }
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;

 private:
  std::vector<pid_t> pids_;
};

class MainJobVerdict : public testing::TempDirTest {
 protected:
  MainJobVerdict() : TempDirTest("cvmcheck-main-job") {}
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // The main job's campaign (every operator, the default backends), bounded by a count of calls
  // (not a time box) so that its verdict cannot depend on the busy machine's speed.
  int main_job(const std::string& env) {
    const pid_t pid = testing::spawn_cli(env, "campaign --max-cases 6000 --seconds 600 --seed 11 --quiet "
                                              "--max-repros 0 --report " + path("report"),
                                         path("out"), path("err"));
    return testing::wait_cli(pid);
  }
};

TEST_F(MainJobVerdict, PassesOnABusyMachineAndFailsOnADroppedPath) {
  const BusyCores busy;
  EXPECT_EQ(main_job(""), 0) << testing::file_text(path("out")) << testing::file_text(path("err"));
  EXPECT_EQ(main_job("env CVMCHECK_PLANTED_UNREACHED_PATH=fused.one_chunk"), 1)
      << testing::file_text(path("out"));
  const std::string said = testing::file_text(path("err"));
  EXPECT_NE(said.find("declares kernel paths no call reached: fused.one_chunk"), std::string::npos)
      << said;
}

}  // namespace
}  // namespace cvm
