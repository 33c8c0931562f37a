// The golden graph set: generated reproducibly with every operator and storage plan, verified
// on every CPU backend, failing a planted wrong kernel at its node, refusing damaged files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/golden/fixture_files.h"
#include "harness/golden/golden.h"
#include "harness/golden/golden_graphs.h"
#include "harness/graph/graph_gen.h"
#include "registry/registry.h"
#include "support/cli.h"
#include "support/planted_registry.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

const std::string kCheckedIn = std::string(CVMCHECK_BUILT_SOURCE_DIR) + "/golden-graphs";

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class GoldenGraphsDir : public testing::TempDirTest {
 protected:
  GoldenGraphsDir() : TempDirTest("cvmcheck-golden-graphs") {}
};

TEST_F(GoldenGraphsDir, GenerationCoversEveryOperatorAndPlanAndGivesTheCheckedInBytes) {
  GoldenGraphsOptions o;
  o.out = (dir_ / "set").string();
  const GoldenGraphsSummary s = generate_golden_graphs(registry(), o);
  EXPECT_TRUE(s.missing.empty()) << s.missing.size() << " operators missing";
  EXPECT_EQ(s.operators.size(), graph::generator_ops().size());
  EXPECT_EQ(s.storage_plans.size(), 3u);
  EXPECT_LE(s.bytes, 400 * 1024);
  for (const char* chain : {"chain_conv_bias_requant_relu_pool", "chain_relu_flatten_dense_requant",
                            "chain_get_valid_counts_nms"}) {
    EXPECT_TRUE(fs::exists(fs::path(o.out) / chain / "model.json")) << chain;
  }
  int64_t compared = 0;
  for (const fs::directory_entry& f : fs::recursive_directory_iterator(o.out)) {
    if (!f.is_regular_file()) continue;
    const fs::path rel = fs::relative(f.path(), o.out);
    EXPECT_EQ(bytes_of(f.path()), bytes_of(fs::path(kCheckedIn) / rel)) << rel;
    ++compared;
  }
  EXPECT_EQ(compared, s.files + 2);  // and MANIFEST.json, README.md
}

TEST(GoldenGraphs, CheckedInSetPassesOnEveryCpuBackend) {
  ASSERT_TRUE(is_golden_graphs(kCheckedIn));
  // Every backend: no model fails (a variant implementing a few operators skips the others).
  for (const Backend& b : registry().backends()) {
    const GoldenGraphsResult r = verify_golden_graphs(registry(), kCheckedIn, b.name);
    EXPECT_TRUE(r.ok()) << golden_graphs_table(r, b.name);
  }
  // The default CPU backends run every model.
  for (const char* backend : {"reference", "optimized", "cuda-host"}) {
    for (const GoldenGraphResult& m : verify_golden_graphs(registry(), kCheckedIn, backend).models) {
      EXPECT_EQ(m.status, "pass") << backend << " " << m.name << ": " << m.detail;
    }
  }
}

TEST(GoldenGraphs, PlantedKernelFailsNamingTheFirstDifferingNode) {
  const Registry r = testing::with_planted_kernel("planted-right-shift-ties-to-zero", "optimized");
  const GoldenGraphsResult result = verify_golden_graphs(r, kCheckedIn, "optimized");
  EXPECT_FALSE(result.ok());
  int failed = 0;
  for (const GoldenGraphResult& m : result.models) {
    if (m.status != "fail") continue;
    ++failed;
    EXPECT_NE(m.detail.find("cvm_right_shift"), std::string::npos) << m.detail;
  }
  EXPECT_GE(failed, 1);
}

// The same planted kernel, listed by the signature of its call: every model it fails is an
// xfail naming the entry, and the set passes.
TEST_F(GoldenGraphsDir, ListedDifferencesAreXfail) {
  const fs::path list = dir_ / "known.txt";
  std::ofstream(list) << "sig:cvm_right_shift|optimized|value|*  [planted] ties to zero\n";
  const ExpectationSet xfail = read_expectations({list.string()}, {});
  const Registry r = testing::with_planted_kernel("planted-right-shift-ties-to-zero", "optimized");
  const GoldenGraphsResult result = verify_golden_graphs(r, kCheckedIn, "optimized", xfail);
  EXPECT_TRUE(result.ok());
  int listed = 0;
  for (const GoldenGraphResult& m : result.models) {
    EXPECT_NE(m.status, "fail") << m.name << ": " << m.detail;
    if (m.status != "xfail") continue;
    ++listed;
    EXPECT_NE(m.detail.find("[planted]"), std::string::npos) << m.detail;
  }
  EXPECT_GE(listed, 1);
}

TEST_F(GoldenGraphsDir, DamagedFileIsCorrupt) {
  fs::copy(kCheckedIn, dir_ / "set", fs::copy_options::recursive);
  const fs::path entry = dir_ / "set" / "chain_conv_bias_requant_relu_pool" / "entry_3.npy";
  std::string bytes = bytes_of(entry);
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  fs::permissions(entry, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(entry, std::ios::binary) << bytes;
  const GoldenGraphsResult r = verify_golden_graphs(registry(), (dir_ / "set").string(), "reference");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.models[0].status, "corrupt") << r.models[0].detail;
}

// As a user runs it: exit 0 on the checked-in set; exit 1 naming the node when an expected value
// differs (changed with its sha256, so that the file is not merely damaged).
TEST_F(GoldenGraphsDir, CommandExitsOneNamingTheFirstDifferingNode) {
  const testing::CliRun ok = testing::run_cli("golden verify " + kCheckedIn + " --backend optimized", true);
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("15 pass"), std::string::npos) << ok.out;
  const fs::path set = dir_ / "set";
  fs::copy(kCheckedIn, set, fs::copy_options::recursive);
  const std::string model = "chain_conv_bias_requant_relu_pool";
  const fs::path entry = set / model / "entry_6.npy";  // relu's output
  std::string bytes = bytes_of(entry);
  bytes[bytes.size() - 4] = static_cast<char>(bytes[bytes.size() - 4] + 1);
  fs::permissions(entry, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(entry, std::ios::binary) << bytes;
  nlohmann::json manifest = nlohmann::json::parse(bytes_of(set / "MANIFEST.json"));
  manifest["models"][0]["files"]["entry_6.npy"] = sha256_hex(bytes);
  fs::permissions(set / "MANIFEST.json", fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(set / "MANIFEST.json") << manifest.dump(1);
  const testing::CliRun bad = testing::run_cli("golden verify " + set.string() + " --backend optimized", true);
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("fail  " + model + ": first differing node: node 6 (relu_0)"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace cvm
