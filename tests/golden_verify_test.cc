// golden verify judges backends, never the suite's own damage: a case whose .npy is unreadable
// (here with a manifest that matches the damaged bytes, so the sha256 check passes) is a
// "corrupt" row, not a backend's failure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "harness/golden/fixture_files.h"
#include "harness/golden/golden.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

TEST(GoldenVerify, AnUnreadableCaseIsCorruptNotABackendFailure) {
  const fs::path suite = fs::path(::testing::TempDir()) / "damaged-golden";
  fs::remove_all(suite);
  const std::string name = "example_seed_example_axis_1";
  fs::create_directories(suite / "sum");
  fs::copy(fs::path(CVMCHECK_SOURCE_DIR) / "golden" / "sum" / name, suite / "sum" / name);
  const std::string damaged = "\x93NUMPY truncated";
  std::ofstream(suite / "sum" / name / "input_0.npy", std::ios::binary) << damaged;
  nlohmann::json files;
  for (const auto& entry : fs::directory_iterator(suite / "sum" / name)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    files[entry.path().filename().string()] = sha256_hex(bytes);
  }
  const nlohmann::json manifest = {
      {"format", "cvmcheck-golden"},
      {"format_version", 1},
      {"cases",
       {{{"op", "sum"}, {"name", name}, {"dir", "sum/" + name}, {"outcome", "ok"},
         {"files", files}}}}};
  std::ofstream(suite / "MANIFEST.json") << manifest.dump();
  const GoldenVerifyResult result = verify_golden(registry(), suite.string(), "optimized", {});
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases.front().status, "corrupt");
  EXPECT_NE(result.cases.front().detail.find("input 0"), std::string::npos)
      << result.cases.front().detail;
}

}  // namespace
}  // namespace cvm
