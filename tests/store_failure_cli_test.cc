// A findings store the campaign cannot write (read-only, a full disk) is a clear error before the
// campaign runs, and the store is left as it was (docs/nightly.md, "A stopped or killed run").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "support/cli.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

using testing::file_text;

class StoreFailureTest : public testing::TempDirTest {
 protected:
  StoreFailureTest() : TempDirTest("cvmcheck-store-failure") {}
  std::string store() const { return (dir_ / "findings.sqlite").string(); }
  std::string out() const { return (dir_ / "out.txt").string(); }
  std::string err() const { return (dir_ / "err.txt").string(); }
  std::string campaign() const {
    return "campaign --ops max --backends optimized --max-cases 20 --jobs 1 --quiet --store " +
           store();
  }
  // One clean run, so the store exists with a run.
  void make_store() {
    const testing::CliRun first = testing::run_cli(campaign(), true);
    ASSERT_EQ(first.status, 0) << first.out;
  }
  // The failing run: exit 2 naming the store, nothing recorded, the store intact.
  void expect_refused(int status) {
    EXPECT_EQ(status, 2) << file_text(err());
    EXPECT_NE(file_text(err()).find(store()), std::string::npos) << file_text(err());
    EXPECT_EQ(file_text(out()).find("cvmcheck campaign"), std::string::npos);
    EXPECT_EQ(testing::store_int(store(), "SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(testing::store_text(store(), "PRAGMA integrity_check"), "ok");
  }
};

TEST_F(StoreFailureTest, AReadOnlyStoreIsAClearErrorBeforeTheRun) {
  make_store();
  ::chmod(store().c_str(), 0444);
  // root writes a file whatever its mode: the run is made by nobody then.
  const std::string user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups"
                                            : "";
  const pid_t pid = testing::spawn_cli(user, campaign(), out(), err());
  expect_refused(testing::wait_cli(pid));
}

// A full disk, as a file size limit makes it (SIGXFSZ ignored: the write fails with EFBIG). The
// limit is 4 blocks of /bin/sh's 512 bytes: the store (tens of KiB, WAL frames of 4 KiB) cannot
// grow, while LLVM's OpenMP runtime (the sanitizer build's) still sizes its 1 KiB shared-memory
// registration file; under one block it dies of SIGBUS before the store is opened.
TEST_F(StoreFailureTest, AFullDiskIsAClearErrorBeforeTheRun) {
  make_store();
  const pid_t pid =
      testing::spawn_cli("", campaign(), out(), err(), "ulimit -f 4; trap '' XFSZ;");
  expect_refused(testing::wait_cli(pid));
}

}  // namespace
}  // namespace cvm
